/** The zod schemas of a pack's three YAML files (docs/packs.md): strict objects, real dates, HTTPS citations. */
import { z } from 'zod';
import { SIMPLE_NAME } from './read-folder.ts';

/** At most this many sources, versions per source, assertions, pieces of evidence per assertion and insights in one pack (docs/packs.md). */
export const PACK_LIMITS = { sources: 5_000, versionsPerSource: 100, assertions: 50_000, evidencePerAssertion: 20, insights: 10_000 } as const;

const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a real calendar date written YYYY-MM-DD (2023-02-30 is not). */
export function isCalendarDate(text: string): boolean {
  const match = DATE_SHAPE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Whether `text` is an absolute HTTPS URL that carries no user name or password. */
export function isCredentialFreeHttpsUrl(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.username === '' && url.password === '';
}

const date = z
  .string({ error: 'expected a date YYYY-MM-DD' })
  .refine(isCalendarDate, { message: 'expected a real calendar date YYYY-MM-DD' });
const simpleName = z
  .string({ error: 'expected a name (quote it if it looks like a number)' })
  .regex(SIMPLE_NAME, { message: 'expected a simple name: letters, digits, ".", "_" or "-", at most 64 characters' });
const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, { message: 'expected a slug: lower-case letters, digits and "-"' });
const text = z.string().trim().min(1, { message: 'must not be empty' }).max(10_000);
const id = z.string().min(1, { message: 'must not be empty' }).max(200);

const sourceVersion = z.strictObject({
  version: simpleName,
  published: date,
  reported: date,
  extraction: z.number().int().positive(),
});

const source = z.strictObject({
  id: simpleName,
  title: text,
  citation: z.string().refine(isCredentialFreeHttpsUrl, { message: 'expected an HTTPS URL without credentials' }),
  versions: z
    .array(sourceVersion)
    .min(1, { message: 'a source needs at least one version' })
    .max(PACK_LIMITS.versionsPerSource, { message: `at most ${PACK_LIMITS.versionsPerSource} versions per source` }),
});

/** pack.yaml. */
export const manifestSchema = z.strictObject({
  pack: z.literal(1, { error: 'the format version must be `pack: 1`' }),
  product: slug,
  slug,
  title: text,
  sources: z.array(source).max(PACK_LIMITS.sources, { message: `at most ${PACK_LIMITS.sources} sources per pack` }),
});

const evidence = z.strictObject({
  source: z.string(),
  version: z.string({ error: 'expected a version label (quote it if it looks like a number)' }),
  lines: z.tuple([z.number().int().positive(), z.number().int().positive()], { error: 'expected [first line, last line]' }),
  quote: text,
});

const assertion = z.strictObject({
  id,
  statement: text,
  accepted: date,
  retracted: date.optional(),
  supersedes: z.array(id).optional(),
  evidence: z
    .array(evidence)
    .min(1, { message: 'an assertion needs at least one piece of evidence' })
    .max(PACK_LIMITS.evidencePerAssertion, { message: `at most ${PACK_LIMITS.evidencePerAssertion} pieces of evidence per assertion` }),
});

/** assertions.yaml. */
export const assertionsSchema = z
  .array(assertion, { error: 'expected a list of assertions' })
  .max(PACK_LIMITS.assertions, { message: `at most ${PACK_LIMITS.assertions} assertions per pack` });

const insight = z.strictObject({
  id,
  statement: text,
  availableFrom: date,
  derivedFrom: z.array(id).min(1, { message: 'an insight derives from at least one assertion' }),
});

/** insights.yaml. */
export const insightsSchema = z
  .array(insight, { error: 'expected a list of insights' })
  .max(PACK_LIMITS.insights, { message: `at most ${PACK_LIMITS.insights} insights per pack` });

export type PackManifest = z.infer<typeof manifestSchema>;
export type PackSource = PackManifest['sources'][number];
export type PackSourceVersion = PackSource['versions'][number];
export type PackAssertion = z.infer<typeof assertionsSchema>[number];
export type PackEvidence = PackAssertion['evidence'][number];
export type PackInsight = z.infer<typeof insightsSchema>[number];
