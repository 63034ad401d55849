/**
 * Artifact recommendations' request and answer (docs/education.md, "Artifact recommendations"). A candidate is
 * metadata only (the partner has already checked that the active user may see it): the service never receives the
 * artifact's content and answers stable ids with signals, never content or titles.
 */
import { z } from 'zod';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';

/** Most candidates one request may carry (spec 8). */
export const MAX_CANDIDATES = 250;
/** Most goal tags, standard codes or differentiation needs in one list. */
export const MAX_LIST = 50;
/** Most hashes in a candidate's content fingerprint. */
export const MAX_FINGERPRINT = 256;

const NoControl = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((value) => !hasControlCharacters(value), 'must not contain control characters');

/** A goal tag, a differentiation need or support, or a format: free words, normalized to lower-case-with-dashes. */
const TagSchema = NoControl(100);
const TagListSchema = z.array(TagSchema).max(MAX_LIST);
const StandardCodeSchema = NoControl(200).describe('A standard\u2019s human coding scheme, e.g. 6.RP.A.1 (normalized like CASE codes)');
const LanguageSchema = z
  .string()
  .regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/, 'must be a BCP 47 language tag such as en, es-MX')
  .max(35);

/** What the educator is looking for. */
export const RecommendGoalSchema = z.strictObject({
  goalTags: TagListSchema.default([]).describe('Learning goals or topics, e.g. "unit rates", "ratio reasoning"'),
  standardCodes: z.array(StandardCodeSchema).max(MAX_LIST).default([]).describe('Standards to teach'),
  courseId: NoControl(200).optional().describe('The course the artifact is for'),
  format: TagSchema.optional().describe('The format wanted, e.g. worksheet, slides, quiz'),
  language: LanguageSchema.optional().describe('The language the learners need'),
  differentiation: TagListSchema.default([]).describe('Supports the learners need, e.g. "reading-support", "extension"'),
});

/** One candidate artifact: metadata only. */
export const RecommendCandidateSchema = z.strictObject({
  id: NoControl(200).describe('The partner\u2019s stable id of the artifact; the answer names artifacts by it'),
  title: NoControl(300).describe('Compared only to flag near-duplicates; never returned'),
  goalTags: TagListSchema.default([]),
  standardCodes: z.array(StandardCodeSchema).max(MAX_LIST).default([]),
  courseId: NoControl(200).optional(),
  format: TagSchema,
  language: LanguageSchema,
  accepted: z.boolean().describe('An educator has accepted (reviewed and approved) this artifact'),
  updatedAt: z.iso.datetime({ offset: true }).describe('When the artifact last changed'),
  differentiation: TagListSchema.default([]).describe('Supports the artifact already offers'),
  fingerprint: z
    .array(z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hexadecimal digits'))
    .max(MAX_FINGERPRINT)
    .optional()
    .describe('The content\u2019s bottom-k shingle hashes, computed by the partner (docs/education.md); never the content'),
});

/** The request. */
export const RecommendInputSchema = z.strictObject({
  goal: RecommendGoalSchema,
  candidates: z.array(RecommendCandidateSchema).min(1).max(MAX_CANDIDATES).describe(`1 to ${MAX_CANDIDATES} artifacts the active user may already see`),
});
/** See RecommendInputSchema. */
export type RecommendInput = z.output<typeof RecommendInputSchema>;
/** See RecommendCandidateSchema. */
export type RecommendCandidate = z.output<typeof RecommendCandidateSchema>;
/** See RecommendGoalSchema. */
export type RecommendGoal = z.output<typeof RecommendGoalSchema>;

/** The kinds of work a recommendation names, in the order of how much they change the artifact. */
export const RecommendationSchema = z.enum(['adaptation', 'translation', 'format-conversion', 'differentiation', 'reuse']);
/** See RecommendationSchema. */
export type Recommendation = z.infer<typeof RecommendationSchema>;

const Share = z.number().min(0).max(1);
const factor = <T extends z.ZodRawShape>(extra: T) =>
  z.object({ applies: z.boolean(), weight: z.number(), score: Share, contribution: z.number().describe('weight x score over the weights that apply'), ...extra });

/** Why an artifact ranks where it does: one entry per ranking factor. */
export const RankingSignalsSchema = z.object({
  goal: factor({ matched: z.array(z.string()).describe('Goal tags of the request the artifact carries (normalized)') }),
  standard: factor({
    matched: z.array(z.string()).describe('Requested standards the artifact carries (normalized codes)'),
    related: z.array(z.string()).describe('Requested standards of which it carries a parent or child code'),
  }),
  course: factor({ matched: z.boolean() }),
  format: factor({ matched: z.boolean() }),
  accepted: factor({ accepted: z.boolean() }),
});

/** One ranked artifact. */
export const RankedArtifactSchema = z.object({
  rank: z.number().int().min(1),
  id: z.string(),
  score: Share,
  recommendation: RecommendationSchema,
  actions: z.array(RecommendationSchema).describe('Every kind of work that applies, the recommendation first'),
  reasons: z.array(z.string()).describe('Stable reason codes behind the actions and cautions'),
  cautions: z.array(z.string()).describe('not-accepted: review before use; near-duplicate: another artifact of its group is preferred'),
  signals: RankingSignalsSchema,
  language: z.object({ artifact: z.string(), target: z.string().nullable(), matches: z.boolean() }),
  differentiation: z.object({ needed: z.array(z.string()), offered: z.array(z.string()), unmet: z.array(z.string()) }),
  nearDuplicateGroup: z.string().nullable(),
});

/** A group of near-duplicate artifacts. */
export const NearDuplicateGroupSchema = z.object({
  group: z.string(),
  ids: z.array(z.string()),
  preferred: z.string().describe('Accepted first, then the higher score, then the most recent, then the smaller id'),
  pairs: z.array(
    z.object({
      a: z.string(),
      b: z.string(),
      reason: z.enum(['content-fingerprint', 'same-title-format-language']),
      similarity: Share.describe('Estimated Jaccard similarity of the two fingerprints (1 for the metadata reason)'),
    }),
  ),
});

/** The answer. */
export const RecommendResultSchema = z.object({
  method: z.object({
    version: z.string(),
    weights: z.object({ goal: z.number(), standard: z.number(), course: z.number(), format: z.number(), accepted: z.number() }),
    nearDuplicateSimilarity: z.number(),
  }),
  ranked: z.array(RankedArtifactSchema),
  nearDuplicates: z.array(NearDuplicateGroupSchema),
  counts: z.object({ candidates: z.number().int(), nearDuplicateGroups: z.number().int(), byRecommendation: z.record(RecommendationSchema, z.number().int()) }),
});
/** See RecommendResultSchema. */
export type RecommendResult = z.infer<typeof RecommendResultSchema>;
/** See RankedArtifactSchema. */
export type RankedArtifact = z.infer<typeof RankedArtifactSchema>;
/** See NearDuplicateGroupSchema. */
export type NearDuplicateGroup = z.infer<typeof NearDuplicateGroupSchema>;
