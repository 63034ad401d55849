/**
 * The packet's rules beyond its structure (spec 7.10, 8): learner-specific language in any free text is
 * `learner_specific_content`; a group of fewer than five learners, as a count or written in text, is
 * `group_too_small`. The service refuses; it never redacts and passes on the rest (docs/education.md).
 */
import { KgateError } from '../../../kernel/errors.ts';
import { EDUCATION_CONTEXT_LIMITS, type EducationContext } from './contract.ts';
import { findLearnerSpecificLanguage, LEARNER_LANGUAGE_RULE_CODES, type LearnerLanguageRule } from './language/index.ts';

/** Where in the packet a rule was broken: a field path inside the packet (`supports.2.note`) and the rules. */
export interface ContextFinding {
  field: string;
  rules?: LearnerLanguageRule[];
}

/** The packet's free-text fields with their paths, in the packet's order. */
function freeTexts(packet: EducationContext): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  if (packet.subject !== undefined) texts.push(['subject', packet.subject]);
  packet.supports?.forEach((support, index) => {
    if (support.label !== undefined) texts.push([`supports.${index}.label`, support.label]);
    if (support.note !== undefined) texts.push([`supports.${index}.note`, support.note]);
  });
  if (packet.notes !== undefined) texts.push(['notes', packet.notes]);
  return texts;
}

/**
 * Throws `learner_specific_content` when any free text of the packet reads as a learner's record, else
 * `group_too_small` when a count (the class's or a support's) or a count written in text is below five. The details
 * name the fields and rules, never the text itself.
 */
export function screenEducationContext(packet: EducationContext): void {
  const learnerSpecific: ContextFinding[] = [];
  const tooSmall: ContextFinding[] = [];
  for (const [field, text] of freeTexts(packet)) {
    const rules = findLearnerSpecificLanguage(text);
    const specific = rules.filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'learner_specific_content');
    const small = rules.filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'group_too_small');
    if (specific.length > 0) learnerSpecific.push({ field, rules: specific });
    if (small.length > 0) tooSmall.push({ field, rules: small });
  }
  if (learnerSpecific.length > 0) {
    throw new KgateError(
      'learner_specific_content',
      'The education context holds learner-specific language; describe groups of learners at class level instead.',
      { fields: learnerSpecific },
    );
  }
  const minimum = EDUCATION_CONTEXT_LIMITS.minimumGroupSize;
  if (packet.learnerCount !== undefined && packet.learnerCount < minimum) tooSmall.unshift({ field: 'learnerCount' });
  packet.supports?.forEach((support, index) => {
    if (support.learnerCount < minimum) tooSmall.push({ field: `supports.${index}.learnerCount` });
  });
  if (tooSmall.length > 0) {
    throw new KgateError('group_too_small', `Every group in the education context must hold at least ${minimum} learners.`, {
      minimum,
      fields: tooSmall,
    });
  }
}
