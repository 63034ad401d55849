/**
 * Image generation (spec 4.7; docs/education.md): the visual brief, the plan prompt and the composed image prompt,
 * the checks of the model's plan and of the image bytes.
 */
export {
  IMAGE_CONTEXTS,
  IMAGE_LIMITS,
  IMAGE_MEDIA_TYPES,
  IMAGE_ORIENTATIONS,
  IMAGE_PALETTES,
  IMAGE_STYLES,
  IMAGE_TYPES,
  ImageInputSchema,
  ImagePlanSchema,
  ImageResultSchema,
  VisualBriefSchema,
} from './contract.ts';
export type { ImageInput, ImagePlan, ImageResult } from './contract.ts';
export { IMAGE_PLAN_MAX_OUTPUT_TOKENS, composeImagePrompt, imagePlanPrompt } from './prompt.ts';
export { checkImageBytes, checkImagePlan } from './validate.ts';
export { mentions, normalizedPhrase } from './phrases.ts';
export { imageFormatOfBytes } from './signature.ts';
