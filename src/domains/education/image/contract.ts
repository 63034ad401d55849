/**
 * Image generation's request and answer (spec 4.7; docs/education.md, "Image generation"): an educator's visual brief
 * becomes one image (PNG, JPEG or WebP) with accessible alt text. Every field is bounded and strict; the answer is
 * a proposal for the educator to review.
 */
import { z } from 'zod';
import { EducationContextField, GRADE_BANDS } from '../context/index.ts';
import { lineText } from '../drafting/index.ts';
import { normalizedPhrase } from './phrases.ts';

/** What the image is for (spec 4.7). */
export const IMAGE_CONTEXTS = ['plan', 'teach', 'create', 'communicate'] as const;
/** The kinds of visual (spec 4.7). */
export const IMAGE_TYPES = ['diagram', 'illustration', 'timeline', 'map', 'scene', 'organizer'] as const;
/** The approved styles: a bounded list, so that a style is never free text sent to the image model. */
export const IMAGE_STYLES = ['flat-vector', 'line-drawing', 'watercolor', 'textbook-realistic', 'cartoon', 'chalkboard', 'paper-cutout', 'infographic'] as const;
/** Orientations and the image size each asks for. */
export const IMAGE_ORIENTATIONS = { square: '1024x1024', landscape: '1536x1024', portrait: '1024x1536' } as const;
/** Palettes. */
export const IMAGE_PALETTES = ['full-color', 'high-contrast', 'colorblind-safe', 'grayscale', 'muted', 'warm', 'cool'] as const;
/** Formats and their media types. */
export const IMAGE_MEDIA_TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/** The bounds (docs/education.md). */
export const IMAGE_LIMITS = {
  requiredElements: 12,
  exclusions: 12,
  elementLength: 80,
  subjectLength: 120,
  topicLength: 200,
  altTextIntentLength: 300,
  /** The alt text the answer carries: non-empty, at most this long. */
  altTextMinLength: 10,
  altTextMaxLength: 300,
  promptSummaryLength: 300,
  /** The model's image prompt, and the one we send the image model (its text plus the brief's constraints). */
  modelPromptLength: 2000,
  imagePromptLength: 3800,
} as const;

const phrase = (maximum: number) =>
  lineText(maximum).refine((value) => normalizedPhrase(value) !== '', 'must hold at least one letter or digit');

/** The educator's visual brief. */
export const VisualBriefSchema = z
  .strictObject({
    type: z.enum(IMAGE_TYPES),
    topic: lineText(IMAGE_LIMITS.topicLength).describe('What the visual shows, e.g. "the water cycle"'),
    audience: z
      .strictObject({
        gradeBand: z.enum(GRADE_BANDS),
        subject: lineText(IMAGE_LIMITS.subjectLength).optional(),
      })
      .describe('The classroom audience: class-level only'),
    style: z.enum(IMAGE_STYLES).describe('An approved style'),
    orientation: z.enum(Object.keys(IMAGE_ORIENTATIONS) as [keyof typeof IMAGE_ORIENTATIONS, ...Array<keyof typeof IMAGE_ORIENTATIONS>]),
    palette: z.enum(IMAGE_PALETTES),
    requiredElements: z
      .array(phrase(IMAGE_LIMITS.elementLength))
      .min(1)
      .max(IMAGE_LIMITS.requiredElements)
      .describe('What the image must show; each is named in the image prompt as written'),
    exclusions: z
      .array(phrase(IMAGE_LIMITS.elementLength))
      .max(IMAGE_LIMITS.exclusions)
      .default([])
      .describe('What the image must not show; none may be named in the image prompt or the alt text'),
    altTextIntent: lineText(IMAGE_LIMITS.altTextIntentLength).describe('What the alt text should convey, e.g. "the order of the stages"'),
  })
  .describe('The educator\u2019s visual brief');

/** The request. */
export const ImageInputSchema = z
  .strictObject({
    context: z.enum(IMAGE_CONTEXTS).describe('What the image is for: plan, teach, create or communicate'),
    brief: VisualBriefSchema,
    format: z.enum(Object.keys(IMAGE_MEDIA_TYPES) as ['png', 'jpeg', 'webp']).default('png').describe('png (default), jpeg or webp'),
    educationContext: EducationContextField,
  })
  .superRefine((input, ctx) => {
    // A brief that asks for an element and excludes it (or a part of it) cannot be met: refused, not guessed at.
    const exclusions = input.brief.exclusions.map((e) => ` ${normalizedPhrase(e)} `);
    input.brief.requiredElements.forEach((element, index) => {
      const required = ` ${normalizedPhrase(element)} `;
      if (exclusions.some((excluded) => required.includes(excluded) || excluded.includes(required))) {
        ctx.addIssue({ code: 'custom', path: ['brief', 'requiredElements', index], message: 'a required element is also excluded' });
      }
    });
  });
/** See ImageInputSchema. */
export type ImageInput = z.output<typeof ImageInputSchema>;

/** The answer's data. */
export const ImageResultSchema = z.object({
  image: z.object({
    mediaType: z.enum(['image/png', 'image/jpeg', 'image/webp']),
    format: z.enum(['png', 'jpeg', 'webp']),
    size: z.enum(['1024x1024', '1536x1024', '1024x1536']),
    byteLength: z.int(),
    sha256: z.string().describe('Hex SHA-256 of the bytes'),
    base64: z.string().describe('The image bytes, base64'),
  }),
  altText: z.string().describe('Accessible alt text'),
  promptSummary: z.string().describe('What the image model was asked for, in one or two sentences'),
  status: z.literal('proposed'),
  review: z.string(),
});
/** See ImageResultSchema. */
export type ImageResult = z.output<typeof ImageResultSchema>;

/** The model's plan for the image, as JSON. */
export const ImagePlanSchema = z.strictObject({
  prompt: z.string().trim().min(1).max(IMAGE_LIMITS.modelPromptLength),
  altText: z.string().trim().min(IMAGE_LIMITS.altTextMinLength).max(IMAGE_LIMITS.altTextMaxLength),
  promptSummary: z.string().trim().min(1).max(IMAGE_LIMITS.promptSummaryLength),
});
/** See ImagePlanSchema. */
export type ImagePlan = z.output<typeof ImagePlanSchema>;
