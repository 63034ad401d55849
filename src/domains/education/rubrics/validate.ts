import { ModelRubricSchema, sameText, type RubricContent, type RubricDraftInput } from './contract.ts';

/** The checked draft, or every reason it fails (for the model_output_invalid error; none of the draft is returned). */
export type RubricCheck = { ok: true; content: RubricContent } | { ok: false; problems: string[] };

/** Most problems reported for one answer: enough to see what went wrong, bounded. */
const MAX_PROBLEMS = 20;

/**
 * Checks the model's text against the request, strictly: one JSON object of ModelRubricSchema; exactly
 * `criterionCount` criteria with distinct names; whole-percent weights summing to exactly 100 (never normalized: a
 * draft whose weights do not add up is invalid, so what is stored is what the model said); for each criterion one
 * descriptor per level label, in the labels' order, none empty and no two alike (each level must describe different
 * observable evidence); alignment only to standards the request sent.
 */
export function checkModelRubric(text: string, input: RubricDraftInput): RubricCheck {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problems: ['the answer is not one JSON object'] };
  }
  const parsed = ModelRubricSchema.safeParse(json);
  if (!parsed.success) {
    return { ok: false, problems: parsed.error.issues.slice(0, MAX_PROBLEMS).map((issue) => `${issue.path.join('.') || 'answer'}: ${issue.message}`) };
  }
  const rubric = parsed.data;
  const problems: string[] = [];
  if (rubric.criteria.length !== input.criterionCount) problems.push(`criteria: ${rubric.criteria.length} given, ${input.criterionCount} asked for`);
  const total = rubric.criteria.reduce((sum, c) => sum + c.weight, 0);
  if (total !== 100) problems.push(`criteria: the weights sum to ${total}, not 100`);
  const names = new Set<string>();
  const sent = new Map(input.standards.map((s) => [sameText(s.code), s.code]));
  const labels = input.levelLabels.map(sameText);
  for (const [k, criterion] of rubric.criteria.entries()) {
    const at = `criteria.${k}`;
    if (names.has(sameText(criterion.name))) problems.push(`${at}.name: another criterion has the same name`);
    names.add(sameText(criterion.name));
    const levels = criterion.descriptors.map((d) => sameText(d.level));
    if (levels.length !== labels.length || levels.some((level, j) => level !== labels[j])) {
      problems.push(`${at}.descriptors: one descriptor per level label is needed, in the order ${input.levelLabels.join(', ')}`);
    }
    const texts = criterion.descriptors.map((d) => sameText(d.text));
    if (texts.some((t) => t === '')) problems.push(`${at}.descriptors: a descriptor is empty`);
    if (new Set(texts).size !== texts.length) problems.push(`${at}.descriptors: two levels have the same descriptor`);
    for (const code of criterion.standards) if (!sent.has(sameText(code))) problems.push(`${at}.standards: ${code} was not sent`);
    if (new Set(criterion.standards.map(sameText)).size !== criterion.standards.length) problems.push(`${at}.standards: a standard is named twice`);
  }
  if (problems.length > 0) return { ok: false, problems: problems.slice(0, MAX_PROBLEMS) };
  return {
    ok: true,
    content: {
      title: rubric.title,
      levelLabels: [...input.levelLabels],
      criteria: rubric.criteria.map((criterion) => ({
        name: criterion.name,
        weight: criterion.weight,
        // The request's own labels, so that the stored draft reads exactly as the teacher named the levels.
        descriptors: criterion.descriptors.map((d, j) => ({ level: input.levelLabels[j]!, text: d.text })),
        alignment: criterion.standards.map((code) => ({ code: sent.get(sameText(code))! })),
      })),
      accessibility: [...input.accessibility],
    },
  };
}
