/**
 * The offline validation of the suite's fixtures (README, "Offline validation"): every file parses against the
 * scenario schema; the eight workflows of spec 1.10 each have exactly one scenario; each request body passes its
 * endpoint's request schema where that module exists; each canned model answer passes the endpoint's own answer check
 * where there is one; and the expectations are well-formed (patterns compile, expected standards and sources are
 * ones the request sends, canned replies fit the endpoint). Pure apart from reading the folder.
 */
import { EducationContextSchema } from '../../src/domains/education/context/index.ts';
import { EVAL_ENDPOINTS } from './endpoints.ts';
import { EVAL_WORKFLOWS, loadScenarioFiles, SCENARIO_DIR, type Scenario } from './scenario.ts';
import { requestRefs } from './checks/text.ts';

/** One fixture's problems, or a note on what could not be validated yet. */
export interface FixtureReport {
  file: string;
  scenario: string | undefined;
  problems: string[];
  /** Things not validated, with why (an endpoint whose module has not landed). */
  notes: string[];
}

/** The validation of a folder of fixtures. */
export interface ValidationReport {
  ok: boolean;
  scenarios: Array<Scenario & { file: string }>;
  fixtures: FixtureReport[];
  /** Problems of the set as a whole (a workflow without a scenario, a repeated id). */
  problems: string[];
}

/** The canned reply as the text the fake model sends. */
export function replyText(reply: Scenario['model']['replies'][number]): string | undefined {
  if ('json' in reply) return JSON.stringify(reply.json);
  if ('text' in reply) return reply.text;
  return undefined;
}

/** Validates one scenario: the request, the canned answers and the expectations. */
export function validateScenario(scenario: Scenario): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  const endpoint = EVAL_ENDPOINTS[scenario.endpoint];
  let input: unknown;
  if (endpoint.input) {
    const parsed = endpoint.input.safeParse(scenario.request);
    if (parsed.success) input = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `request.${issue.path.join('.')}: ${issue.message}`));
  } else {
    notes.push(`request not validated: no request schema for ${scenario.endpoint} yet`);
    // The context packet has its own schema whatever the endpoint: a packet the service would refuse is caught here.
    if (scenario.request.context !== undefined) {
      const packet = EducationContextSchema.safeParse(scenario.request.context);
      if (!packet.success) problems.push(...packet.error.issues.map((issue) => `request.context.${issue.path.join('.')}: ${issue.message}`));
    }
  }
  const image = scenario.endpoint === 'generate-image';
  scenario.model.replies.forEach((reply, index) => {
    const isImage = 'image' in reply;
    // The image endpoint may ask the chat model for alt text too, so a chat reply is allowed there; never the reverse.
    if (isImage && !image) problems.push(`model.replies.${index}: an image reply for the ${scenario.endpoint} endpoint`);
  });
  if (scenario.stream && scenario.endpoint !== 'generate') problems.push('stream: only the generate endpoint streams');
  const first = scenario.model.replies.map(replyText).find((text) => text !== undefined);
  if (endpoint.answer && input !== undefined && first !== undefined) {
    const checked = endpoint.answer(first, input);
    if (!checked.ok) problems.push(...checked.problems.map((problem) => `model.replies.0 fails the endpoint's answer check: ${problem}`));
  }
  const sentStandards = requestRefs(scenario.request, ['standards', 'standard']);
  for (const code of scenario.expect.standards ?? []) if (!sentStandards.includes(code)) problems.push(`expect.standards: ${code} is not a standard the request sends`);
  const sentSources = requestRefs(scenario.request, ['sources', 'selectedSources']);
  for (const id of scenario.expect.sources ?? []) if (!sentSources.includes(id)) problems.push(`expect.sources: ${id} is not a source the request sends`);
  if (scenario.expect.standardCodePattern !== undefined) {
    try {
      new RegExp(scenario.expect.standardCodePattern, 'g');
    } catch {
      problems.push('expect.standardCodePattern: not a regular expression');
    }
  }
  const band = scenario.expect.accessibility?.readingLevel;
  for (const path of band?.paths ?? []) if (!/^[A-Za-z0-9_*]+(?:\.[A-Za-z0-9_*]+)*$/.test(path)) problems.push(`expect.accessibility.readingLevel.paths: ${path} is not a dotted path`);
  const requestText = JSON.stringify(scenario.request).toLowerCase();
  for (const term of scenario.expect.forbiddenTerms ?? []) {
    // A term the request itself carries would be refused before any model call (learner_specific_content).
    if (requestText.includes(term.toLowerCase())) notes.push('a forbidden term also appears in the request');
  }
  return { problems, notes };
}

/** Validates every fixture of `dir` and the set as a whole. */
export function validateFixtures(dir: URL | string = SCENARIO_DIR): ValidationReport {
  const loaded = loadScenarioFiles(dir);
  const fixtures: FixtureReport[] = loaded.problems.map((p) => ({ file: p.file, scenario: undefined, problems: p.problems, notes: [] }));
  for (const scenario of loaded.scenarios) fixtures.push({ file: scenario.file, scenario: scenario.id, ...validateScenario(scenario) });
  const problems: string[] = [];
  for (const workflow of EVAL_WORKFLOWS) {
    const count = loaded.scenarios.filter((s) => s.workflow === workflow).length;
    if (count !== 1) problems.push(`workflow ${workflow}: ${count} scenarios, exactly one expected`);
  }
  const ids = loaded.scenarios.map((s) => s.id);
  for (const id of new Set(ids)) if (ids.filter((other) => other === id).length > 1) problems.push(`scenario id ${id} repeats`);
  fixtures.sort((a, b) => a.file.localeCompare(b.file));
  return { ok: problems.length === 0 && fixtures.every((f) => f.problems.length === 0), scenarios: loaded.scenarios, fixtures, problems };
}
