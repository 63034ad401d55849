/**
 * Quality review's request and answer (spec 4.7; docs/education.md, "Quality review"): one artifact revision, its
 * course and adopted standards, authorized sources, policy constraints, optional education context. The answer is
 * advice on eight dimensions; reading level is computed by kgate (reading-level.ts), the other seven come from the
 * model, validated, and every finding cites its place in the artifact.
 */
import { z } from 'zod';
import { EducationContextField } from '../context/index.ts';
import { CourseSchema, RefSchema, SourceSchema, StandardSchema, blockText, lineText, uniqueBy } from '../drafting/index.ts';

/** The bounds of a quality review (docs/education.md). */
export const QUALITY_LIMITS = {
  artifactTextLength: 20_000,
  maximumStandards: 10,
  maximumSources: 8,
  maximumPolicies: 10,
  policyLength: 400,
  maximumFindings: 25,
  excerptLength: 300,
  textLength: 600,
  /** A sentence longer than this many words is a reading-level finding of kgate's. */
  longSentenceWords: 25,
} as const;

/** The dimensions a review evaluates, in the order the answer lists them (spec 4.7). */
export const QUALITY_DIMENSIONS = [
  'alignment',
  'source-support',
  'citations',
  'reading-level',
  'accessibility',
  'bias-risk',
  'assessment-validity',
  'policy-conflicts',
] as const;
/** A dimension. */
export type QualityDimension = (typeof QUALITY_DIMENSIONS)[number];

/** The dimensions the model evaluates: all but reading level, which kgate computes. */
export const MODEL_DIMENSIONS = [
  'alignment',
  'source-support',
  'citations',
  'accessibility',
  'bias-risk',
  'assessment-validity',
  'policy-conflicts',
] as const satisfies readonly Exclude<QualityDimension, 'reading-level'>[];

/** How a dimension fares. */
export const QUALITY_RATINGS = ['strong', 'adequate', 'needs-attention', 'not-applicable'] as const;
/** How much a finding matters. */
export const QUALITY_SEVERITIES = ['info', 'consider', 'concern'] as const;

/** The kinds of artifact a review takes. */
export const ARTIFACT_KINDS = ['lesson-plan', 'worksheet', 'assessment', 'slides', 'reading', 'family-communication', 'other'] as const;

/** The quality review request. */
export const QualityReviewInputSchema = z
  .strictObject({
    artifact: z
      .strictObject({
        id: RefSchema.describe('The caller\u2019s id of the artifact'),
        revision: RefSchema.describe('The revision reviewed; the answer names it'),
        title: lineText(200),
        kind: z.enum(ARTIFACT_KINDS),
        text: blockText(QUALITY_LIMITS.artifactTextLength).describe('The revision\u2019s text (plain text or Markdown); findings cite offsets into it'),
      })
      .describe('One artifact revision'),
    course: CourseSchema,
    standards: z.array(StandardSchema).min(1).max(QUALITY_LIMITS.maximumStandards).describe('The adopted standards'),
    sources: z.array(SourceSchema).max(QUALITY_LIMITS.maximumSources).default([]).describe('Authorized sources'),
    policies: z
      .array(z.strictObject({ id: RefSchema, text: lineText(QUALITY_LIMITS.policyLength) }))
      .max(QUALITY_LIMITS.maximumPolicies)
      .default([])
      .describe('Policy constraints, each with an id findings cite'),
    context: EducationContextField,
  })
  .superRefine((input, ctx) => {
    for (const i of uniqueBy(input.standards, (s) => s.code)) ctx.addIssue({ code: 'custom', path: ['standards', i, 'code'], message: 'repeats a code' });
    for (const i of uniqueBy(input.sources, (s) => s.id)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'id'], message: 'repeats an id' });
    for (const i of uniqueBy(input.policies, (p) => p.id)) ctx.addIssue({ code: 'custom', path: ['policies', i, 'id'], message: 'repeats an id' });
  })
  .describe('Quality review request');

