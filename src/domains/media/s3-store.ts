import { hash } from 'node:crypto';
import { KgateError } from '../../kernel/errors.ts';
import type { ByteRange, MediaStore } from './contract.ts';
import { EMPTY_PAYLOAD_SHA256, encodeS3Path, signS3Request, type S3Credentials } from './s3-signature.ts';

/** Where an S3-compatible bucket is and how kgate signs in to it (KGATE_MEDIA_S3_*). */
export interface S3StoreSettings {
  /** The service's base URL, e.g. `https://s3.eu-central-1.amazonaws.com` or `http://127.0.0.1:9000`. */
  endpoint: string;
  bucket: string;
  region: string;
  credentials: S3Credentials;
  /** Prepended to every key (e.g. `kgate/media/`); empty for none. */
  prefix: string;
  /** `path`: `<endpoint>/<bucket>/<key>` (MinIO and most compatible stores); `virtual`: `<bucket>.<endpoint host>/<key>`. */
  addressing: 'path' | 'virtual';
  /** Longest wait for one request before it is abandoned (the store then counts as unavailable). */
  timeoutMs: number;
}

/** What the store is reached with; global fetch unless a test or the composition root passes another. */
export type S3Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** The error code of an S3 error document (`<Error><Code>NoSuchKey</Code>...`), from its first 4 KiB at most. */
async function errorCodeOf(response: Response): Promise<string> {
  let text = '';
  if (response.body) {
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    while (text.length < 4096) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => undefined);
  }
  return /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1] ?? `HTTP ${response.status}`;
}

function unreachable(what: string, cause: unknown): KgateError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new KgateError('unavailable', `The media store could not ${what}; nothing was changed. Retry later.`, { reason: reason.slice(0, 200) });
}

/**
 * A response body's bytes as they pass, failing when there are more or fewer than the range holds. Not a generator:
 * a consumer that stops before the first byte (the client went away) must still let go of the connection's body,
 * and a generator that never started runs no `finally`.
 */
function exactly(body: ReadableStream<Uint8Array>, expected: number): AsyncIterableIterator<Uint8Array> {
  const reader = body.getReader();
  let seen = 0;
  const release = () => reader.cancel().catch(() => undefined);
  const iterator: AsyncIterableIterator<Uint8Array> = {
    async next() {
      const { done, value } = await reader.read();
      if (done) {
        if (seen !== expected) throw new Error(`the media store sent ${seen} of ${expected} bytes`);
        return { done: true, value: undefined };
      }
      seen += value.byteLength;
      if (seen > expected) {
        await release();
        throw new Error('the media store sent more bytes than the range holds');
      }
      return { done: false, value };
    },
    async return() {
      await release();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/**
 * Media kept in an S3-compatible object store: PutObject, GetObject with a Range, DeleteObject, each signed with
 * Signature Version 4 (s3-signature.ts). Only these three calls are made; the bucket is the operator's, private, and
 * nothing about it (URL, key, credential) ever reaches a caller.
 */
export function s3MediaStore(settings: S3StoreSettings, fetchImpl: S3Fetch = fetch): MediaStore {
  const endpoint = new URL(settings.endpoint);
  const base = endpoint.pathname.replace(/\/+$/, '');
  const host = settings.addressing === 'virtual' ? `${settings.bucket}.${endpoint.host}` : endpoint.host;
  const objectPath = (key: string) => encodeS3Path(settings.addressing === 'virtual' ? `${base}/${settings.prefix}${key}` : `${base}/${settings.bucket}/${settings.prefix}${key}`);

  async function send(method: 'GET' | 'PUT' | 'DELETE', key: string, headers: Record<string, string>, body?: Uint8Array): Promise<Response> {
    const path = objectPath(key);
    const signed = signS3Request({
      method,
      host,
      canonicalPath: path,
      headers,
      payloadHash: body ? hash('sha256', body, 'hex') : EMPTY_PAYLOAD_SHA256,
      region: settings.region,
      credentials: settings.credentials,
      now: new Date(),
    });
    // fetch sets Host itself from the URL; the signed value is the same.
    const { host: _signedHost, ...sent } = signed;
    return fetchImpl(`${endpoint.protocol}//${host}${path}`, {
      method,
      headers: sent,
      ...(body ? { body } : {}),
      signal: AbortSignal.timeout(settings.timeoutMs),
      redirect: 'error',
    });
  }

  return {
    kind: 's3',
    async put(key, bytes, contentType) {
      let response: Response;
      try {
        response = await send('PUT', key, { 'content-type': contentType, 'content-length': String(bytes.byteLength) }, bytes);
      } catch (error) {
        throw unreachable('store the upload', error);
      }
      if (!response.ok) throw unreachable('store the upload', new Error(await errorCodeOf(response)));
      await response.body?.cancel();
    },
    async get(key, range: ByteRange) {
      let response: Response;
      try {
        response = await send('GET', key, { range: `bytes=${range.start}-${range.end}` });
      } catch (error) {
        throw unreachable('read the media', error);
      }
      if (response.status === 404) {
        await response.body?.cancel();
        throw new KgateError('not_found', 'The media object is not in the store.');
      }
      const expected = range.end - range.start + 1;
      // 206 with the range; a store may answer 200 with the whole object only when the range is all of it.
      const whole = response.status === 200 && range.start === 0 && Number(response.headers.get('content-length')) === expected;
      if (response.status !== 206 && !whole) throw unreachable('read the media', new Error(await errorCodeOf(response)));
      if (!response.body) throw unreachable('read the media', new Error('no body'));
      return exactly(response.body as ReadableStream<Uint8Array>, expected);
    },
    async delete(key) {
      let response: Response;
      try {
        response = await send('DELETE', key, {});
      } catch (error) {
        throw unreachable('delete the media', error);
      }
      await response.body?.cancel();
      if (!response.ok && response.status !== 404) throw unreachable('delete the media', new Error(`HTTP ${response.status}`));
    },
  };
}
