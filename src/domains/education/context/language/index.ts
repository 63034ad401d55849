/** The learner-specific language detector: rules, their error codes, and the one function callers use. */
export { findLearnerSpecificLanguage } from './detect.ts';
export { LEARNER_LANGUAGE_RULES, LEARNER_LANGUAGE_RULE_CODES } from './rules.ts';
export type { LearnerLanguageRule } from './rules.ts';
