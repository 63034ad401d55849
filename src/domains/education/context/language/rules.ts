/**
 * The rules of the learner-specific language detector, in the order their findings are reported, and the error code
 * each one answers with. docs/education.md ("The education context packet") explains each rule with examples.
 */

/** Every rule, in reporting order. */
export const LEARNER_LANGUAGE_RULES = [
  'email_address',
  'phone_number',
  'identification_number',
  'date_of_birth',
  'named_learner',
  'gendered_pronoun',
  'individual_plan_or_diagnosis',
  'individual_result',
  'individual_circumstance',
  'learner_count_one_or_two',
  'small_group_count',
] as const;

/** One rule of the detector. */
export type LearnerLanguageRule = (typeof LEARNER_LANGUAGE_RULES)[number];

/** The stable error code a finding of each rule is refused with. */
export const LEARNER_LANGUAGE_RULE_CODES: Readonly<Record<LearnerLanguageRule, 'learner_specific_content' | 'group_too_small'>> = {
  email_address: 'learner_specific_content',
  phone_number: 'learner_specific_content',
  identification_number: 'learner_specific_content',
  date_of_birth: 'learner_specific_content',
  named_learner: 'learner_specific_content',
  gendered_pronoun: 'learner_specific_content',
  individual_plan_or_diagnosis: 'learner_specific_content',
  individual_result: 'learner_specific_content',
  individual_circumstance: 'learner_specific_content',
  learner_count_one_or_two: 'learner_specific_content',
  // A count of three or four learners written in text is a group below the minimum of five, like a learnerCount of 4.
  small_group_count: 'group_too_small',
};

/** Collects findings; reports each rule once, in LEARNER_LANGUAGE_RULES order. */
export class Findings {
  private readonly found = new Set<LearnerLanguageRule>();

  add(rule: LearnerLanguageRule): void {
    this.found.add(rule);
  }

  has(rule: LearnerLanguageRule): boolean {
    return this.found.has(rule);
  }

  list(): LearnerLanguageRule[] {
    return LEARNER_LANGUAGE_RULES.filter((rule) => this.found.has(rule));
  }
}
