import type { Context, Handler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { MAX_AUDIO_BYTES, type MediaPart } from '../../domains/media/index.ts';
import { RUNTIME_VERSION } from '../../domains/runtime/index.ts';
import { hasBody, readBody } from '../http/body.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Invocation } from '../invocation/pipeline.ts';
import { PRODUCT_SURFACE } from '../invocation/surface.ts';
import { authenticateProduct } from './auth.ts';
import { refuseClaimedAuthority } from './bind.ts';
import { PROBLEM_KIND, RUNTIME_VERSION_HEADER, operationReceipt, sendEnvelope, sendProblem, type Receipt } from './envelope.ts';
import { requireScope, type ProductHandlerDependencies } from './handler.ts';
import { entityTagOf, ifRangeSha256Of, parseRange } from './media-range.ts';
import type { ProductRoute } from './routes.ts';

/** The header that carries the product's opaque media reference on an upload. */
export const MEDIA_REFERENCE_HEADER = 'X-Service-Media-Reference';
/** The header that carries an upload's declared duration, in seconds (at most three decimals). */
export const MEDIA_DURATION_HEADER = 'X-Service-Media-Duration';

// Seconds with at most millisecond precision; anything else reaches the input as text and is refused there.
const DURATION = /^\d{1,6}(?:\.\d{1,3})?$/;

/** The facts a download answer is made of (readAudio's output). */
interface DownloadOutput {
  media: { sha256: string; bytes: number; contentType: string };
  part: MediaPart;
  content?: AsyncIterable<Uint8Array>;
}

/** The operation receipt of a metered call, for its envelope. */
function receiptsOf(c: Context<HttpEnv>, invocation: Invocation): Receipt[] {
  return invocation.runtimeReservation ? [operationReceipt(c.get('requestId') ?? '', invocation.runtimeReservation)] : [];
}

/** A failed invocation as its V1 envelope; `unavailable` is an answer, not a failure (DESIGN.md principle 4). */
function sendFailure(c: Context<HttpEnv>, route: ProductRoute, invocation: Invocation & { ok: false }): Response {
  const receipts = receiptsOf(c, invocation);
  const { error } = invocation;
  if (error.code === 'unavailable') {
    const problem = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
    return sendEnvelope(c, { kind: route.binding.kind, status: 'unavailable', data: null, receipts, problems: [problem] });
  }
  return sendProblem(c, error, receipts);
}

/** Links 1 to 9 of the chain, before anything is read or reserved: who calls, and with the scope the route needs. */
async function authorize(c: Context<HttpEnv>, route: ProductRoute, deps: ProductHandlerDependencies) {
  const principal = await authenticateProduct(deps, c.req.header('authorization'));
  c.set('principal', principal);
  refuseClaimedAuthority(c, undefined);
  requireScope(principal.runtime!, route.binding.needs);
  return principal;
}

/**
 * An upload: the raw body is the audio (no JSON, no multipart), its facts in headers. A declared size past the
 * bound is refused before anything else, as the JSON routes refuse theirs; the body is read, bounded, only once the
 * caller is known to hold the scope, and before the operation is reserved, so that neither consumes anything.
 */
function uploadHandler(route: ProductRoute, deps: ProductHandlerDependencies): Handler<HttpEnv> {
  return async (c) => {
    const contentLength = c.req.header('content-length');
    try {
      if (Number(contentLength) > MAX_AUDIO_BYTES) throw new KgateError('payload_too_large', `Audio is at most ${MAX_AUDIO_BYTES} bytes.`, { limit: MAX_AUDIO_BYTES });
      const principal = await authorize(c, route, deps);
      const body = hasBody(contentLength, c.req.header('transfer-encoding')) ? await readBody(c.env?.incoming ?? c.req.raw.body, contentLength, MAX_AUDIO_BYTES) : Buffer.alloc(0);
      const duration = c.req.header(MEDIA_DURATION_HEADER)?.trim();
      const input = {
        reference: c.req.header(MEDIA_REFERENCE_HEADER),
        durationSeconds: duration !== undefined && DURATION.test(duration) ? Number(duration) : duration,
        contentType: c.req.header('content-type'),
        sha256: sha256Hex(body),
        bytes: body.byteLength,
      };
      const invocation = await deps.pipeline.invoke({
        surface: PRODUCT_SURFACE,
        principal,
        operation: route.operation,
        // Absent headers stay absent, so that the input's schema names what is missing.
        readInput: () => Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)),
        idempotencyKey: { value: c.req.header('idempotency-key'), required: false },
        runtime: { principal: principal.runtime!, upload: body },
      });
      if (invocation.replayed) c.header('Idempotent-Replayed', 'true');
      if (!invocation.ok) return sendFailure(c, route, invocation);
      return sendEnvelope(c, { kind: route.binding.kind, status: 'ok', data: invocation.output, receipts: receiptsOf(c, invocation), problems: [] });
    } catch (error) {
      // The rest of an oversized body is not read: the connection cannot carry another request.
      if (error instanceof KgateError && error.code === 'payload_too_large') c.header('Connection', 'close');
      throw error;
    }
  };
}

