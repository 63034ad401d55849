/**
 * Education generation's request and answer (spec 4.7 "generate", 6.3; docs/education.md, "Generation"): a workflow
 * intent, the course, the authorized standards, the explicitly selected sources (the only ones the draft may cite),
 * an optional aggregate context packet and output options in; a teacher-facing Markdown draft out, with the
 * standards and sources it cites checked against what was sent, always `status: proposed` with a review note.
 */
import { z } from 'zod';
import { KgateError } from '../../../kernel/errors.ts';
import { EducationContextField, LEARNER_LANGUAGE_RULE_CODES, findLearnerSpecificLanguage } from '../context/index.ts';
import { CourseSchema, RefSchema, SourceSchema, StandardSchema, blockText, uniqueBy } from '../drafting/index.ts';

/**
 * The workflows a teacher asks for (spec 1.10): each names what the draft is, and the system prompt says what it
 * holds. A bounded list rather than free text, so that the prompt stays ours.
 */
export const GENERATE_INTENTS = [
  'lesson-plan',
  'weekly-plan',
  'activity',
  'adaptation',
  'reteach',
  'family-communication',
  'substitute-plan',
] as const;
/** See GENERATE_INTENTS. */
export type GenerateIntent = (typeof GENERATE_INTENTS)[number];

/** The bounds of a generate request and answer (docs/education.md). */
export const GENERATE_LIMITS = {
  maximumStandards: 12,
  maximumSources: 8,
  requestLength: 2000,
  /** The answer's output tokens: the model's max_tokens and the output side of the reservation. */
  minimumOutputTokens: 256,
  maximumOutputTokens: 4000,
  defaultOutputTokens: 2000,
  localeLength: 35,
  /** The most characters of a draft kgate keeps (a token is at most a few characters; this bounds a model that lies). */
  maximumTextLength: 40_000,
} as const;

/** A BCP 47 language tag, loosely: letters and digits in dash-separated subtags (`en`, `es-MX`, `zh-Hant-TW`). */
const LocaleSchema = z
  .string()
  .max(GENERATE_LIMITS.localeLength)
  .regex(/^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,4}$/, 'must be a BCP 47 language tag such as en or es-MX');

/** The teacher's request in their own words: data for the model, screened for learner-specific language. */
const RequestText = blockText(GENERATE_LIMITS.requestLength).refine(
  (text) => {
    const rules = findLearnerSpecificLanguage(text).filter((rule) => LEARNER_LANGUAGE_RULE_CODES[rule] === 'learner_specific_content');
    // Thrown, not an issue: the pipeline keeps a thrown KgateError's code (as the context packet's screen does).
    if (rules.length > 0) {
      throw new KgateError('learner_specific_content', 'Generation takes class-level requests only; describe the class, never a learner.', {
        fields: [{ field: 'request', rules }],
      });
    }
    return true;
  },
);

/** A generate request. */
export const GenerateInputSchema = z
  .strictObject({
    intent: z.enum(GENERATE_INTENTS).describe('The workflow: what the draft is'),
    course: CourseSchema,
    standards: z
      .array(StandardSchema)
      .max(GENERATE_LIMITS.maximumStandards)
      .default([])
      .describe('The standards the caller is authorized to use; the draft names them by code'),
    sources: z
      .array(SourceSchema)
      .max(GENERATE_LIMITS.maximumSources)
      .default([])
      .describe('The sources the educator selected: the only ones the draft may cite, as [source: id]'),
    request: RequestText.optional().describe('What the teacher asks for, in their words (class level; treated as data, never as instructions)'),
    context: EducationContextField,
    maxOutputTokens: z
      .int()
      .min(GENERATE_LIMITS.minimumOutputTokens)
      .max(GENERATE_LIMITS.maximumOutputTokens)
      .default(GENERATE_LIMITS.defaultOutputTokens)
      .describe('The most tokens the draft may take (bounds its cost)'),
    locale: LocaleSchema.default('en').describe('The language of the draft, as a BCP 47 tag'),
  })
  .superRefine((input, ctx) => {
    for (const i of uniqueBy(input.standards, (s) => s.code)) ctx.addIssue({ code: 'custom', path: ['standards', i, 'code'], message: 'repeats a code' });
    for (const i of uniqueBy(input.sources, (s) => s.id)) ctx.addIssue({ code: 'custom', path: ['sources', i, 'id'], message: 'repeats an id' });
  })
  .describe('Education generation request');

/** A validated generate request. */
export type GenerateInput = z.output<typeof GenerateInputSchema>;

/** What every draft says to the teacher, fixed by kgate rather than written by the model. */
export const GENERATE_REVIEW_NOTE =
  'Proposed draft for teacher review: check it against your class, the standards and the cited sources, and adapt it before use. ' +
  'It makes no decision about any learner.';

/** The answer: a proposed Markdown draft and what it cites, every citation one of the request's. */
export const GenerateResultSchema = z
  .strictObject({
    status: z.literal('proposed').describe('Always proposed: a draft for the teacher, never a decision'),
    intent: z.enum(GENERATE_INTENTS),
    locale: z.string(),
    format: z.literal('markdown'),
    text: z.string().max(GENERATE_LIMITS.maximumTextLength).describe('The teacher-facing draft, in Markdown'),
    citations: z
      .strictObject({
        standards: z.array(RefSchema).describe('Codes of the sent standards the draft names, in the order sent'),
        sources: z.array(RefSchema).describe('Ids of the selected sources the draft cites, in the order sent'),
      })
      .describe('What the draft cites, each checked against the request'),
    review: z.string().describe('The note for the teacher'),
  })
  .describe('A generated draft');

/** A generated draft, as the endpoint answers it. */
export type GenerateResult = z.output<typeof GenerateResultSchema>;
