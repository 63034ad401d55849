import { isUtf8 } from 'node:buffer';
import { Readable } from 'node:stream';
import { KgateError } from '../../kernel/errors.ts';

/** A request body as it arrives: Node's request, or a web stream (Hono); chunks of bytes. */
export type BodySource = AsyncIterable<Uint8Array>;

function tooLarge(maxBytes: number): KgateError {
  return new KgateError('payload_too_large', `The request body is larger than ${maxBytes} bytes.`, { limit: maxBytes });
}

/**
 * True when a request carries a body at all: HTTP/1.1 frames a request body only with Content-Length or
 * Transfer-Encoding (RFC 9112 s6.3), so a request with neither has none, whatever its method.
 */
export function hasBody(contentLength: string | undefined, transferEncoding: string | undefined): boolean {
  return transferEncoding !== undefined || (contentLength !== undefined && contentLength !== '0');
}

/** True when a declared Content-Length already exceeds the bound, so the body need not be read at all. */
function declaresTooLarge(contentLength: string | undefined, maxBytes: number): boolean {
  const declared = Number(contentLength);
  return contentLength !== undefined && Number.isFinite(declared) && declared > maxBytes;
}

/**
 * Reads a request body of at most `maxBytes`: one reader for every surface. A declared or actual size over the
 * bound throws `payload_too_large` without reading the rest; the stream is left unfinished (not destroyed), so the
 * caller can still answer on the connection and then close it.
 */
export async function readBody(source: BodySource | null, contentLength: string | undefined, maxBytes: number): Promise<Buffer> {
  if (declaresTooLarge(contentLength, maxBytes)) throw tooLarge(maxBytes);
  if (!source) return Buffer.alloc(0);
  if (source instanceof Readable) return readNodeStream(source, maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  // Not `for await`: leaving that loop early would destroy the stream, and with it the socket of the answer.
  const iterator = source[Symbol.asyncIterator]();
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    size += next.value.byteLength;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value.buffer, next.value.byteOffset, next.value.byteLength));
  }
  return concat(chunks, size);
}

function concat(chunks: Buffer[], size: number): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/**
 * Node's request, read with its events: on the hot path (every MCP call) this costs a fraction of an async
 * iterator's promise per chunk. Over the bound, reading stops and the stream is paused, not destroyed.
 */
function readNodeStream(stream: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stream.off('data', onData);
        stream.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    // `on`, not `once`: the stream ends or fails once anyway, and `once` wraps each listener in another closure.
    stream.on('data', onData);
    stream.on('end', () => resolve(concat(chunks, size)));
    stream.on('error', reject);
  });
}

/**
 * The text of a body that must be UTF-8 (RFC 8259 s8.1 for JSON). Invalid bytes are refused with `invalid_encoding`
 * rather than silently replaced by U+FFFD, which would store something the client never sent. A leading byte
 * order mark is dropped, as the WHATWG decoder does.
 */
export function utf8Text(bytes: Buffer): string {
  if (!isUtf8(bytes)) throw new KgateError('invalid_encoding', 'The request body is not valid UTF-8.');
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses a UTF-8 JSON body: `invalid_encoding` for bad bytes, `invalid_request` for text that is not JSON. */
export function parseJsonBody(bytes: Buffer): unknown {
  const text = utf8Text(bytes);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new KgateError('invalid_request', 'The body is not valid JSON.', { reason: 'json' });
  }
}
