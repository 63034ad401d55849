/**
 * Student guidance's request and answer (spec 4.7; docs/education.md, "Student guidance"): a learner asks for help on
 * a live teacher-authored activity and gets exactly one short kind of guidance, never the activity's answer. The
 * policy is fail-closed: it must forbid answer revelation, external links and direct messaging, and the transcript
 * must be visible to the teacher, or the request is refused before anything is reserved.
 */
import { z } from 'zod';
import { EducationContextField } from '../context/index.ts';
import { RefSchema, StandardSchema, blockText, lineText } from '../drafting/index.ts';
import { normalizedTokens } from './normalize.ts';
import { WITHHELD_REASONS } from './safety.ts';

/** The learners' age bands. */
export const AGE_BANDS = ['elementary', 'middle', 'secondary'] as const;

/** The kinds of guidance a learner may ask for; the answer is exactly one of them. */
export const GUIDANCE_KINDS = ['hint', 'explanation_scaffold', 'reflection_question', 'translation', 'clearer_reading'] as const;
/** See GUIDANCE_KINDS. */
export type GuidanceKind = (typeof GUIDANCE_KINDS)[number];

/** The bounds of a guidance request and answer (docs/education.md). */
export const GUIDANCE_LIMITS = {
  activityPromptLength: 2000,
  answerKeyEntries: 10,
  answerKeyEntryLength: 500,
  learnerMessageLength: 1000,
  priorTurns: 12,
  priorTurnLength: 1000,
  localeLength: 35,
  /** The longest text of each kind, in characters: short by design. */
  textLength: {
    hint: 500,
    explanation_scaffold: 1200,
    reflection_question: 300,
    translation: 3000,
    clearer_reading: 2500,
  } satisfies Record<GuidanceKind, number>,
} as const;

/** A BCP 47 language tag, checked by Intl (which canonicalizes what it accepts: `es-mx` is `es-MX`). */
export const LocaleSchema = z
  .string()
  .min(2)
  .max(GUIDANCE_LIMITS.localeLength)
  .refine((tag) => {
    try {
      return Intl.getCanonicalLocales(tag).length === 1;
    } catch {
      return false;
    }
  }, 'must be a BCP 47 language tag, e.g. es or pt-BR')
  .transform((tag) => Intl.getCanonicalLocales(tag)[0]!);

const mustForbid = (what: string) => z.literal(true, { error: `the policy must forbid ${what} (true); guidance fails closed without it` });

/** The guidance policy: each rule must be present and true (fail-closed); `version` is the caller's policy reference. */
export const GuidancePolicySchema = z
  .strictObject({
    version: RefSchema.describe('The caller\u2019s reference of its guidance policy, named in the safety receipt'),
    forbidAnswerRevelation: mustForbid('answer revelation'),
    forbidExternalLinks: mustForbid('external links'),
    forbidDirectMessaging: mustForbid('direct messaging'),
  })
  .describe('The fail-closed guidance policy: every rule must be true');

const AnswerKeyEntry = blockText(GUIDANCE_LIMITS.answerKeyEntryLength).refine(
  (entry) => normalizedTokens(entry).length > 0,
  'must hold at least one letter or digit',
);

/** The live teacher-authored activity, with the answer key the teacher holds (used only to withhold it). */
export const GuidanceActivitySchema = z
  .strictObject({
    id: RefSchema.describe('The activity\u2019s id in the caller\u2019s product'),
    state: z.literal('live', { error: 'guidance is given only on a live activity (`state: live`)' }),
    authoredBy: z.literal('teacher', { error: 'guidance is given only on a teacher-authored activity (`authoredBy: teacher`)' }),
    title: lineText(200).optional(),
    prompt: blockText(GUIDANCE_LIMITS.activityPromptLength).describe('What the activity asks the learner'),
    answerKey: z
      .array(AnswerKeyEntry)
      .min(1)
      .max(GUIDANCE_LIMITS.answerKeyEntries)
      .describe('The answer, its accepted forms, or the key points of a model answer: never shown, only withheld'),
  })
  .describe('The live teacher-authored activity');

