/**
 * The request fields the three drafting endpoints share (practice-review, assessment-draft, quality-review;
 * docs/education.md): the course, an authorized standard, a reviewed source, and bounded free text. Every object is
 * strict (an unknown field is refused, never ignored) and every string and list is bounded.
 */
import { z } from 'zod';
import { GRADE_BANDS } from '../context/index.ts';

// Control characters have no place in these texts; multi-line texts may break lines and tab.
function hasDisallowedControl(value: string, allowLineBreaks: boolean): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (allowLineBreaks && (code === 0x0a || code === 0x09 || code === 0x0d)) continue;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** A bounded, non-blank text of one line. */
export function lineText(maximum: number) {
  return z
    .string()
    .max(maximum)
    .refine((value) => value.trim() !== '', 'must not be empty or blank')
    .refine((value) => !hasDisallowedControl(value, false), 'must not contain control characters');
}

/** A bounded, non-blank text that may break lines. */
export function blockText(maximum: number) {
  return z
    .string()
    .max(maximum)
    .refine((value) => value.trim() !== '', 'must not be empty or blank')
    .refine((value) => !hasDisallowedControl(value, true), 'must not contain control characters');
}

/** An identifier the caller chose (a standard code, a source id, a learning target id): compared exactly. */
export const RefSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/()-]*$/, 'must be letters, digits and . _ : / ( ) - only');

/** The bounds of the shared fields (docs/education.md). */
export const DRAFTING_FIELD_LIMITS = {
  courseTitleLength: 120,
  subjectLength: 80,
  standardStatementLength: 1000,
  sourceTitleLength: 200,
  sourceExcerptLength: 4000,
} as const;

/** The course a draft is for: class-level metadata, never a roster. */
export const CourseSchema = z
  .strictObject({
    title: lineText(DRAFTING_FIELD_LIMITS.courseTitleLength).describe('The course, e.g. "Grade 7 Mathematics"'),
    subject: lineText(DRAFTING_FIELD_LIMITS.subjectLength).describe('The subject, e.g. "mathematics"'),
    gradeBand: z.enum(GRADE_BANDS).describe('The grade band of the class'),
    courseRef: RefSchema.optional().describe('An opaque reference to a course the caller is authorized for; not interpreted'),
  })
  .describe('The course: class-level metadata only');

/** One standard the caller is authorized to use: its code, framework and statement. */
export const StandardSchema = z
  .strictObject({
    code: RefSchema.describe('The standard\u2019s code, e.g. 6.RP.A.1; outputs cite standards by it'),
    framework: lineText(120).optional().describe('The framework, e.g. "Common Core State Standards for Mathematics"'),
    statement: blockText(DRAFTING_FIELD_LIMITS.standardStatementLength).describe('The standard\u2019s statement'),
  })
  .describe('An authorized standard');

/** A source the educator reviewed and selected: an excerpt, cited by its id. */
export const SourceSchema = z
  .strictObject({
    id: RefSchema.describe('The caller\u2019s id of the source; outputs cite sources by it'),
    title: lineText(DRAFTING_FIELD_LIMITS.sourceTitleLength),
    excerpt: blockText(DRAFTING_FIELD_LIMITS.sourceExcerptLength).describe('The reviewed passage the draft may rely on'),
  })
  .describe('A reviewed source');

/** A course, as the shared schemas give it. */
export type Course = z.output<typeof CourseSchema>;
/** A standard, as the shared schemas give it. */
export type Standard = z.output<typeof StandardSchema>;
/** A source, as the shared schemas give it. */
export type Source = z.output<typeof SourceSchema>;

/** A list whose items' `key` must not repeat: a refinement for lists of standards, sources and targets. */
export function uniqueBy<T>(items: readonly T[], key: (item: T) => string): number[] {
  const seen = new Set<string>();
  const repeated: number[] = [];
  items.forEach((item, index) => {
    const value = key(item);
    if (seen.has(value)) repeated.push(index);
    seen.add(value);
  });
  return repeated;
}
