/**
 * Assessment drafting's request and answer (spec 4.7; docs/education.md, "Assessment drafts"): course context,
 * authorized standards and reviewed learning targets, optional reviewed sources, how many items of which types at
 * which depth-of-knowledge levels, and accessibility requirements. The answer is a structured draft kept as proposed.
 */
import { z } from 'zod';
import { EducationContextField } from '../context/index.ts';
import { CourseSchema, RefSchema, SourceSchema, StandardSchema, blockText, lineText, uniqueBy } from '../drafting/index.ts';

/** The bounds of an assessment draft (docs/education.md). */
export const ASSESSMENT_LIMITS = {
  maximumItems: 20,
  maximumStandards: 10,
  maximumTargets: 20,
  maximumSources: 5,
  targetLength: 400,
  notesLength: 1000,
  stemLength: 1200,
  optionLength: 300,
  keyTextLength: 1200,
  accessibilityNotes: 5,
} as const;

/** Item types a draft may hold. */
export const ASSESSMENT_ITEM_TYPES = ['multiple-choice', 'multiple-select', 'short-answer', 'constructed-response', 'sort', 'match'] as const;
/** An item type. */
export type AssessmentItemType = (typeof ASSESSMENT_ITEM_TYPES)[number];

/** Webb's depth-of-knowledge levels: 1 recall, 2 skills and concepts, 3 strategic thinking, 4 extended thinking. */
export const DOK_LEVELS = [1, 2, 3, 4] as const;

/** Accessibility requirements a draft must honour. */
export const ACCESSIBILITY_REQUIREMENTS = [
  'plain-language',
  'screen-reader-friendly',
  'read-aloud-compatible',
  'large-print',
  'no-timed-items',
  'described-visuals',
  'reduced-answer-choices',
  'multilingual-glossary',
] as const;

/** A learning target the educator reviewed, tied to the standards it serves. */
export const LearningTargetSchema = z.strictObject({
  id: RefSchema.describe('The caller\u2019s id of the target; items cite targets by it'),
  statement: lineText(ASSESSMENT_LIMITS.targetLength).describe('The target, e.g. "I can compare ratios with tables"'),
  standards: z.array(RefSchema).min(1).max(ASSESSMENT_LIMITS.maximumStandards).describe('Codes of sent standards it serves'),
  reviewed: z.literal(true).describe('The educator reviewed this target (required)'),
});

/** The assessment draft request. */
export const AssessmentDraftInputSchema = z
  .strictObject({
    course: CourseSchema,
    standards: z.array(StandardSchema).min(1).max(ASSESSMENT_LIMITS.maximumStandards).describe('The authorized standards'),
    learningTargets: z.array(LearningTargetSchema).min(1).max(ASSESSMENT_LIMITS.maximumTargets),
    sources: z.array(SourceSchema).max(ASSESSMENT_LIMITS.maximumSources).default([]).describe('Optional reviewed sources'),
    itemCount: z.int().min(1).max(ASSESSMENT_LIMITS.maximumItems).describe('How many items the draft holds'),
    itemTypes: z.array(z.enum(ASSESSMENT_ITEM_TYPES)).min(1).max(ASSESSMENT_ITEM_TYPES.length).describe('The item types to use'),
    dokLevels: z
      .array(z.int().min(1).max(4))
      .min(1)
      .max(4)
      .describe('Target depth-of-knowledge levels (1 to 4); every item is at one of them'),
    accessibility: z
      .strictObject({
        requirements: z.array(z.enum(ACCESSIBILITY_REQUIREMENTS)).max(ACCESSIBILITY_REQUIREMENTS.length).default([]),
        notes: blockText(ASSESSMENT_LIMITS.notesLength).optional().describe('Class-level accessibility notes'),
      })
      .describe('Accessibility requirements every item honours'),
    context: EducationContextField,
  })
  .superRefine((input, ctx) => {
    const codes = new Set(input.standards.map((s) => s.code));
    for (const i of uniqueBy(input.standards, (s) => s.code)) ctx.addIssue({ code: 'custom', path: ['standards', i, 'code'], message: 'repeats a code' });
    for (const i of uniqueBy(input.learningTargets, (t) => t.id)) ctx.addIssue({ code: 'custom', path: ['learningTargets', i, 'id'], message: 'repeats an id' });
    for (const i of uniqueBy(input.sources, (s) => s.id)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'id'], message: 'repeats an id' });
    for (const i of uniqueBy(input.itemTypes, (t) => t)) ctx.addIssue({ code: 'custom', path: ['itemTypes', i], message: 'repeats a type' });
    for (const i of uniqueBy(input.dokLevels, String)) ctx.addIssue({ code: 'custom', path: ['dokLevels', i], message: 'repeats a level' });
    for (const i of uniqueBy(input.accessibility.requirements, (r) => r)) {
      ctx.addIssue({ code: 'custom', path: ['accessibility', 'requirements', i], message: 'repeats a requirement' });
    }
    input.learningTargets.forEach((target, t) => {
      target.standards.forEach((code, k) => {
        if (!codes.has(code)) ctx.addIssue({ code: 'custom', path: ['learningTargets', t, 'standards', k], message: 'is not one of the sent standards' });
      });
    });
  })
  .describe('Assessment draft request');

