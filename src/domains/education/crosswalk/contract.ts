/**
 * The standards crosswalk's request and answer (docs/education.md, "Standards crosswalk"). The answer names items by
 * their identifiers and codes only: no statement text ever leaves the service, and every mapping is a proposal
 * for a person to review.
 */
import { z } from 'zod';
import { CasePackageSchema } from './case.ts';

/** Most candidates proposed for one source item. */
export const MAX_CANDIDATES_PER_ITEM = 5;
/** Candidates proposed for one source item unless the request says otherwise. */
export const DEFAULT_CANDIDATES_PER_ITEM = 3;
/** Lowest confidence a candidate is proposed with, unless the request says otherwise. */
export const DEFAULT_MIN_CONFIDENCE = 0.6;
/** The lowest `minConfidence` a request may ask for: below it, candidates are noise. */
export const FLOOR_MIN_CONFIDENCE = 0.3;

/** The crosswalk's request: two framework slices and how many candidates to propose. */
export const CrosswalkInputSchema = z.strictObject({
  source: CasePackageSchema.describe('The framework mapped from (CASE 1.1 CFPackage JSON)'),
  target: CasePackageSchema.describe('The framework mapped to (CASE 1.1 CFPackage JSON)'),
  maxCandidatesPerItem: z
    .number()
    .int()
    .min(1)
    .max(MAX_CANDIDATES_PER_ITEM)
    .optional()
    .describe(`Candidates per source item, 1 to ${MAX_CANDIDATES_PER_ITEM} (default ${DEFAULT_CANDIDATES_PER_ITEM})`),
  minConfidence: z
    .number()
    .min(FLOOR_MIN_CONFIDENCE)
    .max(1)
    .optional()
    .describe(`Lowest confidence proposed, ${FLOOR_MIN_CONFIDENCE} to 1 (default ${DEFAULT_MIN_CONFIDENCE})`),
});
/** See CrosswalkInputSchema. */
export type CrosswalkInput = z.output<typeof CrosswalkInputSchema>;

const ScoreSchema = z.number().min(0).max(1);

const DomainAnchorSchema = z
  .object({
    via: z.enum(['hierarchy', 'code']).describe('The nearest item of a domain-like CFItemType up its isChildOf hierarchy (itself included), or the domain segment of its code'),
    identifier: z.string().nullable().describe('That domain-like item, when via is hierarchy'),
    code: z.string().nullable().describe('The domain key compared: a code\u2019s domain segment (RP, NBT), or the domain item\u2019s normalized code'),
  })
  .nullable();

/** Every signal of one candidate, each with its own score (0 to 1). */
export const CrosswalkSignalsSchema = z.object({
  framework: z.object({
    sameItemIdentifier: z.boolean().describe('The same CASE item identifier is in both slices'),
    declared: z.string().nullable().describe('A CFAssociation of either slice that already relates the two items (its associationType)'),
  }),
  code: z.object({
    match: z.enum(['exact', 'suffix', 'partial', 'different', 'missing']),
    score: ScoreSchema,
    normalizedSource: z.string().nullable(),
    normalizedTarget: z.string().nullable(),
  }),
  statement: z.object({
    similarity: ScoreSchema.describe('Cosine of the two statements\u2019 term sets, each term weighted by its rarity in both slices'),
    sharedTerms: z.number().int().min(0).describe('How many terms the statements share (the terms are not returned)'),
  }),
  grades: z.object({ match: z.enum(['same', 'overlap', 'adjacent', 'disjoint', 'unknown']), score: ScoreSchema, source: z.array(z.string()), target: z.array(z.string()) }),
  subjects: z.object({ match: z.enum(['same', 'different', 'unknown']), score: ScoreSchema, source: z.array(z.string()), target: z.array(z.string()) }),
  domain: z.object({ match: z.enum(['same', 'similar', 'different', 'unknown']), score: ScoreSchema, source: DomainAnchorSchema, target: DomainAnchorSchema }),
});
/** See CrosswalkSignalsSchema. */
export type CrosswalkSignals = z.infer<typeof CrosswalkSignalsSchema>;

/** One proposed target item for a source item. */
export const CrosswalkCandidateSchema = z.object({
  targetIdentifier: z.string(),
  targetCode: z.string().nullable(),
  confidence: ScoreSchema,
  band: z.enum(['high', 'medium', 'low']),
  proposedAssociationType: z.enum(['exactMatchOf', 'isRelatedTo']).describe('The CASE association a reviewer would record if they accept it'),
  status: z.literal('proposed'),
  signals: CrosswalkSignalsSchema,
  rationale: z.array(z.string()).describe('Why, for the reviewer: one sentence per signal; never statement text'),
});
/** See CrosswalkCandidateSchema. */
export type CrosswalkCandidate = z.infer<typeof CrosswalkCandidateSchema>;

const DocumentSummarySchema = z.object({ identifier: z.string(), version: z.string().nullable(), items: z.number().int() });

/** The crosswalk's answer. */
export const CrosswalkResultSchema = z.object({
  status: z.literal('proposed'),
  review: z.object({ required: z.literal(true), note: z.string() }),
  method: z.object({
    version: z.string(),
    weights: z.object({ statement: z.number(), code: z.number(), grades: z.number(), subjects: z.number(), domain: z.number() }),
    bands: z.object({ high: z.number(), medium: z.number() }),
    minConfidence: z.number(),
    maxCandidatesPerItem: z.number().int(),
  }),
  frameworks: z.object({
    relation: z.enum(['same-document', 'same-creator', 'different']),
    source: DocumentSummarySchema,
    target: DocumentSummarySchema,
  }),
  mappings: z.array(z.object({ sourceIdentifier: z.string(), sourceCode: z.string().nullable(), candidates: z.array(CrosswalkCandidateSchema) })),
  unmapped: z.object({
    source: z.array(z.string()).describe('Source items with no candidate at or above minConfidence'),
    target: z.array(z.string()).describe('Target items proposed for no source item'),
  }),
  counts: z.object({ sourceItems: z.number().int(), targetItems: z.number().int(), mappedSourceItems: z.number().int(), candidates: z.number().int(), comparedPairs: z.number().int() }),
});
/** See CrosswalkResultSchema. */
export type CrosswalkResult = z.infer<typeof CrosswalkResultSchema>;
