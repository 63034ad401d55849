/**
 * Teacher-review language: the answer is marked as a proposal or advice (`status: proposed` or `advisory`), says in
 * words that it is a draft for the teacher (educator) to review (naming the reviewer, or telling the reader to check
 * it before use), and claims no finality (a final version, approval,
 * "no review needed", ready to send as is).
 */
import { noAnswer, result, type Check } from './types.ts';
import { stringsOf } from './text.ts';

const MARKED = new Set(['proposed', 'advisory', 'draft']);
const DRAFT_WORDS = /\b(?:draft(?:ed|s)?|propos(?:al|als|ed)|advisory|advice|suggest(?:ed|ions?)?|review(?:ed|ing)?|check)\b/i;
const REVIEWER_WORDS = /\b(?:teachers?|educators?|you|your)\b/i;
/** An instruction to the reader to check the output before acting on it ("check it there before changing anything"). */
const REVIEW_INSTRUCTION = /\b(?:check|review|verify)\b[^.]{0,80}\bbefore\b/i;
/** Claims that the output is final or needs no person's review. */
export const FINALITY = [
  /\bfinal (?:version|decision|draft|grade|copy)\b/i,
  /\bapproved (?:for|by)\b/i,
  /\bno (?:further )?(?:teacher |human )?review (?:is )?(?:needed|required|necessary)\b/i,
  /\b(?:does not|doesn't|need not|needn't) (?:need|require) (?:to be )?review/i,
  /\bready to (?:send|publish|distribute|post|use) (?:as is|without (?:review|changes))\b/i,
  /\bsend (?:it |this )?(?:as is|without review)\b/i,
];

/** See the module comment. */
export const teacherReview: Check = (_scenario, _request, envelope, facts) => {
  const failed = noAnswer('teacher-review', envelope, facts);
  if (failed) return failed;
  const data = envelope.data as Record<string, unknown> | null;
  const status = data && typeof data === 'object' ? data.status : undefined;
  const texts = stringsOf(envelope.data);
  const statement = texts.find(({ text }) => DRAFT_WORDS.test(text) && (REVIEWER_WORDS.test(text) || REVIEW_INSTRUCTION.test(text)));
  const claims = texts.flatMap(({ path, text }) => FINALITY.filter((pattern) => pattern.test(text)).map((pattern) => ({ path, claim: pattern.exec(text)![0] })));
  const details = { status, statement: statement?.path, claims };
  if (typeof status !== 'string' || !MARKED.has(status)) return result('teacher-review', 'fail', `The data is not marked as a proposal or advice (status: ${String(status)}).`, details);
  if (!statement) return result('teacher-review', 'fail', 'No text says the output is a draft for the teacher to review.', details);
  if (claims.length > 0) return result('teacher-review', 'fail', `Claims finality: "${claims[0]!.claim}" at ${claims[0]!.path}.`, details);
  return result('teacher-review', 'pass', `Marked ${status}; ${statement.path} asks the teacher to review it.`, details);
};