/** A validated assessment draft request. */
export type AssessmentDraftInput = z.output<typeof AssessmentDraftInputSchema>;

const Stem = blockText(ASSESSMENT_LIMITS.stemLength);
const Option = lineText(ASSESSMENT_LIMITS.optionLength);
const KeyText = blockText(ASSESSMENT_LIMITS.keyTextLength);
const Label = z.enum(['A', 'B', 'C', 'D', 'E', 'F']);
const Options = (min: number, max: number) => z.array(z.strictObject({ label: Label, text: Option })).min(min).max(max);

/** What every item carries besides its type's own fields. */
const ItemCommon = {
  number: z.int().min(1).max(ASSESSMENT_LIMITS.maximumItems),
  stem: Stem,
  dokLevel: z.int().min(1).max(4),
  standards: z.array(RefSchema).min(1).max(ASSESSMENT_LIMITS.maximumStandards).describe('Codes of sent standards only'),
  learningTargets: z.array(RefSchema).max(ASSESSMENT_LIMITS.maximumTargets).describe('Ids of sent learning targets only'),
  sources: z.array(RefSchema).max(ASSESSMENT_LIMITS.maximumSources).describe('Ids of sent sources the item relies on'),
  accessibilityNotes: z.array(Option).max(ASSESSMENT_LIMITS.accessibilityNotes).describe('How the item honours the requirements'),
};

/** One drafted item; `answerKey` is for the educator only. */
export const AssessmentItemSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('multiple-choice'),
    ...ItemCommon,
    options: Options(2, 6),
    answerKey: z.strictObject({ correct: Label, rationale: KeyText }),
  }),
  z.strictObject({
    type: z.literal('multiple-select'),
    ...ItemCommon,
    options: Options(3, 6),
    answerKey: z.strictObject({ correct: z.array(Label).min(2).max(5), rationale: KeyText }),
  }),
  z.strictObject({
    type: z.literal('short-answer'),
    ...ItemCommon,
    answerKey: z.strictObject({ acceptable: z.array(Option).min(1).max(5), rationale: KeyText }),
  }),
  z.strictObject({
    type: z.literal('constructed-response'),
    ...ItemCommon,
    answerKey: z.strictObject({ exemplar: KeyText, lookFors: z.array(Option).min(1).max(6) }),
  }),
  z.strictObject({
    type: z.literal('sort'),
    ...ItemCommon,
    categories: z.array(Option).min(2).max(4),
    cards: z.array(Option).min(3).max(10),
    answerKey: z.strictObject({
      placements: z.array(z.strictObject({ card: z.int().min(0).max(9), category: z.int().min(0).max(3) })).min(3).max(10),
      rationale: KeyText,
    }),
  }),
  z.strictObject({
    type: z.literal('match'),
    ...ItemCommon,
    prompts: z.array(Option).min(2).max(8),
    responses: z.array(Option).min(2).max(8),
    answerKey: z.strictObject({
      pairs: z.array(z.strictObject({ prompt: z.int().min(0).max(7), response: z.int().min(0).max(7) })).min(2).max(8),
      rationale: KeyText,
    }),
  }),
]);

/** One item. */
export type AssessmentItem = z.output<typeof AssessmentItemSchema>;

/** The model's whole answer. */
export const AssessmentModelOutputSchema = z.strictObject({
  title: lineText(200),
  directions: blockText(ASSESSMENT_LIMITS.stemLength).describe('Directions for learners'),
  items: z.array(AssessmentItemSchema).min(1).max(ASSESSMENT_LIMITS.maximumItems),
  cautions: z.array(Option).max(8),
});

/** The model's answer, as validated. */
export type AssessmentModelOutput = z.output<typeof AssessmentModelOutputSchema>;

/** How the draft covers the request, computed by kgate from the items (not the model's claim). */
export const AssessmentCoverageSchema = z.strictObject({
  byType: z.array(z.strictObject({ type: z.enum(ASSESSMENT_ITEM_TYPES), items: z.int() })),
  byDokLevel: z.array(z.strictObject({ level: z.int(), items: z.int() })),
  byStandard: z.array(z.strictObject({ code: z.string(), items: z.int() })),
});

/** The endpoint's data (`service.education-assessment-draft`). */
export const AssessmentDraftResultSchema = z.strictObject({
  status: z.literal('proposed').describe('A draft for the educator to review; never given to learners as is'),
  draft: z.strictObject({
    title: z.string(),
    directions: z.string(),
    items: z.array(AssessmentItemSchema.describe('An item; its answerKey is for the educator only')),
  }),
  coverage: AssessmentCoverageSchema,
  accessibility: z.array(z.enum(ACCESSIBILITY_REQUIREMENTS)).describe('The requirements the draft was asked to honour'),
  cautions: z.array(z.string()),
  review: z.string(),
});

/** The endpoint's data. */
export type AssessmentDraftResult = z.output<typeof AssessmentDraftResultSchema>;
