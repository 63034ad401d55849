/**
 * The education context packet (`partner.education-context`, version 1; docs/education.md): its schema for operation
 * inputs, the parser, the limits, and the learner-specific language detector.
 */
export {
  EDUCATION_CONTEXT_KIND,
  EDUCATION_CONTEXT_LIMITS,
  EDUCATION_CONTEXT_VERSION,
  EducationContextShape,
  EducationSupportSchema,
  GRADE_BANDS,
  SUPPORT_CATEGORIES,
} from './contract.ts';
export type { EducationContext, EducationSupport, GradeBand, SupportCategory } from './contract.ts';
export { EDUCATION_CONTEXT_ERRORS, EducationContextField, EducationContextSchema, parseEducationContext } from './schema.ts';
export { screenEducationContext } from './screen.ts';
export type { ContextFinding } from './screen.ts';
export { LEARNER_LANGUAGE_RULES, LEARNER_LANGUAGE_RULE_CODES, findLearnerSpecificLanguage } from './language/index.ts';
export type { LearnerLanguageRule } from './language/index.ts';
