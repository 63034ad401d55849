/** Practice review (spec 4.7; docs/education.md): request, prompt, and the check of the model's answer. */
export {
  PRACTICE_LIMITS,
  PRACTICE_PROPOSAL_TYPES,
  PRACTICE_SPACINGS,
  PracticeModelOutputSchema,
  PracticeReviewInputSchema,
  PracticeReviewResultSchema,
} from './contract.ts';
export type { PracticeModelOutput, PracticeProposal, PracticeReviewInput, PracticeReviewResult } from './contract.ts';
export { PracticeReviewRequestSchema } from './request.ts';
export { screenPracticeEvidence } from './screen.ts';
export { PRACTICE_MAX_OUTPUT_TOKENS, practiceReviewPrompt } from './prompt.ts';
export { checkPracticeReview } from './validate.ts';
