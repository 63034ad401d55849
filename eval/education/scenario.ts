/**
 * A scenario of the education quality evaluation suite (spec 1.10; eval/education/README.md): one fixture file under
 * `scenarios/`, in YAML or JSON. It names the endpoint it calls and the request body, the canned model answers the
 * offline run scripts into the fake model server, and what the checks expect of the answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The eight workflows of spec 1.10; every one has exactly one scenario. */
export const EVAL_WORKFLOWS = [
  'weekly-planning',
  'assessment',
  'reuse-first-adaptation',
  'evidence-to-reteach',
  'live-whiteboard-preparation',
  'writing-feedback',
  'family-communication',
  'substitute-continuity',
] as const;
/** One of EVAL_WORKFLOWS. */
export type EvalWorkflow = (typeof EVAL_WORKFLOWS)[number];

/** The endpoints a scenario may call, by their last path segment under /api/product/v1/intelligence/education. */
export const EVAL_ENDPOINT_NAMES = [
  'generate',
  'generate-image',
  'student-guidance',
  'practice-review',
  'assessment-draft',
  'quality-review',
  'rubric-draft',
] as const;
/** One of EVAL_ENDPOINT_NAMES. */
export type EvalEndpointName = (typeof EVAL_ENDPOINT_NAMES)[number];

const Usage = z.strictObject({ inputTokens: z.int().min(0).max(1_000_000), outputTokens: z.int().min(0).max(1_000_000) });

/**
 * One canned model answer for the offline run: a chat reply (`json`, serialized for the fake, or `text` as is) or an
 * image (`image`: which format's smallest signature bytes the fake returns), with the usage the fake reports.
 */
export const CannedReplySchema = z.union([
  z.strictObject({ json: z.record(z.string(), z.unknown()), usage: Usage }),
  z.strictObject({ text: z.string().min(1).max(200_000), usage: Usage }),
  z.strictObject({ image: z.enum(['png', 'jpeg', 'webp']), usage: Usage.optional() }),
]);
/** See CannedReplySchema. */
export type CannedReply = z.output<typeof CannedReplySchema>;

const Ref = z.string().min(1).max(128);

/** A reading level band (Flesch-Kincaid grade) that learner-facing text must fall within. */
export const ReadingBandSchema = z
  .strictObject({
    minGrade: z.number().min(-5).max(20),
    maxGrade: z.number().min(-5).max(20),
    /** Dotted paths into the envelope's data whose strings are the learner-facing text; default: every string. */
    paths: z.array(z.string().min(1).max(200)).min(1).max(20).optional(),
  })
  .refine((band) => band.minGrade <= band.maxGrade, 'minGrade must not exceed maxGrade');

/** What the checks expect of a scenario's answer. Absent means the check's default (README, "The checks"). */
export const ExpectationsSchema = z.strictObject({
  /** Standards codes that must appear; default: the codes of the request's `standards` (or `standard`). */
  standards: z.array(Ref).max(20).optional(),
  /** A regular expression (source) for standard codes in prose, overriding the default pattern. */
  standardCodePattern: z.string().min(1).max(300).optional(),
  /** Source ids the answer may cite; default: the ids of the request's `sources`. */
  sources: z.array(Ref).max(20).optional(),
  /** Whether the answer must cite at least one of the sources (default: true when sources were sent). */
  citeSources: z.boolean().optional(),
  /**
   * Checks for understanding the answer must hold: at least `min`, counted in arrays under the keys named (default:
   * checksForUnderstanding, exitTicket and the like), else in sentences that name one. Absent: not asked of this workflow.
   */
  checksForUnderstanding: z
    .strictObject({ min: z.int().min(1).max(20), keys: z.array(z.string().min(1).max(64)).min(1).max(10).optional() })
    .optional(),
  accessibility: z
    .strictObject({
      /** Alt text must be present (an image, a described visual). */
      altText: z.boolean().optional(),
      /** Accessibility notes must be present. */
      notes: z.boolean().optional(),
      readingLevel: ReadingBandSchema.optional(),
    })
    .optional(),
  /** Extra words that must not appear in the answer (names the request deliberately avoided, identifiers). */
  forbiddenTerms: z.array(z.string().min(2).max(100)).max(50).optional(),
  /** Latency thresholds in milliseconds: a report item, never a failed check. */
  latency: z.strictObject({ firstByteMs: z.int().min(1).max(900_000), totalMs: z.int().min(1).max(900_000) }).optional(),
});
/** See ExpectationsSchema. */
export type Expectations = z.output<typeof ExpectationsSchema>;

/** One scenario file. */
export const ScenarioSchema = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]{3,64}$/, 'must be lower-case letters, digits and dashes'),
  workflow: z.enum(EVAL_WORKFLOWS),
  title: z.string().min(3).max(120),
  /** What a teacher is doing, in a sentence or two: for the report. */
  description: z.string().min(10).max(1000),
  endpoint: z.enum(EVAL_ENDPOINT_NAMES),
  /** Ask for the NDJSON stream (generate only): the checks then read the `done` event's envelope. */
  stream: z.boolean().default(false),
  /** The request body, exactly as a product sends it. */
  request: z.record(z.string(), z.unknown()),
  /** The model answers the offline run scripts into the fake, in order. */
  model: z.strictObject({ replies: z.array(CannedReplySchema).min(1).max(5) }),
  expect: ExpectationsSchema.default({}),
});
/** A scenario as validated. */
export type Scenario = z.output<typeof ScenarioSchema>;

/** A scenario file that could not be read or failed its schema. */
export interface ScenarioFileProblem {
  file: string;
  problems: string[];
}

/** Parses one fixture's text (YAML or JSON by its extension) against ScenarioSchema. */
export function parseScenario(file: string, text: string): { ok: true; scenario: Scenario } | { ok: false; problem: ScenarioFileProblem } {
  let raw: unknown;
  try {
    raw = extname(file) === '.json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 0 });
  } catch (error) {
    return { ok: false, problem: { file, problems: [`not valid ${extname(file).slice(1)}: ${(error as Error).message}`] } };
  }
  const parsed = ScenarioSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, problem: { file, problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(file)'}: ${issue.message}`) } };
  }
  return { ok: true, scenario: parsed.data };
}

/** The folder the suite's fixtures live in. */
export const SCENARIO_DIR = new URL('./scenarios/', import.meta.url);

/** Reads every `.yaml`, `.yml` and `.json` file of `dir`, sorted by name. */
export function loadScenarioFiles(dir: URL | string = SCENARIO_DIR): { scenarios: Array<Scenario & { file: string }>; problems: ScenarioFileProblem[] } {
  const path = typeof dir === 'string' ? dir : fileURLToPath(dir);
  const scenarios: Array<Scenario & { file: string }> = [];
  const problems: ScenarioFileProblem[] = [];
  const files = readdirSync(path)
    .filter((name) => ['.yaml', '.yml', '.json'].includes(extname(name)))
    .sort();
  for (const name of files) {
    const parsed = parseScenario(name, readFileSync(join(path, name), 'utf8'));
    if (parsed.ok) scenarios.push({ ...parsed.scenario, file: name });
    else problems.push(parsed.problem);
  }
  return { scenarios, problems };
}
