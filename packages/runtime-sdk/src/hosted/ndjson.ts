/**
 * An incremental reader of newline-delimited JSON (NDJSON): each line is parsed as soon as its newline arrives, so
 * that a streamed answer's events reach the caller while the server is still writing. A line is bounded in bytes
 * (a server that never ends a line cannot make the reader hold an unbounded buffer), and a consumer that stops early
 * cancels the body, which closes the connection.
 */
import { RuntimeTransportError } from '../errors.js';

const NEWLINE = 0x0a;

/** Where the lines come from, for the errors' `path` and `attempts`, and the signals that end the reading. */
export interface NdjsonSource {
  body: ReadableStream<Uint8Array>;
  /** The longest line accepted, in bytes (without its newline). */
  maxLineBytes: number;
  path: string;
  attempts: number;
  /** The caller's signal: a read it breaks is `aborted`. */
  signal?: AbortSignal | undefined;
  /** The attempt's timeout: a read it breaks is `timeout`. */
  timeout?: AbortSignal | undefined;
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** Yields each line's JSON value in order (blank lines skipped). Throws RuntimeTransportError; never yields a partial line. */
export async function* ndjsonValues(source: NdjsonSource): AsyncGenerator<unknown, void, undefined> {
  const { path, attempts } = source;
  const reader = source.body.getReader();
  const decoder = new TextDecoder('utf-8');
  // The bytes of the line being read, in the chunks they came in, not joined until the newline arrives.
  let pending: Uint8Array[] = [];
  let pendingSize = 0;
  const parse = (bytes: Uint8Array): unknown => {
    const text = decoder.decode(bytes).replace(/\r$/, '');
    if (text.trim() === '') return undefined;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new RuntimeTransportError('stream_interrupted', `The stream of ${path} sent a line that is not JSON.`, { attempts, path });
    }
  };
  const tooLong = () => new RuntimeTransportError('response_too_large', `A line of the stream of ${path} is longer than ${source.maxLineBytes} bytes.`, { attempts, path });
  let finished = false;
  try {
    for (;;) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (source.signal?.aborted) throw new RuntimeTransportError('aborted', `The stream of ${path} was aborted.`, { attempts, path, cause: source.signal.reason });
        if (source.timeout?.aborted) throw new RuntimeTransportError('timeout', `The stream of ${path} did not end in time.`, { attempts, path, cause: error });
        throw new RuntimeTransportError('body_read_failed', `The connection broke while reading the stream of ${path}.`, { attempts, path, cause: error });
      }
      if (chunk.done) break;
      let data = chunk.value;
      for (let newline = data.indexOf(NEWLINE); newline !== -1; newline = data.indexOf(NEWLINE)) {
        if (pendingSize + newline > source.maxLineBytes) throw tooLong();
        pending.push(data.subarray(0, newline));
        const value = parse(concat(pending, pendingSize + newline));
        pending = [];
        pendingSize = 0;
        data = data.subarray(newline + 1);
        if (value !== undefined) yield value;
      }
      if (pendingSize + data.byteLength > source.maxLineBytes) throw tooLong();
      if (data.byteLength > 0) {
        // Copied: the stream may reuse the chunk's buffer once it is read.
        pending.push(data.slice());
        pendingSize += data.byteLength;
      }
    }
    finished = true;
    // A last line without its newline still counts.
    if (pendingSize > 0) {
      const value = parse(concat(pending, pendingSize));
      if (value !== undefined) yield value;
    }
  } finally {
    // Stopped early (a `break`, an error, an abort): cancelling the body closes the connection, which the server
    // takes as the client going away.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
