/**
 * One HTTP exchange of the hosted adapter with bounded retries: only 429 (except an exhausted monthly allowance or
 * intelligence budget), 503 and failures before any response are retried, with exponential backoff and full jitter,
 * honouring Retry-After. Each attempt has its own timeout, and an answer is read up to a size bound; a streamed
 * answer (NDJSON) is handed back unread, for the caller to read as it arrives.
 */
import { RuntimeTransportError } from '../errors.js';

/** How the transport behaves; defaults come from createHostedRuntime. */
export interface TransportSettings {
  fetch: typeof globalThis.fetch;
  /** Retries after the first attempt. */
  retries: number;
  timeoutMs: number;
  maxResponseBytes: number;
  /** First backoff step; doubles per retry. */
  baseDelayMs: number;
  /** Largest backoff step. */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the answer is returned as it is. */
  maxRetryAfterMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

/** One request, made anew for each attempt (a client assertion, for example, is used once). */
export interface OutgoingRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** What the server answered. `json` is undefined when the body is not JSON, or when it is a stream (`stream`). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  json: unknown;
  /** A streamed answer's body, unread: the caller reads it (and cancels it when done). */
  stream?: { body: ReadableStream<Uint8Array>; timeout: AbortSignal; attempts: number; path: string };
}

/** Sleeps `ms` milliseconds. */
export function sleepFor(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Retry-After in milliseconds (delay-seconds or an HTTP date), or undefined. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function problemCode(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const problems = (json as { problems?: unknown }).problems;
  const first: unknown = Array.isArray(problems) ? problems[0] : undefined;
  const code = typeof first === 'object' && first !== null ? (first as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** 429 refusals that stay for the rest of the month: a month's allowance or budget does not come back in seconds. */
const MONTHLY_REFUSALS: ReadonlySet<string> = new Set(['runtime_operations_exhausted', 'intelligence_budget_exhausted']);

/**
 * Whether an answer is worth another attempt: the server asks to come back, not a refusal that stays. For a metered
 * call this holds too: a 503 (`model_unavailable`) released its reservation and frees the key, a 429
 * (`intelligence_concurrency_exhausted`) reserved nothing; a billable failure (502, 504) is not retried, since the
 * same key would only replay it. An `unavailable` envelope (HTTP 200) is an answer, never retried.
 */
function retryable(answer: HttpAnswer): boolean {
  if (answer.status === 503) return true;
  const code = problemCode(answer.json);
  return answer.status === 429 && (code === undefined || !MONTHLY_REFUSALS.has(code));
}

async function readBounded(response: Response, limit: number, path: string, attempts: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const tooLarge = () => new RuntimeTransportError('response_too_large', `The answer to ${path} is larger than ${limit} bytes.`, { attempts, path });
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  // Typed here: the fetch types of @types/node leave the chunks of a body as any.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge();
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof RuntimeTransportError) throw error;
    throw new RuntimeTransportError('body_read_failed', `The connection broke while reading the answer to ${path}.`, { attempts, path, cause: error });
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

/**
 * Sends `make()` until an answer that is not retryable, or the retries are spent (then the last answer is returned,
 * or a RuntimeTransportError when none came). A 200 answer that `streamed` accepts is returned unread as `stream`;
 * the attempt's timeout and the caller's signal keep bounding its reading.
 */
export async function exchange(
  settings: TransportSettings,
  make: () => OutgoingRequest,
  signal?: AbortSignal,
  streamed?: (response: Response) => boolean,
): Promise<HttpAnswer> {
  let failure: { reason: 'network' | 'timeout'; cause: unknown } | undefined;
  let path = '';
  for (let attempt = 0; ; attempt += 1) {
    const request = make();
    path = new URL(request.url).pathname;
    const attempts = attempt + 1;
    const timeout = AbortSignal.timeout(settings.timeoutMs);
    let response: Response | undefined;
    try {
      response = await settings.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined ? { body: request.body } : {}),
        redirect: 'error',
        signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
      });
    } catch (error) {
      if (signal?.aborted) throw new RuntimeTransportError('aborted', `The call to ${path} was aborted.`, { attempts, path, cause: signal.reason });
      failure = { reason: timeout.aborted ? 'timeout' : 'network', cause: error };
    }
    let delay: number | undefined;
    if (response?.status === 200 && response.body && streamed?.(response)) {
      return { status: 200, headers: response.headers, json: undefined, stream: { body: response.body as ReadableStream<Uint8Array>, timeout, attempts, path } };
    }
    if (response) {
      const text = await readBounded(response, settings.maxResponseBytes, path, attempts);
      let json: unknown;
      try {
        json = text === '' ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      const answer: HttpAnswer = { status: response.status, headers: response.headers, json };
      if (attempt >= settings.retries || !retryable(answer)) return answer;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > settings.maxRetryAfterMs) return answer;
      // Retry-After is a floor; the jitter keeps many clients from coming back at the same instant.
      if (asked !== undefined) delay = asked + settings.random() * settings.baseDelayMs;
    } else if (attempt >= settings.retries) {
      const reason = failure?.reason ?? 'network';
      throw new RuntimeTransportError(reason, `No answer from ${path} after ${attempts} attempt(s) (${reason}).`, { attempts, path, cause: failure?.cause });
    }
    delay ??= settings.random() * Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** attempt);
    await settings.sleep(delay);
    if (signal?.aborted) throw new RuntimeTransportError('aborted', `The call to ${path} was aborted.`, { attempts, path, cause: signal.reason });
  }
}
