import {
  CrosswalkInputSchema,
  CrosswalkResultSchema,
  MAX_CANDIDATES,
  MAX_FRAMEWORK_ITEMS,
  RecommendInputSchema,
  RecommendResultSchema,
  crosswalkInSlices,
  recommendArtifacts,
} from '../../domains/education/index.ts';
import { SLICE_MS, Slices } from '../../kernel/slices.ts';
import { RUNTIME_CREDENTIALS, defineOperation, type AnyOperation } from './operation.ts';

/** Where the education endpoints live (spec 4.7). */
const EDUCATION_PATH = '/api/product/v1/intelligence/education';

/** What both deterministic analyses share: Product Runtime only, one metered operation, nothing stored. */
const ANALYSIS = {
  tags: ['runtime', 'education'],
  errors: ['invalid_request', 'payload_too_large'],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'none',
} as const;

/** recommendArtifacts: ranks candidate artifacts for a goal, with signals, near-duplicates and a recommendation each. */
const recommendEducationArtifacts = defineOperation({
  ...ANALYSIS,
  id: 'recommendEducationArtifacts',
  summary: 'Recommend artifacts',
  description:
    `Ranks 1 to ${MAX_CANDIDATES} candidate artifacts that the active user may already see against a goal (goal tags, ` +
    'standards, course, format, target language, differentiation needs), by goal tags, standards, course, format and ' +
    'accepted status, each factor with its weight and what matched; flags near-duplicates (content fingerprints the ' +
    'partner computes, or the same title, format and language) and recommends reuse, adaptation, translation, ' +
    'differentiation or format conversion for each, by documented rules. Candidates are metadata only: the service never ' +
    'receives or returns artifact content, and answers artifacts by their ids. Stores nothing. The same request, in any ' +
    'order, answers the same output byte for byte; ties go to the smaller id.',
  input: RecommendInputSchema,
  output: RecommendResultSchema,
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/artifacts/recommend`,
      operationId: 'recommendArtifacts',
      kind: 'service.education-artifact-recommendations',
      capability: 'education.artifacts.recommend',
      needs: 'intelligence.execute',
    },
  ],
  run(_ctx, input) {
    return Promise.resolve(recommendArtifacts(input));
  },
});

/** crosswalkStandards: proposes mappings between two framework slices (CASE 1.1 JSON), for people to review. */
const crosswalkStandards = defineOperation({
  ...ANALYSIS,
  id: 'crosswalkStandards',
  summary: 'Standards crosswalk',
  description:
    `Proposes mappings from each item of a source framework slice to items of a target slice, each slice CASE 1.1 ` +
    `CFPackage JSON of at most ${MAX_FRAMEWORK_ITEMS} CFItems, comparing framework identity, normalized codes, statement ` +
    'terms, grades, subjects and domains; each candidate has a confidence, its signals and a review rationale. The answer ' +
    'holds identifiers and codes only, never a submitted statement, and every mapping is a proposal a person must ' +
    'review: nothing is recorded. The same slices, in any order, answer the same output byte for byte.',
  // Comparing two slices of 2,000 items runs on the request thread: such calls take turns there, and each computes in
  // slices of SLICE_MS so that the light calls of others are served in between.
  cost: 'heavy',
  input: CrosswalkInputSchema,
  output: CrosswalkResultSchema,
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/standards/crosswalk`,
      operationId: 'crosswalkStandards',
      kind: 'service.education-standards-crosswalk',
      capability: 'education.standards.crosswalk',
      needs: 'intelligence.execute',
    },
  ],
  run(_ctx, input) {
    return crosswalkInSlices(input, new Slices(SLICE_MS));
  },
});

/** The deterministic education analyses (recommendations, crosswalk), served only by the Product Runtime. */
export const EDUCATION_ANALYSIS_OPERATIONS: readonly AnyOperation[] = [recommendEducationArtifacts, crosswalkStandards];
