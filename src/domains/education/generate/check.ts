/**
 * The check of a finished draft against its request (docs/education.md, "Generation"). A draft that cites a source
 * that was not selected (`[source: id]` with another id), that is blank, too long, or that names or describes an
 * individual learner, is invalid as a whole: the operation answers `model_output_invalid` and returns none of it
 * (a partial draft with a citation silently dropped could still rest on what the teacher never selected).
 * Pure: the operation turns a refusal into the error.
 */
import { LEARNER_LANGUAGE_RULE_CODES, findLearnerSpecificLanguage } from '../context/index.ts';
import { invalid, type Checked } from '../drafting/index.ts';
import { GENERATE_LIMITS, GENERATE_REVIEW_NOTE, type GenerateInput, type GenerateResult } from './contract.ts';

/** A citation in prose: `[source: id]`, `[sources: a, b]` (the separators a model writes). */
const SOURCE_CITATION = /\[\s*sources?\s*:\s*([^\]\n]{1,400})\]/gi;

/** The ids a draft cites with `[source: ...]`, in the order they appear, each once. */
export function citedSourceIds(text: string): string[] {
  const ids = [...text.matchAll(SOURCE_CITATION)].flatMap((match) => match[1]!.split(/[,;]/).map((id) => id.trim()).filter((id) => id !== ''));
  return [...new Set(ids)];
}

// A code is named when it stands as a token of its own: not followed or preceded by what would continue a code.
function namesCode(text: string, code: string): boolean {
  let from = 0;
  for (;;) {
    const at = text.indexOf(code, from);
    if (at < 0) return false;
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + code.length] ?? '';
    if (!/[A-Za-z0-9]/.test(before) && !/[A-Za-z0-9]/.test(after) && !(after === '.' && /[A-Za-z0-9]/.test(text[at + code.length + 1] ?? ''))) return true;
    from = at + 1;
  }
}

/** The draft, checked against what was sent, as the endpoint's answer; or the problems that make it invalid. */
export function checkGeneratedText(text: string, input: GenerateInput): Checked<GenerateResult> {
  const problems: string[] = [];
  if (text.trim() === '') problems.push('the draft is empty');
  if (text.length > GENERATE_LIMITS.maximumTextLength) problems.push(`the draft is longer than ${GENERATE_LIMITS.maximumTextLength} characters`);
  const sent = new Set(input.sources.map((s) => s.id));
  const cited = citedSourceIds(text);
  // Named by position, never by the model's text (which could be anything).
  const unselected = cited.filter((id) => !sent.has(id));
  if (unselected.length > 0) problems.push(`the draft cites ${unselected.length} source(s) that were not selected`);
  const learner = findLearnerSpecificLanguage(text).filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'learner_specific_content');
  if (learner.length > 0) problems.push(`the draft has learner-specific language (${learner.join(', ')})`);
  if (problems.length > 0) return invalid(problems);
  return {
    ok: true,
    value: {
      status: 'proposed',
      intent: input.intent,
      locale: input.locale,
      format: 'markdown',
      text,
      citations: {
        standards: input.standards.map((s) => s.code).filter((code) => namesCode(text, code)),
        sources: input.sources.map((s) => s.id).filter((id) => cited.includes(id)),
      },
      review: GENERATE_REVIEW_NOTE,
    },
  };
}
