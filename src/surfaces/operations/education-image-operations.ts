import {
  IMAGE_LIMITS,
  IMAGE_MEDIA_TYPES,
  IMAGE_ORIENTATIONS,
  ImageInputSchema,
  ImageResultSchema,
  checkImageBytes,
  checkImagePlan,
  composeImagePrompt,
  imagePlanPrompt,
  type ImageInput,
  type ImageResult,
} from '../../domains/education/image/index.ts';
import { EDUCATION_CONTEXT_ERRORS } from '../../domains/education/context/index.ts';
import { inputTokenBound } from '../../domains/education/drafting/index.ts';
import { ModelError } from '../../domains/models/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { EDUCATION_PATH, METERED_EDUCATION_OPERATION, METERED_ERRORS, meteredCallOf, meteredRequestOf } from './metered-calls.ts';
import { defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

const CAPABILITY = 'education.generate-image';

const REVIEW_NOTE =
  'A proposed image for an educator to review before classroom use: check that it shows every required element, none of the exclusions, and that the alt text fits.';

function invalidOutput(message: string, problems: readonly string[]): ModelError {
  // Accepted: the model did its work, so the call is a billable failure (spec 8 rule 4). The metered port already
  // holds the usage of the calls made; none of the output is returned.
  return new ModelError('model_output_invalid', message, 'yes', undefined, { problems: [...problems] });
}

/**
 * One chat call turns the brief into a checked plan (image prompt, alt text, summary), then one image call draws it;
 * the bytes are checked by signature once more before they leave. Both calls are inside one reservation.
 */
async function generateImage(ctx: OperationContext, input: ImageInput): Promise<ImageResult> {
  const metered = meteredCallOf(ctx, CAPABILITY);
  const { models } = metered;
  // The image model is checked before anything is reserved: without it the chat call would be charged for nothing.
  if (!models.identity?.imageModel) throw new KgateError('unavailable', 'No image model is configured for this service.', { capability: CAPABILITY });
  const chat = imagePlanPrompt(input);
  const result = await models.runMetered<ImageResult>({
    ...meteredRequestOf(metered, 'generateEducationImage', input),
    kind: 'education-generate-image',
    bound: { inputTokens: inputTokenBound(chat.messages), outputTokens: chat.maxOutputTokens, images: 1 },
    async work(meter) {
      const completion = await meter.model.chat({ messages: chat.messages, maxOutputTokens: chat.maxOutputTokens, json: true, temperature: 0.4, signal: meter.signal });
      const plan = checkImagePlan(completion.text, input);
      if (!plan.ok) throw invalidOutput('The model\u2019s image plan failed its checks; no image was drawn.', plan.problems);
      const size = IMAGE_ORIENTATIONS[input.brief.orientation];
      const image = await meter.model.image({ prompt: composeImagePrompt(plan.value, input), size, format: input.format, signal: meter.signal });
      const bytes = checkImageBytes(image.bytes, input.format);
      if (!bytes.ok) throw invalidOutput('The model\u2019s image is not the format asked for; none of it is returned.', bytes.problems);
      return {
        image: {
          mediaType: IMAGE_MEDIA_TYPES[input.format],
          format: input.format,
          size,
          byteLength: bytes.value.byteLength,
          sha256: sha256Hex(bytes.value),
          base64: Buffer.from(bytes.value.buffer, bytes.value.byteOffset, bytes.value.byteLength).toString('base64'),
        },
        altText: plan.value.altText,
        promptSummary: plan.value.promptSummary,
        status: 'proposed',
        review: REVIEW_NOTE,
      };
    },
  });
  return result.data;
}

/** generateEducationImage: one image from an educator's visual brief, with accessible alt text. */
const generateEducationImage = defineOperation({
  id: 'generateEducationImage',
  summary: 'Generate an image',
  description:
    'Draws one classroom image (PNG by default, JPEG or WebP) from an educator\u2019s visual brief: what it is for ' +
    '(plan, teach, create, communicate), its type (diagram, illustration, timeline, map, scene, organizer), topic, ' +
    'classroom audience, an approved style, orientation (square 1024x1024, landscape 1536x1024, portrait 1024x1536), ' +
    `palette, 1 to ${IMAGE_LIMITS.requiredElements} required elements, up to ${IMAGE_LIMITS.exclusions} exclusions and ` +
    'what the alt text should convey. A model first writes the image prompt and the alt text, which are checked (every ' +
    'required element named, no exclusion named, alt text of ' +
    `${IMAGE_LIMITS.altTextMinLength} to ${IMAGE_LIMITS.altTextMaxLength} characters without "image of"); then the ` +
    'image model draws it, and the bytes are checked by their signature. The answer holds the image as base64 with ' +
    'its media type, byte length and SHA-256, the alt text and a summary of the prompt, as a proposal to review. ' +
    'Metered (education-generate-image, one chat call and one image): needs an Idempotency-Key; a retry with the ' +
    'same key replays the stored answer without calling the model again.',
  ...METERED_EDUCATION_OPERATION,
  input: ImageInputSchema,
  output: ImageResultSchema,
  errors: [...EDUCATION_CONTEXT_ERRORS, ...METERED_ERRORS],
  product: [
    {
      method: 'POST',
      path: `${EDUCATION_PATH}/generate-image`,
      operationId: 'generateImage',
      kind: 'service.education-image',
      capability: CAPABILITY,
      needs: 'intelligence.execute',
    },
  ],
  run: generateImage,
});

/** The image generation operation, served only by the Product Runtime. */
export const EDUCATION_IMAGE_OPERATIONS: readonly AnyOperation[] = [generateEducationImage];
