import { z } from 'zod';
import { hasControlCharacters } from '../../../kernel/control-characters.ts';

/**
 * Bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069): shown text carrying them can read
 * differently from what it holds ("evil\u202Egnp" shows as "evilpng"), so a brand or a pack may not use them.
 */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;

/** Bounds of a short human-facing text of a brand profile or an experience pack. */
export interface TextBounds {
  /** Most characters (Unicode code points, so an emoji counts once). */
  max: number;
  /** Whether line feeds may separate paragraphs; other control characters are refused either way. */
  lineBreaks?: boolean;
}

/**
 * What is wrong with `value` as shown text within `bounds`, as a predicate ("must ..."), or undefined when nothing
 * is. Shown text is never blank, never longer than its bound and carries no control or bidirectional control
 * characters (a display hides them, and they let one text pass for another).
 */
export function shownTextProblem(value: string, bounds: TextBounds): string | undefined {
  // A UTF-16 string has at most twice as many units as code points: past that, it is too long without counting.
  if (value.length > bounds.max * 2 || [...value].length > bounds.max) {
    return `must have at most ${bounds.max} characters`;
  }
  if (value.trim().length === 0) return 'must not be blank';
  const checked = bounds.lineBreaks ? value.replaceAll('\n', '') : value;
  if (hasControlCharacters(checked)) {
    return bounds.lineBreaks ? 'must not contain control characters other than line feeds' : 'must not contain control characters';
  }
  if (BIDI_CONTROLS.test(value)) return 'must not contain bidirectional control characters';
  return undefined;
}

/** A zod schema of shown text within `bounds` (see shownTextProblem); one issue, the first problem found. */
export function shownText(bounds: TextBounds): z.ZodString {
  return z.string().check((ctx) => {
    const problem = shownTextProblem(ctx.value, bounds);
    if (problem !== undefined) ctx.issues.push({ code: 'custom', message: problem, input: ctx.value });
  });
}

/** A lowercase identifier chosen by a pack author (navigation item, onboarding step, terminology term, theme). */
export function packIdentifier(max: number): z.ZodString {
  return z
    .string()
    .max(max, `must have at most ${max} characters`)
    .regex(/^[a-z0-9]+(?:[-.][a-z0-9]+)*$/, 'must be lowercase letters and digits joined by single hyphens or dots');
}
