/**
 * Practice review receives no learner identity (spec 4.7). The schema has no field for one; this screen refuses what
 * free text could still carry, with the context packet's rules and codes (docs/education.md): learner-specific
 * language anywhere is `learner_specific_content`; a group below five learners, as a groupSize or written in text, is
 * `group_too_small`. It refuses; it never redacts. Details name fields and rules, never the text.
 */
import { KgateError } from '../../../kernel/errors.ts';
import { findLearnerSpecificLanguage, LEARNER_LANGUAGE_RULE_CODES, type ContextFinding } from '../context/index.ts';
import { PRACTICE_LIMITS, type PracticeReviewInput } from './contract.ts';

/** The request's free texts that describe the class's results, with their paths. */
function evidenceTexts(input: PracticeReviewInput): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  input.cadence.sessions.forEach((session, s) => {
    const at = `cadence.sessions.${s}`;
    texts.push([`${at}.label`, session.label]);
    session.items.forEach((item, i) => texts.push([`${at}.items.${i}.description`, item.description]));
    session.misconceptions.forEach((m, i) => texts.push([`${at}.misconceptions.${i}.category`, m.category]));
  });
  return texts;
}

/** Throws `learner_specific_content` or `group_too_small` (in that order) when the evidence is not aggregate. */
export function screenPracticeEvidence(input: PracticeReviewInput): void {
  const specific: ContextFinding[] = [];
  const small: ContextFinding[] = [];
  for (const [field, text] of evidenceTexts(input)) {
    const rules = findLearnerSpecificLanguage(text);
    const learner = rules.filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'learner_specific_content');
    const group = rules.filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'group_too_small');
    if (learner.length > 0) specific.push({ field, rules: learner });
    if (group.length > 0) small.push({ field, rules: group });
  }
  if (specific.length > 0) {
    throw new KgateError('learner_specific_content', 'Practice review takes aggregate class evidence only; describe results at class level.', {
      fields: specific,
    });
  }
  const minimum = PRACTICE_LIMITS.minimumGroupSize;
  input.cadence.sessions.forEach((session, s) => {
    if (session.groupSize < minimum) small.push({ field: `cadence.sessions.${s}.groupSize` });
  });
  if (small.length > 0) {
    throw new KgateError('group_too_small', `Every session's results must describe at least ${minimum} learners.`, { minimum, fields: small });
  }
}