/** The bytes of an opened read as a web stream; a client that goes away stops the read at the store. */
function streamOf(content: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> {
  const iterator = content[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

/**
 * A download: the one Product Runtime answer that is not an envelope. Success is the bytes themselves (200, or 206
 * for a range) with the runtime version header, Accept-Ranges, ETag = the SHA-256 and the media type of the
 * container; every refusal, and a range past the end (416), is a V1 envelope as on every other route.
 */
function downloadHandler(route: ProductRoute, deps: ProductHandlerDependencies): Handler<HttpEnv> {
  return async (c) => {
    const principal = await authorize(c, route, deps);
    const range = parseRange(c.req.header('range'));
    const ifRangeSha256 = range ? ifRangeSha256Of(c.req.header('if-range')) : undefined;
    const invocation = await deps.pipeline.invoke({
      surface: PRODUCT_SURFACE,
      principal,
      operation: route.operation,
      readInput: () => ({ mediaId: c.req.param('mediaId'), ...(range ? { range } : {}), ...(ifRangeSha256 !== undefined ? { ifRangeSha256 } : {}) }),
      idempotencyKey: { value: undefined, required: false },
      runtime: { principal: principal.runtime! },
    });
    if (!invocation.ok) return sendFailure(c, route, invocation);
    const { media, part, content } = invocation.output as unknown as DownloadOutput;
    c.header('Accept-Ranges', 'bytes');
    c.header('ETag', entityTagOf(media.sha256));
    if (part.kind === 'unsatisfiable') {
      c.header('Content-Range', `bytes */${media.bytes}`);
      const problem = {
        code: 'invalid_request' as const,
        message: `The range starts past the end of the media (${media.bytes} bytes).`,
        details: { reason: 'range_not_satisfiable', size: media.bytes },
      };
      return sendEnvelope(c, { kind: PROBLEM_KIND, status: 'error', data: null, receipts: receiptsOf(c, invocation), problems: [problem] }, 416);
    }
    const { start, end } = part.range;
    c.header(RUNTIME_VERSION_HEADER, String(RUNTIME_VERSION));
    c.header('Cache-Control', 'private, no-store');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Content-Type', media.contentType);
    c.header('Content-Length', String(end - start + 1));
    if (part.kind === 'partial') c.header('Content-Range', `bytes ${start}-${end}/${media.bytes}`);
    const status = part.kind === 'partial' ? 206 : 200;
    // HEAD is routed here as GET (Hono): the headers, and the opened read let go of at once.
    if (c.req.method === 'HEAD') {
      await content![Symbol.asyncIterator]().return?.();
      return c.body(null, status);
    }
    return c.body(streamOf(content!), status);
  };
}

/** The handler of a route that carries bytes (ProductBinding.binary): an upload or a download. */
export function productMediaHandler(route: ProductRoute, deps: ProductHandlerDependencies): Handler<HttpEnv> {
  return route.binding.binary === 'upload' ? uploadHandler(route, deps) : downloadHandler(route, deps);
}
