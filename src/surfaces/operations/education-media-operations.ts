import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import {
  MAX_AUDIO_BYTES,
  MAX_AUDIO_DURATION_SECONDS,
  MAX_MEDIA_REFERENCE_LENGTH,
  MediaReferenceSchema,
  type MediaOwner,
  type MediaService,
  type StagedMedia,
  type StoredMedia,
} from '../../domains/media/index.ts';
import { DEFAULT_MEDIA_STORAGE_BYTES, type RuntimePrincipal } from '../../domains/runtime/index.ts';
import { RUNTIME_CREDENTIALS, defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

const MEDIA = '/api/product/v1/intelligence/education/media';
const SHA256 = /^[0-9a-f]{64}$/;

/** A stored media object as answered: never a URL, a storage key or a storage credential (spec 4.7). */
const StoredMediaSchema = z.object({
  mediaId: z.uuid().describe('The id to read it back with (GET .../media/{mediaId})'),
  sha256: z.string().regex(SHA256).describe('SHA-256 of the stored bytes, lowercase hex; also the download\'s ETag'),
  bytes: z.number().int().describe('Size in bytes'),
  durationSeconds: z.number().describe('The duration you declared (not decoded: spec 8 rule 5)'),
  reference: z.string().describe('Your opaque media reference, as you sent it'),
  contentType: z.string().describe('audio/webm, audio/ogg or audio/mp4, by the container\'s signature'),
  createdAt: z.iso.datetime(),
});

function presentMedia(media: StoredMedia): z.input<typeof StoredMediaSchema> {
  const { mediaId, sha256, bytes, durationSeconds, reference, contentType, createdAt } = media;
  return { mediaId, sha256, bytes, durationSeconds, reference, contentType, createdAt: createdAt.toISOString() };
}

/** The media service, or an explicit `unavailable` on a gateway built without one. */
function mediaOf(ctx: OperationContext): MediaService {
  if (!ctx.services.media) throw new KgateError('unavailable', 'Private media is not available on this server.', { capability: 'media' });
  return ctx.services.media;
}

/** The chain as the Product Runtime resolved it; these operations run nowhere else. */
function principalOf(ctx: OperationContext): RuntimePrincipal {
  if (!ctx.runtime) throw new KgateError('forbidden', 'This operation is served only by the Product Runtime.');
  return ctx.runtime.principal;
}

function ownerOf(principal: RuntimePrincipal): MediaOwner {
  return { organizationId: principal.organization.id, installationId: principal.installationId, principalId: principal.principalId };
}

/**
 * storeAudio: one private audio file, as the raw request body. Its input is what identifies the request for its
 * idempotency key: the declared facts from the headers and the body's size and SHA-256 (the bytes themselves travel
 * beside the input, RuntimeCallContext.upload), so a retry with other bytes under the same key is `idempotency_key_reused`.
 */
const storeAudio = defineOperation({
  id: 'storeAudio',
  summary: 'Store private audio',
  description:
    'Stores one audio recording privately for your installation: the raw bytes as the request body (WebM, Ogg or MP4, ' +
    `at most ${MAX_AUDIO_BYTES} bytes, checked by their container signature whatever Content-Type says), your opaque ` +
    `reference in X-Service-Media-Reference (1 to ${MAX_MEDIA_REFERENCE_LENGTH} visible ASCII characters) and the declared ` +
    `duration in seconds in X-Service-Media-Duration (at most ${MAX_AUDIO_DURATION_SECONDS}). Idempotency-Key is required: ` +
    'a retry replays the answer, another request under the same key is refused. The bytes count against your ' +
    "organization's mediaStorageBytes ceiling. Answers the media id and SHA-256, never a URL or storage credential.",
  tags: ['runtime', 'education', 'media'],
  input: z.strictObject({
    reference: MediaReferenceSchema.describe('X-Service-Media-Reference'),
    durationSeconds: z.number({ error: 'send the declared duration in seconds in X-Service-Media-Duration' }).describe('X-Service-Media-Duration'),
    // Absent is not a malformed request but an unsupported type: refused as media_type_unsupported by the domain.
    contentType: z.string().max(200).default('').describe('Content-Type'),
    sha256: z.string().regex(SHA256).describe('SHA-256 of the body (computed by the server)'),
    bytes: z.number().int().min(0).max(MAX_AUDIO_BYTES).describe('Size of the body (computed by the server)'),
  }),
  output: StoredMediaSchema,
  errors: ['invalid_request', 'payload_too_large', 'media_type_unsupported', 'media_duration_exceeded', 'media_storage_exhausted', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_flight', 'unavailable'],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'always',
  product: [
    { method: 'POST', path: `${MEDIA}/audio`, operationId: 'storeAudio', kind: 'service.media', capability: 'media.audio.store', needs: 'media.write', binary: 'upload' },
  ],
  // Once the key is claimed and outside any transaction: checked, reserved, and the bytes stored (an object store's
  // write must not hold a database transaction open).
  async stage(ctx, input) {
    const principal = principalOf(ctx);
    const bytes = ctx.runtime?.upload;
    if (!bytes || bytes.byteLength !== input.bytes) throw new Error('storeAudio runs only with the body its input describes');
    const ceiling = principal.organization.settings.mediaStorageBytes ?? DEFAULT_MEDIA_STORAGE_BYTES;
    const staged = await mediaOf(ctx).stage(ownerOf(principal), ceiling, {
      reference: input.reference,
      durationSeconds: input.durationSeconds,
      contentType: input.contentType,
      bytes,
    });
    if (staged.sha256 !== input.sha256) throw new Error('the stored bytes are not those of the request');
    return staged;
  },
  // In the transaction that stores the answer under the key: the object becomes readable exactly when its answer exists.
  async run(ctx) {
    if (!ctx.commit) throw new Error('storeAudio runs only with its idempotent commit');
    return presentMedia(await mediaOf(ctx).commit(ctx.commit.sql, ctx.commit.staged as StagedMedia));
  },
});

/** A Range as the surface parsed it (RFC 9110 section 14.1.2): `bytes=start-[end]` or `bytes=-suffix`. */
const RequestedRangeSchema = z.union([
  z.strictObject({ start: z.number().int().min(0), end: z.number().int().min(0).optional() }),
  z.strictObject({ suffix: z.number().int().min(0) }),
]);

const ByteRangeSchema = z.object({ start: z.number().int(), end: z.number().int() });

/** readAudio: the stored bytes, to the same organization and installation only. */
const readAudio = defineOperation({
  id: 'readAudio',
  summary: 'Read private audio',
  description:
    'Streams a stored recording of your installation: the whole of it (200), or one byte range of it (206, Range: ' +
    'bytes=start-end, bytes=start- or bytes=-suffix; If-Range honoured); a range past its end is 416. The ETag is its ' +
    'SHA-256. Media of another installation or organization answers not_found, exactly as an unknown id does. The ' +
    'answer is the bytes themselves; a refusal is a V1 envelope.',
  tags: ['runtime', 'education', 'media'],
  input: z.strictObject({
    mediaId: z.string().min(1).max(100),
    range: RequestedRangeSchema.optional(),
    ifRangeSha256: z.string().max(64).optional(),
  }),
  output: z.object({
    media: StoredMediaSchema,
    part: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('whole'), range: ByteRangeSchema }),
      z.object({ kind: z.literal('partial'), range: ByteRangeSchema }),
      z.object({ kind: z.literal('unsatisfiable') }),
    ]),
    // Passed through as it is: the surface streams it, and it never reaches JSON.
    content: z.custom<AsyncIterable<Uint8Array>>((value) => typeof value === 'object' && value !== null && Symbol.asyncIterator in value).optional(),
  }),
  errors: ['not_found', 'unavailable'],
  credentials: RUNTIME_CREDENTIALS,
  scope: 'runtime',
  allowance: 'operation',
  idempotency: 'none',
  product: [
    { method: 'GET', path: `${MEDIA}/{mediaId}`, operationId: 'readAudio', kind: 'service.media', capability: 'media.audio.read', needs: 'media.read', binary: 'download' },
  ],
  async run(ctx, input) {
    const read = await mediaOf(ctx).read(ownerOf(principalOf(ctx)), input.mediaId, input.range, input.ifRangeSha256);
    return { media: presentMedia(read.media), part: read.part, ...(read.content ? { content: read.content } : {}) };
  },
});

/** The private media operations (docs/education.md, "Private audio media"), served only by the Product Runtime. */
export const EDUCATION_MEDIA_OPERATIONS: readonly AnyOperation[] = [storeAudio, readAudio];
