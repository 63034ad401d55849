/**
 * The practice review request as the operation takes it: the structure (invalid_request with every issue), then,
 * once that is valid, the aggregate-only screen, which throws its own codes out of the parse (as the context
 * packet's schema does: the invocation pipeline keeps a thrown KgateError's code).
 */
import { PracticeReviewInputSchema } from './contract.ts';
import { screenPracticeEvidence } from './screen.ts';

/** The request schema with the screen: learner_specific_content and group_too_small are refused before anything runs. */
export const PracticeReviewRequestSchema = PracticeReviewInputSchema.refine(
  (input) => {
    screenPracticeEvidence(input);
    return true;
  },
  { when: (payload) => payload.issues.length === 0 },
);