/** A validated quality review request. */
export type QualityReviewInput = z.output<typeof QualityReviewInputSchema>;

const Text = lineText(QUALITY_LIMITS.textLength);

/** The model's whole answer: one rating per model dimension, and findings each quoting the artifact. */
export const QualityModelOutputSchema = z.strictObject({
  dimensions: z
    .array(z.strictObject({ dimension: z.enum(MODEL_DIMENSIONS), rating: z.enum(QUALITY_RATINGS), summary: Text }))
    .length(MODEL_DIMENSIONS.length),
  findings: z
    .array(
      z.strictObject({
        dimension: z.enum(MODEL_DIMENSIONS),
        severity: z.enum(QUALITY_SEVERITIES),
        summary: Text,
        excerpt: z.string().min(4).max(QUALITY_LIMITS.excerptLength).describe('A verbatim quote of the artifact'),
        suggestion: Text.optional(),
        standards: z.array(RefSchema).max(QUALITY_LIMITS.maximumStandards).default([]),
        sources: z.array(RefSchema).max(QUALITY_LIMITS.maximumSources).default([]),
        policies: z.array(RefSchema).max(QUALITY_LIMITS.maximumPolicies).default([]),
      }),
    )
    .max(QUALITY_LIMITS.maximumFindings),
});

/** The model's answer, as validated. */
export type QualityModelOutput = z.output<typeof QualityModelOutputSchema>;

const LocationSchema = z.strictObject({
  start: z.int().describe('UTF-16 offset into artifact.text, inclusive'),
  end: z.int().describe('UTF-16 offset into artifact.text, exclusive'),
  excerpt: z.string().describe('The artifact\u2019s text there, at most 300 characters: the start of a longer place'),
});

/** kgate's reading-level measures, with how they compare to the course's grade band. */
export const ReadingLevelSchema = z.strictObject({
  method: z.literal('flesch-kincaid'),
  syllableCounter: z.literal('lingua-en-syllable'),
  sentences: z.int(),
  words: z.int(),
  syllables: z.int(),
  polysyllabicWords: z.int(),
  averageWordsPerSentence: z.number(),
  averageSyllablesPerWord: z.number(),
  fleschKincaidGrade: z.number().nullable(),
  fleschReadingEase: z.number().nullable(),
  longestSentences: z.array(z.strictObject({ start: z.int(), end: z.int(), words: z.int() })),
  expectedGrades: z.strictObject({ min: z.number(), max: z.number() }).nullable().describe('The course grade band as grades; null for adult'),
  comparison: z.enum(['below', 'within', 'above', 'unknown']),
});

/** The endpoint's data (`service.education-quality-review`). */
export const QualityReviewResultSchema = z.strictObject({
  status: z.literal('advisory').describe('Advice for the educator; it decides nothing'),
  artifact: z.strictObject({ id: z.string(), revision: z.string() }),
  dimensions: z.array(
    z.strictObject({
      dimension: z.enum(QUALITY_DIMENSIONS),
      rating: z.enum(QUALITY_RATINGS),
      summary: z.string(),
      by: z.enum(['model', 'kgate']).describe('kgate: computed deterministically; model: the model\u2019s advice, validated'),
    }),
  ),
  readingLevel: ReadingLevelSchema,
  findings: z.array(
    z.strictObject({
      dimension: z.enum(QUALITY_DIMENSIONS),
      severity: z.enum(QUALITY_SEVERITIES),
      summary: z.string(),
      suggestion: z.string().optional(),
      location: LocationSchema,
      standards: z.array(z.string()),
      sources: z.array(z.string()),
      policies: z.array(z.string()),
      by: z.enum(['model', 'kgate']),
    }),
  ),
  review: z.string(),
});

/** The endpoint's data. */
export type QualityReviewResult = z.output<typeof QualityReviewResultSchema>;
