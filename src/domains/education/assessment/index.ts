/** Assessment drafts (spec 4.7; docs/education.md): request, prompt, and the check of the model's answer. */
export {
  ACCESSIBILITY_REQUIREMENTS,
  ASSESSMENT_ITEM_TYPES,
  ASSESSMENT_LIMITS,
  AssessmentDraftInputSchema,
  AssessmentDraftResultSchema,
  AssessmentItemSchema,
  AssessmentModelOutputSchema,
  DOK_LEVELS,
} from './contract.ts';
export type { AssessmentDraftInput, AssessmentDraftResult, AssessmentItem, AssessmentItemType, AssessmentModelOutput } from './contract.ts';
export { assessmentDraftPrompt } from './prompt.ts';
export { checkAssessmentDraft } from './validate.ts';
