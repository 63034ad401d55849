/**
 * Checks an assessment draft against the request, beyond its schema (docs/education.md): exactly the items asked,
 * numbered 1..n, of the types and DOK levels asked (each asked type and level used when the count allows), citing
 * only standards, targets and sources that were sent, with answer keys that fit their items. Then presents the data
 * with the coverage kgate computes from the items.
 */
import { invalid, parseModelObject, type Checked } from '../drafting/index.ts';
import {
  ASSESSMENT_ITEM_TYPES,
  AssessmentModelOutputSchema,
  type AssessmentDraftInput,
  type AssessmentDraftResult,
  type AssessmentItem,
} from './contract.ts';

const REVIEW =
  'A draft only: check each item, its alignment, its depth and its answer key before any learner sees it. Answer keys ' +
  'are for educators. Nothing here scores, grades or places a learner.';

function hasRepeats(values: readonly unknown[]): boolean {
  return new Set(values).size !== values.length;
}

/** Problems of an item's answer key against its own options, cards or pairs. */
function keyProblems(item: AssessmentItem, at: string): string[] {
  const problems: string[] = [];
  switch (item.type) {
    case 'multiple-choice':
    case 'multiple-select': {
      const labels = item.options.map((o) => o.label);
      const expected = ['A', 'B', 'C', 'D', 'E', 'F'].slice(0, labels.length);
      if (labels.join() !== expected.join()) problems.push(`${at}.options: labels must run A, B, C... in order`);
      const correct = item.type === 'multiple-choice' ? [item.answerKey.correct] : item.answerKey.correct;
      if (correct.some((label) => !labels.includes(label)) || hasRepeats(correct)) problems.push(`${at}.answerKey.correct: must name distinct options of the item`);
      if (item.type === 'multiple-select' && correct.length >= labels.length) problems.push(`${at}.answerKey.correct: cannot be every option`);
      break;
    }
    case 'sort': {
      const placed = item.answerKey.placements;
      if (placed.length !== item.cards.length || hasRepeats(placed.map((p) => p.card)) || placed.some((p) => p.card >= item.cards.length)) {
        problems.push(`${at}.answerKey.placements: must place every card exactly once`);
      }
      if (placed.some((p) => p.category >= item.categories.length)) problems.push(`${at}.answerKey.placements: names a category that does not exist`);
      break;
    }
    case 'match': {
      const pairs = item.answerKey.pairs;
      if (pairs.length !== item.prompts.length || hasRepeats(pairs.map((p) => p.prompt)) || pairs.some((p) => p.prompt >= item.prompts.length)) {
        problems.push(`${at}.answerKey.pairs: must pair every prompt exactly once`);
      }
      if (pairs.some((p) => p.response >= item.responses.length)) problems.push(`${at}.answerKey.pairs: names a response that does not exist`);
      break;
    }
    default:
      break;
  }
  return problems;
}

/** The model's text checked against the schema and the request: the endpoint's data, or the problems. */
export function checkAssessmentDraft(text: string, input: AssessmentDraftInput): Checked<AssessmentDraftResult> {
  const parsed = parseModelObject(text, AssessmentModelOutputSchema);
  if (!parsed.ok) return parsed;
  const { items } = parsed.value;
  const problems: string[] = [];
  if (items.length !== input.itemCount) problems.push(`items: ${items.length} items, ${input.itemCount} asked`);
  const standards = new Set(input.standards.map((s) => s.code));
  const targets = new Set(input.learningTargets.map((t) => t.id));
  const sources = new Set(input.sources.map((s) => s.id));
  const types = new Set<string>(input.itemTypes);
  const levels = new Set<number>(input.dokLevels);
  items.forEach((item, index) => {
    const at = `items.${index}`;
    if (item.number !== index + 1) problems.push(`${at}.number: items are numbered 1, 2, 3... in order`);
    if (!types.has(item.type)) problems.push(`${at}.type: ${item.type} was not asked`);
    if (!levels.has(item.dokLevel)) problems.push(`${at}.dokLevel: level ${item.dokLevel} was not asked`);
    for (const code of item.standards) if (!standards.has(code)) problems.push(`${at}.standards: cites a standard that was not sent`);
    for (const id of item.learningTargets) if (!targets.has(id)) problems.push(`${at}.learningTargets: cites a target that was not sent`);
    for (const id of item.sources) if (!sources.has(id)) problems.push(`${at}.sources: cites a source that was not sent`);
    problems.push(...keyProblems(item, at));
  });
  if (items.length >= input.itemTypes.length) {
    for (const type of input.itemTypes) if (!items.some((item) => item.type === type)) problems.push(`items: no item of the asked type ${type}`);
  }
  if (items.length >= input.dokLevels.length) {
    for (const level of input.dokLevels) if (!items.some((item) => item.dokLevel === level)) problems.push(`items: no item at the asked DOK level ${level}`);
  }
  if (problems.length > 0) return invalid(problems);
  return {
    ok: true,
    value: {
      status: 'proposed',
      draft: { title: parsed.value.title, directions: parsed.value.directions, items },
      coverage: {
        byType: ASSESSMENT_ITEM_TYPES.filter((type) => types.has(type)).map((type) => ({ type, items: items.filter((i) => i.type === type).length })),
        byDokLevel: [...input.dokLevels].sort((a, b) => a - b).map((level) => ({ level, items: items.filter((i) => i.dokLevel === level).length })),
        byStandard: input.standards.map((s) => ({ code: s.code, items: items.filter((i) => i.standards.includes(s.code)).length })),
      },
      accessibility: input.accessibility.requirements,
      cautions: parsed.value.cautions,
      review: REVIEW,
    },
  };
}
