/**
 * Rubric drafts (docs/education.md, "Rubric drafts"; spec 4.7 rubric-draft, spec 8: 2 to 6 level labels): what a
 * product sends, what the model must answer, and the draft the gateway returns and keeps as a proposed, versioned
 * rubric of the installation. Nothing here is ever applied to a learner.
 */
import { z } from 'zod';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';

/** Fewest and most level labels of a rubric (spec 8). */
export const MIN_LEVELS = 2;
/** See MIN_LEVELS. */
export const MAX_LEVELS = 6;
/** Most criteria one draft may ask for. */
export const MAX_CRITERIA = 12;
/** Most standards, learning targets, sources and accessibility requirements in one request. */
export const MAX_STANDARDS = 20;
/** See MAX_STANDARDS. */
export const MAX_TARGETS = 20;
/** See MAX_STANDARDS. */
export const MAX_SOURCES = 5;
/** See MAX_STANDARDS. */
export const MAX_ACCESSIBILITY = 10;
/** Longest descriptor the model may write for one level of one criterion. */
export const MAX_DESCRIPTOR_LENGTH = 600;
/** Most rubrics one page of the listing holds. */
export const MAX_RUBRIC_PAGE = 50;

const Text = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .refine((value) => !hasControlCharacters(value), 'must not contain control characters');

/** How labels and descriptors are compared for sameness: case, spacing and final punctuation do not count. */
export function sameText(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').replace(/[.!;:,\s]+$/, '').trim();
}

const distinct = (values: readonly string[]) => new Set(values.map(sameText)).size === values.length;

/** A standard the draft may align to: only these codes may appear in the answer's alignment. */
export const RubricStandardSchema = z.strictObject({
  code: Text(64).describe('The standard\u2019s code, e.g. W.7.1'),
  statement: Text(1000).describe('What the standard says'),
  framework: Text(200).optional().describe('The framework it belongs to'),
});

/** A reviewed source the teacher selected, as data the draft may draw on. */
export const RubricSourceSchema = z.strictObject({
  id: Text(128).describe('The product\u2019s id of the source'),
  title: Text(200),
  excerpt: Text(4000).describe('The part of the source the draft may use'),
});

/** The rubric-draft request. */
export const RubricDraftInputSchema = z.strictObject({
  rubricId: z.uuid().optional().describe('Draft a new version of this rubric of the installation; its latest version is the starting point'),
  course: z.strictObject({
    name: Text(200),
    subject: Text(100).optional(),
    gradeBand: Text(50).optional(),
    description: Text(2000).optional(),
  }),
  task: Text(2000).optional().describe('The task or performance the rubric assesses'),
  standards: z
    .array(RubricStandardSchema)
    .min(1)
    .max(MAX_STANDARDS)
    .refine((list) => distinct(list.map((s) => s.code)), 'standard codes must be distinct'),
  learningTargets: z.array(Text(500)).min(1).max(MAX_TARGETS),
  sources: z.array(RubricSourceSchema).max(MAX_SOURCES).default([]),
  criterionCount: z.int().min(1).max(MAX_CRITERIA),
  levelLabels: z
    .array(Text(40))
    .min(MIN_LEVELS)
    .max(MAX_LEVELS)
    .refine(distinct, 'level labels must be distinct')
    .describe('2 to 6 level labels, ordered as the rubric shows them (e.g. highest first)'),
  accessibility: z.array(Text(300)).max(MAX_ACCESSIBILITY).default([]).describe('Accessibility requirements the descriptors must respect'),
});
/** A validated rubric-draft request. */
export type RubricDraftInput = z.output<typeof RubricDraftInputSchema>;

/** What the model must answer: one JSON object of this shape, nothing more (checked strictly). */
export const ModelRubricSchema = z.strictObject({
  title: Text(200),
  criteria: z
    .array(
      z.strictObject({
        name: Text(120),
        weight: z.int().min(1).max(100),
        standards: z.array(Text(64)).min(1).max(MAX_STANDARDS),
        descriptors: z.array(z.strictObject({ level: Text(40), text: Text(MAX_DESCRIPTOR_LENGTH) })).min(MIN_LEVELS).max(MAX_LEVELS),
      }),
    )
    .min(1)
    .max(MAX_CRITERIA),
});
/** The model's answer, shaped but not yet checked against the request. */
export type ModelRubric = z.output<typeof ModelRubricSchema>;

/** One criterion of a draft: its weight (whole percent), its descriptor per level label, and its standards. */
export const RubricCriterionSchema = z.object({
  name: z.string(),
  weight: z.int().describe('Whole percent; the weights of a draft sum to exactly 100'),
  descriptors: z.array(z.object({ level: z.string(), text: z.string() })).describe('One observable descriptor per level label, in the labels\u2019 order'),
  alignment: z.array(z.object({ code: z.string() })).describe('Standards of the request this criterion assesses'),
});
/** See RubricCriterionSchema. */
export type RubricCriterion = z.output<typeof RubricCriterionSchema>;

/** What a stored version holds (its content), without its identity. */
export const RubricContentSchema = z.object({
  title: z.string(),
  levelLabels: z.array(z.string()),
  criteria: z.array(RubricCriterionSchema),
  accessibility: z.array(z.string()),
});
/** See RubricContentSchema. */
export type RubricContent = z.output<typeof RubricContentSchema>;

/** The answer's data (kind service.education-rubric-draft): the stored version, a proposal for a person to review. */
export const RubricDraftSchema = RubricContentSchema.extend({
  rubricId: z.uuid(),
  version: z.int().min(1),
  basedOnVersion: z.int().min(1).nullable(),
  status: z.literal('proposed'),
  review: z.string().describe('A note for the teacher: this is a proposal, never applied to a learner'),
});
/** See RubricDraftSchema. */
export type RubricDraft = z.output<typeof RubricDraftSchema>;

/** A person's mark on a version: none yet, reviewed or dismissed. */
export type RubricReviewMark = 'reviewed' | 'dismissed';

/** One stored version, as reads and the page show it. */
export const RubricVersionSchema = z.object({
  version: z.int(),
  basedOnVersion: z.int().nullable(),
  status: z.literal('proposed'),
  review: z.enum(['reviewed', 'dismissed']).nullable(),
  reviewedAt: z.string().nullable(),
  createdAt: z.string(),
  createdBy: z.object({ principalId: z.string(), name: z.string() }),
  requestId: z.string(),
  ledgerId: z.string(),
  content: RubricContentSchema,
});
/** See RubricVersionSchema. */
export type RubricVersion = z.output<typeof RubricVersionSchema>;

/** A rubric in a listing. */
export const RubricSummarySchema = z.object({
  rubricId: z.string(),
  title: z.string(),
  latestVersion: z.int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
/** See RubricSummarySchema. */
export type RubricSummary = z.output<typeof RubricSummarySchema>;
