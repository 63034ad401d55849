/**
 * The timed HTTP client of the generation benchmark: one request over node:http, with the moments that matter taken
 * on this process's clock from just before the request is written: the response headers, the first body byte, each
 * complete line of the body (for NDJSON events and SSE chunks), and the end. node:http rather than fetch, so that the
 * same thin client times the gateway and the fake model alike, and a line is timed when its bytes arrive, not when a
 * stream reader gets round to it.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** One timed exchange. */
export interface TimedExchange {
  status: number;
  headers: IncomingHttpHeaders;
  /** Milliseconds from the start to the response headers. */
  headersMs: number;
  /** To the first body byte (the headers' time for an empty body). */
  firstByteMs: number;
  /** To the end of the body. */
  totalMs: number;
  bytes: number;
  /** The body, when asked for (`keepBody`). */
  body: string;
}

/** What to send. */
export interface TimedRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** A keep-alive agent to reuse connections; undefined: a new connection per request (as kgate's model client does). */
  agent?: Agent;
  keepBody?: boolean;
  /** Told each complete line of the body (without its newline) and when it arrived. */
  onLine?: (line: string, atMs: number) => void;
}

/** A keep-alive agent for `sockets` concurrent exchanges. */
export function keepAliveAgent(sockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets });
}

/** Sends one request and times it; rejects on a transport failure, never on an HTTP status. */
export function timedRequest(r: TimedRequest): Promise<TimedExchange> {
  return new Promise((resolve, reject) => {
    const url = new URL(r.url);
    const body = r.body === undefined ? undefined : Buffer.from(r.body, 'utf8');
    const headers: Record<string, string> = { ...r.headers, ...(body ? { 'content-length': String(body.byteLength) } : {}) };
    const started = performance.now();
    const req = httpRequest(
      { method: r.method, hostname: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers, agent: r.agent ?? false },
      (res) => {
        const headersMs = performance.now() - started;
        let firstByteMs: number | undefined;
        let bytes = 0;
        const kept: Buffer[] = [];
        let partial = '';
        res.on('data', (chunk: Buffer) => {
          const at = performance.now() - started;
          firstByteMs ??= at;
          bytes += chunk.byteLength;
          if (r.keepBody) kept.push(chunk);
          if (r.onLine) {
            const lines = (partial + chunk.toString('utf8')).split('\n');
            partial = lines.pop() ?? '';
            for (const line of lines) r.onLine(line, at);
          }
        });
        res.on('error', reject);
        res.on('end', () => {
          const totalMs = performance.now() - started;
          if (r.onLine && partial !== '') r.onLine(partial, totalMs);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            headersMs,
            firstByteMs: firstByteMs ?? headersMs,
            totalMs,
            bytes,
            body: r.keepBody ? Buffer.concat(kept).toString('utf8') : '',
          });
        });
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`${r.method} ${url.pathname}: no answer in 60 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `count` calls of `call` with `concurrency` of them in flight at a time; answers the results in call order. */
export async function inParallel<T>(count: number, concurrency: number, call: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next;
      next += 1;
      results[index] = await call(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}
