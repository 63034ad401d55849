/** The suite's checks, in report order, and the function that runs them all over one answer. */
import { accessibility } from './accessibility.ts';
import { consequentialDecisions } from './decisions.ts';
import { latency } from './latency.ts';
import { privacy } from './privacy.ts';
import { sourceVisibility } from './sources.ts';
import { standardsVisibility } from './standards.ts';
import { teacherReview } from './teacher-review.ts';
import type { Check, CheckId, CheckResult, EvalEnvelope, EvalFacts } from './types.ts';
import { checksForUnderstanding } from './understanding.ts';
import { usageReceipt } from './usage-receipt.ts';
import type { Scenario } from '../scenario.ts';

export * from './types.ts';
export { accessibility, checksForUnderstanding, consequentialDecisions, latency, privacy, sourceVisibility, standardsVisibility, teacherReview, usageReceipt };

/** Every check by id, in CHECK_IDS order. */
export const CHECKS: Readonly<Record<CheckId, Check>> = {
  'standards-visibility': standardsVisibility,
  'source-visibility': sourceVisibility,
  'teacher-review': teacherReview,
  'checks-for-understanding': checksForUnderstanding,
  accessibility,
  'consequential-decisions': consequentialDecisions,
  privacy,
  latency,
  'usage-receipt': usageReceipt,
};

/** Runs every check over one answer. */
export function runChecks(scenario: Scenario, request: Record<string, unknown>, envelope: EvalEnvelope, facts: EvalFacts): CheckResult[] {
  return Object.values(CHECKS).map((check) => check(scenario, request, envelope, facts));
}
