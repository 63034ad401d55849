/**
 * The education context packet (`partner.education-context`, version 1; spec 2.7, 8, 9.5): the shape a partner may
 * send beside an education request, and the limits the service holds it to whatever the partner claims. The shape
 * is structural only; screen.ts adds the rules with their own codes (group sizes, learner-specific language).
 */
import { z } from 'zod';

/** The bounds of a packet (docs/education.md). Every one is tested at the bound and one past it. */
export const EDUCATION_CONTEXT_LIMITS = {
  /** The smallest group a count may describe (spec 8): smaller groups are `group_too_small`. */
  minimumGroupSize: 5,
  /** The largest learner count of the class or of one group. */
  maximumLearnerCount: 1000,
  /** Support categories in one packet. */
  maximumSupports: 16,
  /** The packet's size: UTF-8 bytes of its compact JSON (no white space), whatever the order of its fields. */
  maximumBytes: 8192,
  /** Lengths in UTF-16 code units, as JavaScript counts them. */
  subjectLength: 80,
  courseRefLength: 128,
  labelLength: 60,
  noteLength: 280,
  notesLength: 1000,
} as const;

/** The packet's kind; any other kind is `invalid_request`. */
export const EDUCATION_CONTEXT_KIND = 'partner.education-context';
/** The one packet version this service speaks (spec 9.5). */
export const EDUCATION_CONTEXT_VERSION = 1;

/** Grade bands of the class. */
export const GRADE_BANDS = ['pre-k', 'k-2', '3-5', '6-8', '9-12', 'post-secondary', 'adult'] as const;

/** Class-support categories: what a group of learners benefits from, never who they are. `other` needs a label. */
export const SUPPORT_CATEGORIES = [
  'multilingual_learners',
  'reading_support',
  'writing_support',
  'math_support',
  'extended_time',
  'read_aloud',
  'visual_supports',
  'audio_supports',
  'assistive_technology',
  'movement_breaks',
  'attention_support',
  'executive_function',
  'social_emotional',
  'advanced_learners',
  'hearing_access',
  'vision_access',
  'physical_access',
  'small_group_instruction',
  'attendance_gaps',
  'other',
] as const;

// Control characters have no place in class-level text; a note may break lines and tab.
function hasDisallowedControl(value: string, allowLineBreaks: boolean): boolean {
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (allowLineBreaks && (code === 0x0a || code === 0x09 || code === 0x0d)) continue;
    if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  }
  return false;
}

/** Free text of the packet: bounded, not blank, without control characters (line breaks only where allowed). */
function freeText(maximum: number, allowLineBreaks: boolean) {
  return z
    .string()
    .max(maximum)
    .refine((value) => value.trim() !== '', 'must not be empty or blank')
    .refine((value) => !hasDisallowedControl(value, allowLineBreaks), 'must not contain control characters');
}

const LearnerCountSchema = z.int().min(0).max(EDUCATION_CONTEXT_LIMITS.maximumLearnerCount);

/** One aggregate class-support category: how many learners of the class it concerns, and what helps them. */
export const EducationSupportSchema = z.strictObject({
  category: z.enum(SUPPORT_CATEGORIES).describe('The kind of support a group of learners benefits from'),
  label: freeText(EDUCATION_CONTEXT_LIMITS.labelLength, false)
    .optional()
    .describe('A short class-level name for the category; required with `other`'),
  learnerCount: LearnerCountSchema.describe('How many learners of the class the category concerns: at least five'),
  note: freeText(EDUCATION_CONTEXT_LIMITS.noteLength, true)
    .optional()
    .describe('What helps this group, in class-level words; learner-specific language is refused'),
});

/**
 * The packet's structure (kind, version, fields, bounds), strict: an unknown field is refused. On its own it
 * answers `invalid_request` only; EducationContextSchema adds the rules with their own codes.
 */
export const EducationContextShape = z
  .strictObject({
    kind: z.literal(EDUCATION_CONTEXT_KIND),
    version: z.literal(EDUCATION_CONTEXT_VERSION),
    gradeBand: z.enum(GRADE_BANDS).optional(),
    subject: freeText(EDUCATION_CONTEXT_LIMITS.subjectLength, false).optional().describe('The class subject, e.g. "Grade 7 science"'),
    courseRef: z
      .string()
      .min(1)
      .max(EDUCATION_CONTEXT_LIMITS.courseRefLength)
      .regex(/^[A-Za-z0-9._:/-]+$/)
      .optional()
      .describe('An opaque reference to a course the caller is authorized for; not interpreted'),
    learnerCount: LearnerCountSchema.optional().describe('Learners in the class: at least five'),
    supports: z
      .array(EducationSupportSchema)
      .max(EDUCATION_CONTEXT_LIMITS.maximumSupports)
      .optional()
      .describe('Aggregate class-support categories, each of at least five learners'),
    notes: freeText(EDUCATION_CONTEXT_LIMITS.notesLength, true)
      .optional()
      .describe('Class-level notes; learner-specific language is refused'),
  })
  .superRefine((packet, ctx) => {
    const seen = new Set<string>();
    packet.supports?.forEach((support, index) => {
      if (support.category === 'other' && support.label === undefined) {
        ctx.addIssue({ code: 'custom', path: ['supports', index, 'label'], message: 'a support of category other needs a label' });
      }
      const key = `${support.category}\u0000${support.label?.trim().toLowerCase() ?? ''}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['supports', index], message: 'the category and label repeat an earlier support' });
      seen.add(key);
      if (packet.learnerCount !== undefined && support.learnerCount > packet.learnerCount) {
        ctx.addIssue({ code: 'custom', path: ['supports', index, 'learnerCount'], message: 'exceeds the learnerCount of the class' });
      }
    });
    const bytes = Buffer.byteLength(JSON.stringify(packet), 'utf8');
    if (bytes > EDUCATION_CONTEXT_LIMITS.maximumBytes) {
      ctx.addIssue({ code: 'custom', path: [], message: `is ${bytes} bytes of JSON; at most ${EDUCATION_CONTEXT_LIMITS.maximumBytes}` });
    }
  })
  .describe('Education context packet (partner.education-context, version 1): aggregate class-support categories only');

/** One support category of a packet. */
export type EducationSupport = z.output<typeof EducationSupportSchema>;
/** A packet that passed the structure and every rule: aggregate, class-level context. */
export type EducationContext = z.output<typeof EducationContextShape>;
/** A support category id. */
export type SupportCategory = (typeof SUPPORT_CATEGORIES)[number];
/** A grade band id. */
export type GradeBand = (typeof GRADE_BANDS)[number];
