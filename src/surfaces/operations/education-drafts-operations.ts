import type { z } from 'zod';
import {
  AssessmentDraftInputSchema,
  AssessmentDraftResultSchema,
  ASSESSMENT_LIMITS,
  assessmentDraftPrompt,
  checkAssessmentDraft,
} from '../../domains/education/assessment/index.ts';
import { EDUCATION_CONTEXT_ERRORS } from '../../domains/education/context/index.ts';
import { inputTokenBound, type Checked, type DraftPrompt } from '../../domains/education/drafting/index.ts';
import {
  PRACTICE_LIMITS,
  PracticeReviewRequestSchema,
  PracticeReviewResultSchema,
  checkPracticeReview,
  practiceReviewPrompt,
} from '../../domains/education/practice/index.ts';
import {
  QUALITY_LIMITS,
  QualityReviewInputSchema,
  QualityReviewResultSchema,
  checkQualityReview,
  qualityReviewPrompt,
} from '../../domains/education/quality/index.ts';
import { ModelError, type MeteredKind } from '../../domains/models/index.ts';
import { EDUCATION_PATH, METERED_EDUCATION_OPERATION, METERED_ERRORS, meteredCallOf, meteredRequestOf } from './metered-calls.ts';
import { defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

/** What the three drafting operations share: Product Runtime only, one counted operation, metered, keyed. */
const DRAFTS = {
  ...METERED_EDUCATION_OPERATION,
  errors: [...EDUCATION_CONTEXT_ERRORS, ...METERED_ERRORS],
} as const;

/** One metered draft: which operation, its metered kind and capability, its prompt and the check of the answer. */
interface DraftRun<I, T extends Record<string, unknown>> {
  operationId: string;
  kind: MeteredKind;
  capability: string;
  prompt: (input: I) => DraftPrompt;
  check: (text: string, input: I) => Checked<T>;
}

/**
 * Runs a draft through the metered runner (docs/budgets.md): the model is asked once for one JSON object, its answer
 * is checked strictly against the request inside the metered work, and an answer that fails is `model_output_invalid`
 * with the usage it cost (a billable failure: the model did the work), nothing of it returned. A retry of the key
 * replays the stored data without a second model call. Receipts go to the envelope through `ctx.runtime.receipts`.
 */
async function runDraft<I, T extends Record<string, unknown>>(ctx: OperationContext, input: I, run: DraftRun<I, T>): Promise<T> {
  const metered = meteredCallOf(ctx, run.capability);
  const prompt = run.prompt(input);
  const result = await metered.models.runMetered<T>({
    ...meteredRequestOf(metered, run.operationId, input),
    kind: run.kind,
    bound: { inputTokens: inputTokenBound(prompt.messages), outputTokens: prompt.maxOutputTokens, images: 0 },
    async work(meter) {
      const completion = await meter.model.chat({
        messages: prompt.messages,
        maxOutputTokens: prompt.maxOutputTokens,
        json: true,
        temperature: 0.2,
        signal: meter.signal,
      });
      const checked = run.check(completion.text, input);
      if (!checked.ok) {
        throw new ModelError('model_output_invalid', 'The model\u2019s answer failed its checks; none of it is returned.', 'yes', completion.usage, {
          problems: checked.problems,
        });
      }
      return checked.value;
    },
  });
  return result.data;
}

type PracticeInput = z.output<typeof PracticeReviewRequestSchema>;
type AssessmentInput = z.output<typeof AssessmentDraftInputSchema>;
type QualityInput = z.output<typeof QualityReviewInputSchema>;

/** reviewEducationPractice: spaced-practice proposals from two to five sessions of the class's aggregate results. */
const reviewEducationPractice = defineOperation({
  ...DRAFTS,
  id: 'reviewEducationPractice',
  summary: 'Practice review',
  description:
    `Proposes practice for ${PRACTICE_LIMITS.minimumSessions} to ${PRACTICE_LIMITS.maximumSessions} review sessions of one ` +
    'course and one authorized standard: polls, short-answer prompts and sorts, each with an educator-only answer guide ' +
    'and a standards rationale, plus cautions and a review checklist, all `status: proposed`. Evidence is aggregate only ' +
    `and teacher-confirmed: per session the group size (at least ${PRACTICE_LIMITS.minimumGroupSize}) and counts or rates ` +
    'of right and wrong answers per item and misconception category. No learner identity is received: there is no field ' +
    'for one, and free text that names or describes a learner is refused (learner_specific_content). Metered ' +
    '(education-practice-review): needs an Idempotency-Key; a retry replays the stored answer without a second model call.',
  input: PracticeReviewRequestSchema,
  output: PracticeReviewResultSchema,
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/practice-review`,
      operationId: 'reviewPractice',
      kind: 'service.education-practice-review',
      capability: 'education.practice-review',
      needs: 'intelligence.execute',
    },
  ],
  run(ctx, input) {
    return runDraft<PracticeInput, z.output<typeof PracticeReviewResultSchema>>(ctx, input, {
      operationId: 'reviewEducationPractice',
      kind: 'education-practice-review',
      capability: 'education.practice-review',
      prompt: practiceReviewPrompt,
      check: checkPracticeReview,
    });
  },
});

/** draftEducationAssessment: a structured assessment draft, kept as proposed. */
const draftEducationAssessment = defineOperation({
  ...DRAFTS,
  id: 'draftEducationAssessment',
  summary: 'Assessment draft',
  description:
    `Drafts 1 to ${ASSESSMENT_LIMITS.maximumItems} assessment items of the asked types (multiple-choice, multiple-select, ` +
    'short-answer, constructed-response, sort, match) at the asked depth-of-knowledge levels (1 to 4), aligned to the ' +
    'authorized standards and reviewed learning targets sent, relying only on the reviewed sources sent, honouring the ' +
    'accessibility requirements. Each item has its stem, options where its type has them, an answer key for the ' +
    'educator, its DOK level, standards, targets, sources and accessibility notes; the coverage by type, level and ' +
    'standard is computed from the items. The model\u2019s answer is checked strictly (item count, types, levels, every ' +
    'citation one that was sent, keys that fit their items): an answer that fails is model_output_invalid, nothing of it ' +
    'returned. Kept as proposed. Metered (education-assessment-draft): needs an Idempotency-Key.',
  input: AssessmentDraftInputSchema,
  output: AssessmentDraftResultSchema,
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/assessment-draft`,
      operationId: 'draftAssessment',
      kind: 'service.education-assessment-draft',
      capability: 'education.assessment-draft',
      needs: 'intelligence.execute',
    },
  ],
  run(ctx, input) {
    return runDraft<AssessmentInput, z.output<typeof AssessmentDraftResultSchema>>(ctx, input, {
      operationId: 'draftEducationAssessment',
      kind: 'education-assessment-draft',
      capability: 'education.assessment-draft',
      prompt: assessmentDraftPrompt,
      check: checkAssessmentDraft,
    });
  },
});

