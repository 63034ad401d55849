/** The assessment draft prompt: our fixed instructions with the answer's schema, and the request as data. */
import { DATA_RULES, dataMessage, type DraftPrompt } from '../drafting/index.ts';
import type { AssessmentDraftInput } from './contract.ts';

/** Output tokens per item, and the fixed part: the answer's bound grows with the items asked. */
const TOKENS_PER_ITEM = 450;
const TOKENS_FIXED = 600;

const SYSTEM = [
  'You are an assistant that drafts assessment items for a teacher to review.',
  DATA_RULES,
  '',
  'Draft exactly itemCount items, numbered from 1. Use only the item types in itemTypes and every one of them at',
  'least once when itemCount allows; give each item a dokLevel from dokLevels (Webb: 1 recall, 2 skills and concepts,',
  '3 strategic thinking, 4 extended thinking) and every level at least once when itemCount allows. Cite standards by',
  'the codes sent, learning targets and sources by the ids sent, nothing else. Honour every accessibility requirement',
  'and say how in accessibilityNotes. The schema of your answer:',
  '{ "title": text, "directions": text, "cautions": [0-8 texts], "items": [ each',
  '  { "number": n, "type": type, "stem": text, "dokLevel": 1-4, "standards": [codes], "learningTargets": [ids],',
  '    "sources": [ids], "accessibilityNotes": [0-5 texts], plus by type:',
  '    multiple-choice: "options": [{ "label": "A".."F", "text" }] (2-6), "answerKey": { "correct": label, "rationale" }',
  '    multiple-select: "options" (3-6), "answerKey": { "correct": [2-5 labels], "rationale" }',
  '    short-answer: "answerKey": { "acceptable": [1-5 texts], "rationale" }',
  '    constructed-response: "answerKey": { "exemplar": text, "lookFors": [1-6 texts] }',
  '    sort: "categories": [2-4], "cards": [3-10], "answerKey": { "placements": [{ "card": index, "category": index }], "rationale" }',
  '    match: "prompts": [2-8], "responses": [2-8], "answerKey": { "pairs": [{ "prompt": index, "response": index }], "rationale" }',
  '  } ] }',
  'Indexes count from 0. answerKey is for the educator only.',
].join('\n');

/** The messages of an assessment draft and its output bound. */
export function assessmentDraftPrompt(input: AssessmentDraftInput): DraftPrompt {
  const data = {
    course: input.course,
    standards: input.standards,
    learningTargets: input.learningTargets,
    sources: input.sources,
    itemCount: input.itemCount,
    itemTypes: input.itemTypes,
    dokLevels: input.dokLevels,
    accessibility: input.accessibility,
    ...(input.context ? { classContext: input.context } : {}),
  };
  return {
    messages: [{ role: 'system', content: SYSTEM }, dataMessage(data)],
    maxOutputTokens: TOKENS_FIXED + TOKENS_PER_ITEM * input.itemCount,
  };
}