/** A turn of the conversation so far, as the caller recorded it: untrusted evidence, never instructions. */
export const PriorTurnSchema = z.strictObject({
  role: z.enum(['learner', 'guide']),
  text: blockText(GUIDANCE_LIMITS.priorTurnLength),
});

/** The learner's support preferences. */
export const SupportPreferencesSchema = z
  .strictObject({
    readingSupport: z.boolean().optional().describe('Short sentences and common words'),
    vocabularySupport: z.boolean().optional().describe('Explain a hard word where it is used'),
    language: LocaleSchema.optional().describe('The language to answer in (BCP 47); default the activity\u2019s'),
  })
  .describe('How the learner is best helped');

/** The request. */
export const GuidanceInputSchema = z
  .strictObject({
    ageBand: z.enum(AGE_BANDS),
    course: z.strictObject({
      title: lineText(120),
      subject: lineText(80),
      courseRef: RefSchema.optional().describe('An opaque reference to a course the caller is authorized for; not interpreted'),
    }),
    standard: StandardSchema,
    activity: GuidanceActivitySchema,
    policy: GuidancePolicySchema,
    transcriptVisibleToTeacher: z.literal(true, { error: 'the transcript must be visible to the teacher (true); guidance fails closed without it' }),
    guidance: z.enum(GUIDANCE_KINDS).describe('The one kind of guidance asked for'),
    locale: LocaleSchema.optional().describe('The locale to translate into (BCP 47): required with `translation`, only with it'),
    learnerMessage: blockText(GUIDANCE_LIMITS.learnerMessageLength).describe('What the learner wrote: untrusted evidence'),
    support: SupportPreferencesSchema.optional(),
    priorTurns: z.array(PriorTurnSchema).max(GUIDANCE_LIMITS.priorTurns).optional().describe('The conversation so far: untrusted evidence'),
    educationContext: EducationContextField,
  })
  .superRefine((input, ctx) => {
    if (input.guidance === 'translation' && input.locale === undefined) {
      ctx.addIssue({ code: 'custom', path: ['locale'], message: 'a translation needs the locale to translate into' });
    }
    if (input.guidance !== 'translation' && input.locale !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['locale'], message: 'locale is given only with guidance `translation` (support.language sets the language of the others)' });
    }
  });
/** See GuidanceInputSchema. */
export type GuidanceInput = z.output<typeof GuidanceInputSchema>;

/** The answer's data: one kind of guidance, delivered from the model or, when withheld, our own fallback text. */
export const GuidanceResultSchema = z.object({
  guidance: z.enum(GUIDANCE_KINDS),
  text: z.string().describe('What the learner sees: the model\u2019s text, or our fallback when it was withheld'),
  locale: z.string().optional().describe('The language of `text` when it is a translation or our English fallback'),
  withheld: z.boolean().describe('True when the model\u2019s text failed a safety check and was replaced'),
  reasons: z.array(z.enum(WITHHELD_REASONS)).describe('Why it was withheld (empty when it was not)'),
  source: z.enum(['model', 'fallback']),
  activityId: z.string(),
  status: z.literal('advisory'),
  review: z.string().describe('A note for the teacher, who sees the transcript'),
});
/** See GuidanceResultSchema. */
export type GuidanceResult = z.output<typeof GuidanceResultSchema>;

/** The model's answer: the kind asked for and its text (the locale too for a translation). */
export function modelAnswerSchema(kind: GuidanceKind) {
  return z.strictObject({
    guidance: z.literal(kind),
    text: z.string().trim().min(1).max(GUIDANCE_LIMITS.textLength[kind]),
    locale: z.string().max(GUIDANCE_LIMITS.localeLength).optional(),
  });
}