/** reviewEducationQuality: advice on one artifact revision, with kgate's own reading level. */
const reviewEducationQuality = defineOperation({
  ...DRAFTS,
  id: 'reviewEducationQuality',
  summary: 'Quality review',
  description:
    `Reviews one artifact revision (text of at most ${QUALITY_LIMITS.artifactTextLength} characters) against its course, ` +
    'adopted standards, authorized sources and policy constraints: alignment, source support, citations, reading level, ' +
    'accessibility, bias risk, assessment validity and policy conflicts, each rated, with findings that cite their place ' +
    'in the artifact (offsets and a bounded excerpt). Reading level is computed by kgate, not the model (Flesch-Kincaid ' +
    'grade and reading ease, sentence, word and syllable counts), so the same text answers the same reading level. ' +
    'Advisory (`status: advisory`). Metered (education-quality-review): needs an Idempotency-Key.',
  input: QualityReviewInputSchema,
  output: QualityReviewResultSchema,
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/quality-review`,
      operationId: 'reviewQuality',
      kind: 'service.education-quality-review',
      capability: 'education.quality-review',
      needs: 'intelligence.execute',
    },
  ],
  run(ctx, input) {
    return runDraft<QualityInput, z.output<typeof QualityReviewResultSchema>>(ctx, input, {
      operationId: 'reviewEducationQuality',
      kind: 'education-quality-review',
      capability: 'education.quality-review',
      prompt: qualityReviewPrompt,
      check: checkQualityReview,
    });
  },
});

/** The metered drafting operations (practice review, assessment draft, quality review), Product Runtime only. */
export const EDUCATION_DRAFT_OPERATIONS: readonly AnyOperation[] = [reviewEducationPractice, draftEducationAssessment, reviewEducationQuality];
