/**
 * Reading the model's guidance: its JSON checked strictly (the kind asked for, a bounded non-empty text, the asked
 * locale for a translation), then the safety checks. A text that fails a safety check is withheld: the answer
 * carries our fallback for its kind, never the model's text. Pure.
 */
import { invalid, parseModelObject, type Checked } from '../drafting/index.ts';
import { modelAnswerSchema, type GuidanceInput, type GuidanceKind, type GuidanceResult } from './contract.ts';
import { checkGuidanceText, type SafetyVerdict } from './safety.ts';

/** Our texts for a withheld answer, per kind: generic, safe at any age, and in English (their `locale`). */
export const GUIDANCE_FALLBACKS: Readonly<Record<GuidanceKind, string>> = {
  hint: 'Read the activity again and find what it asks you to work out. What do you already know that could help with the first step?',
  explanation_scaffold:
    '1. Say in your own words what the activity asks.\n2. Write down what you already know.\n3. Try one small step and check it.\n4. If you are still stuck, ask your teacher in class.',
  reflection_question: 'What have you tried so far, and what made you choose that step?',
  translation: 'This translation could not be shown. Your teacher can see this conversation and can help you in class.',
  clearer_reading: 'This version could not be shown. Read the activity one sentence at a time, and ask your teacher in class about any word you do not know.',
};

/** The language of the fallbacks. */
export const FALLBACK_LOCALE = 'en';

const REVIEW =
  'Advisory guidance for a learner on a live activity; the teacher sees the transcript. Text that failed a safety check was replaced by a fixed fallback.';

/** A checked guidance answer: what the learner gets, and the verdict the safety receipt reports. */
export interface GuidanceOutcome {
  result: GuidanceResult;
  verdict: SafetyVerdict;
}

/** Reads the model's text for `input`: invalid (model_output_invalid) or an outcome, delivered or withheld. */
export function readGuidanceAnswer(text: string, input: GuidanceInput): Checked<GuidanceOutcome> {
  const parsed = parseModelObject(text, modelAnswerSchema(input.guidance));
  if (!parsed.ok) return parsed;
  const answer = parsed.value;
  if (input.guidance === 'translation') {
    let locale: string | undefined;
    try {
      locale = answer.locale === undefined ? undefined : Intl.getCanonicalLocales(answer.locale)[0];
    } catch {
      locale = undefined;
    }
    if (locale !== input.locale) return invalid([`locale: the translation is not in the locale asked for (${input.locale ?? ''})`]);
  }
  const verdict = checkGuidanceText(answer.text, input.activity.answerKey);
  const base = { guidance: input.guidance, activityId: input.activity.id, status: 'advisory' as const, review: REVIEW };
  if (verdict.withheld) {
    return {
      ok: true,
      value: {
        verdict,
        result: { ...base, text: GUIDANCE_FALLBACKS[input.guidance], locale: FALLBACK_LOCALE, withheld: true, reasons: verdict.reasons, source: 'fallback' },
      },
    };
  }
  return {
    ok: true,
    value: {
      verdict,
      result: {
        ...base,
        text: answer.text,
        ...(input.guidance === 'translation' ? { locale: input.locale } : {}),
        withheld: false,
        reasons: [],
        source: 'model',
      },
    },
  };
}
