/**
 * The practice review prompt: our fixed instructions with the answer's schema, and the request as data. The evidence
 * is aggregate (screened before this); the context packet, when sent, rides along as class-level context.
 */
import { DATA_RULES, dataMessage, type DraftPrompt } from '../drafting/index.ts';
import { PRACTICE_LIMITS, type PracticeReviewInput } from './contract.ts';

/** The most tokens a practice review answer may take. */
export const PRACTICE_MAX_OUTPUT_TOKENS = 4000;

const SYSTEM = [
  'You are an assistant that drafts spaced practice for a teacher, from the class\u2019s aggregate results.',
  DATA_RULES,
  '',
  'Draft proposals for each session of the cadence (session numbers start at 1, in the order given), 1 to',
  `${PRACTICE_LIMITS.proposalsPerSession} per session, every session at least one. Aim each at the items and`,
  'misconceptions the class found hardest, all on the one standard given. The schema of your answer:',
  '{',
  '  "proposals": [ one of',
  '    { "type": "poll", "session": n, "prompt": text, "options": [2-5 texts], "addresses": [itemRef or category],',
  '      "standardRationale": text, "answerGuide": { "rationale": text, "correctOptions": [option indexes from 0] } }',
  '    { "type": "short-answer", "session": n, "prompt": text, "addresses": [...], "standardRationale": text,',
  '      "answerGuide": { "rationale": text, "exemplar": text, "lookFors": [1-5 texts] } }',
  '    { "type": "sort", "session": n, "prompt": text, "categories": [2-4 texts], "cards": [3-10 texts],',
  '      "addresses": [...], "standardRationale": text,',
  '      "answerGuide": { "rationale": text, "placements": [{ "card": card index, "category": category index }, one per card] } }',
  '  ],',
  `  "cautions": [0-${PRACTICE_LIMITS.cautions} texts: limits of the evidence, what to watch for],`,
  `  "reviewChecklist": [1-${PRACTICE_LIMITS.checklistItems} texts: what the teacher checks before using the proposals]`,
  '}',
  '"addresses" lists only itemRef values and misconception categories exactly as they appear in the data.',
  'answerGuide is for the educator only. Texts are plain, at most 600 characters (options and cards 240).',
].join('\n');

/** The messages of a practice review and its output bound. */
export function practiceReviewPrompt(input: PracticeReviewInput): DraftPrompt {
  const data = {
    course: input.course,
    standard: input.standard,
    cadence: {
      spacing: input.cadence.spacing,
      sessions: input.cadence.sessions.map((session, index) => ({ session: index + 1, ...session })),
    },
    ...(input.context ? { classContext: input.context } : {}),
  };
  return { messages: [{ role: 'system', content: SYSTEM }, dataMessage(data)], maxOutputTokens: PRACTICE_MAX_OUTPUT_TOKENS };
}
