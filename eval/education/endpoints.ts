/**
 * The education endpoints the suite calls (spec 4.7): path, metered kind, the envelope's data kind, and the request
 * schema of the domain module where it exists, so that the offline validation proves each fixture's body is one the
 * endpoint takes. An endpoint whose module has not landed validates against nothing and says so.
 */
import type { z } from 'zod';
import { AssessmentDraftInputSchema, checkAssessmentDraft, type AssessmentDraftInput } from '../../src/domains/education/assessment/index.ts';
import { GenerateInputSchema, checkGeneratedText, type GenerateInput } from '../../src/domains/education/generate/index.ts';
import { ImageInputSchema, checkImagePlan, type ImageInput } from '../../src/domains/education/image/index.ts';
import { GuidanceInputSchema } from '../../src/domains/education/guidance/index.ts';
import { PracticeReviewRequestSchema, checkPracticeReview, type PracticeReviewInput } from '../../src/domains/education/practice/index.ts';
import { QualityReviewInputSchema, checkQualityReview, type QualityReviewInput } from '../../src/domains/education/quality/index.ts';
import { RubricDraftInputSchema } from '../../src/domains/education/rubrics/index.ts';
import type { MeteredKind } from '../../src/domains/models/index.ts';
import type { EvalEndpointName } from './scenario.ts';

/** Where the education endpoints live. */
export const EDUCATION_BASE = '/api/product/v1/intelligence/education';

/** One endpoint as the suite knows it. */
export interface EvalEndpoint {
  path: string;
  meteredKind: MeteredKind;
  /** The envelope's `kind` on success; undefined where the suite does not pin it. */
  dataKind: string | undefined;
  /** The request schema, or undefined while the endpoint's module has not landed. */
  input: z.ZodType | undefined;
  /**
   * The endpoint's own check of the first (chat) model answer against the validated request: the offline validation
   * proves each canned answer is one the endpoint accepts (else the run would only see model_output_invalid). For
   * the drafts its value is the envelope's data, which the checks' tests read without a gateway; for an image, the plan.
   */
  answer?: (text: string, input: unknown) => { ok: true; value: unknown } | { ok: false; problems: string[] };
}

/** Every endpoint a scenario may name. */
export const EVAL_ENDPOINTS: Readonly<Record<EvalEndpointName, EvalEndpoint>> = {
  generate: {
    path: `${EDUCATION_BASE}/generate`,
    meteredKind: 'education-generate',
    dataKind: 'service.education-generation',
    input: GenerateInputSchema,
    answer: (text, input) => checkGeneratedText(text, input as GenerateInput),
  },
  'generate-image': {
    path: `${EDUCATION_BASE}/generate-image`,
    meteredKind: 'education-generate-image',
    dataKind: undefined,
    input: ImageInputSchema,
    answer: (text, input) => checkImagePlan(text, input as ImageInput),
  },
  'student-guidance': { path: `${EDUCATION_BASE}/student-guidance`, meteredKind: 'education-student-guidance', dataKind: undefined, input: GuidanceInputSchema },
  'practice-review': {
    path: `${EDUCATION_BASE}/practice-review`,
    meteredKind: 'education-practice-review',
    dataKind: 'service.education-practice-review',
    input: PracticeReviewRequestSchema,
    answer: (text, input) => checkPracticeReview(text, input as PracticeReviewInput),
  },
  'assessment-draft': {
    path: `${EDUCATION_BASE}/assessment-draft`,
    meteredKind: 'education-assessment-draft',
    dataKind: 'service.education-assessment-draft',
    input: AssessmentDraftInputSchema,
    answer: (text, input) => checkAssessmentDraft(text, input as AssessmentDraftInput),
  },
  'quality-review': {
    path: `${EDUCATION_BASE}/quality-review`,
    meteredKind: 'education-quality-review',
    dataKind: 'service.education-quality-review',
    input: QualityReviewInputSchema,
    answer: (text, input) => checkQualityReview(text, input as QualityReviewInput),
  },
  'rubric-draft': {
    path: `${EDUCATION_BASE}/rubric-draft`,
    meteredKind: 'education-rubric-draft',
    dataKind: 'service.education-rubric-draft',
    input: RubricDraftInputSchema,
  },
};
