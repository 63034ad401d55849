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
import { ModelError, meteredCallerOf, type ModelsService } from '../../domains/models/index.ts';
import type { RuntimePrincipal } from '../../domains/runtime/index.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { RUNTIME_CREDENTIALS, defineOperation, type AnyOperation, type OperationContext, type RuntimeCallContext } from './operation.ts';

/** Where the education endpoints live (spec 4.7). */
const EDUCATION_PATH = '/api/product/v1/intelligence/education';
const CAPABILITY = 'education.generate-image';

const REVIEW_NOTE =
  'A proposed image for an educator to review before classroom use: check that it shows every required element, none of the exclusions, and that the alt text fits.';

/** The codes of a metered education call (spec 8 rule 4; docs/budgets.md), besides the request's own. */
export const METERED_EDUCATION_ERRORS = [
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
  'intelligence_budget_unset',
  'intelligence_budget_exhausted',
  'intelligence_concurrency_exhausted',
  'model_unavailable',
  'model_timeout',
  'model_interrupted',
  'model_output_invalid',
  'unavailable',
] as const satisfies readonly ErrorCode[];

/** The metered runner, when a model is configured. */
function modelsOf(ctx: OperationContext, capability: string): ModelsService {
  const models = ctx.services.models;
  if (!models?.available) throw new KgateError('unavailable', 'No model is configured for this service.', { capability });
  return models;
}

/** The Product Runtime's chain of this call. */
export function chainOf(ctx: OperationContext): RuntimeCallContext & { principal: RuntimePrincipal } {
  if (!ctx.runtime) throw new KgateError('forbidden', 'This operation is served only by the Product Runtime.');
  return ctx.runtime;
}

/** JSON with object keys sorted, so that the same request always has the same fingerprint. */
export function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => `${JSON.stringify(k)}:${sortedJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The metered runner, the chain and the idempotency key of a metered education call, each checked. */
export function meteredCallOf(ctx: OperationContext, capability: string): { models: ModelsService; call: RuntimeCallContext & { principal: RuntimePrincipal }; key: string } {
  const models = modelsOf(ctx, capability);
  const call = chainOf(ctx);
  const key = ctx.idempotencyKey;
  if (key === undefined) throw new KgateError('idempotency_key_required', 'A metered call needs an Idempotency-Key header.');
  return { models, call, key };
}

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
  const { models, call, key } = meteredCallOf(ctx, CAPABILITY);
  // The image model is checked before anything is reserved: without it the chat call would be charged for nothing.
  if (!models.identity?.imageModel) throw new KgateError('unavailable', 'No image model is configured for this service.', { capability: CAPABILITY });
  const chat = imagePlanPrompt(input);
  const result = await models.runMetered<ImageResult>({
    caller: meteredCallerOf(call.principal),
    kind: 'education-generate-image',
    key,
    fingerprint: sha256Hex(sortedJson({ operation: 'generateEducationImage', input })),
    requestId: call.requestId ?? '',
    bound: { inputTokens: inputTokenBound(chat.messages), outputTokens: chat.maxOutputTokens, images: 1 },
    signal: call.signal ?? new AbortController().signal,
    onReceipt: (receipt) => call.receipts?.push({ ...receipt }),
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
  tags: ['runtime', 'education'],
  input: ImageInputSchema,
  output: ImageResultSchema,
  errors: [...EDUCATION_CONTEXT_ERRORS, ...METERED_EDUCATION_ERRORS],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'metered',
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
