/**
 * Rubric drafts (docs/education.md, "Rubric drafts"): the request and answer, the check of a model's draft, the
 * prompt, versions in words, and the store of proposed, versioned rubrics per installation. Other modules import
 * this file only.
 */
export * from './contract.ts';
export { checkModelRubric, type RubricCheck } from './validate.ts';
export { RUBRIC_MAX_OUTPUT_TOKENS, inputTokenBound, rubricPrompt, type RubricPromptMessage } from './prompt.ts';
export { describeRubricChanges } from './diff.ts';
export {
  MAX_VERSIONS_READ,
  PAGE_INSTALLATIONS,
  PAGE_RUBRICS,
  PAGE_VERSIONS,
  createEducationRubricsService,
  type EducationRubricsService,
  type InstallationRubrics,
  type RubricAuthor,
  type RubricCall,
  type RubricWithVersions,
} from './service.ts';
