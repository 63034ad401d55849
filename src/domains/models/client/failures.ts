import { ModelError, type TokenUsage } from '../contract.ts';
import type { CallScope } from './scope.ts';
import { TransportFailure } from './transport.ts';

/**
 * How a failed model call is classified (docs/models.md, "Failures"): the stable code the caller answers with, and
 * whether the provider accepted the request, which decides what the ledger does with the reservation.
 */

/** A refusal worth another attempt: the request was certainly not accepted (not sent, or 429/503). */
export class RetryableRefusal extends Error {
  override readonly name = 'RetryableRefusal';

  constructor(
    readonly error: ModelError,
    /** The provider's Retry-After, in milliseconds, when it sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(error.message);
  }
}

/** A failure before the answer's headers arrived. */
export function beforeAnswer(failure: unknown, scope: CallScope): ModelError | RetryableRefusal {
  if (!(failure instanceof TransportFailure)) return new ModelError('model_unavailable', 'The model could not be reached.', 'no');
  if (failure.reason === 'blocked') return new ModelError('model_unavailable', `The model is not reachable by policy: ${failure.message}.`, 'no');
  if (failure.reason === 'aborted' || scope.reason !== undefined) {
    if (scope.reason === 'caller') {
      return failure.sent
        ? new ModelError('model_interrupted', 'The call was stopped after the request was sent.', 'yes')
        : new ModelError('model_interrupted', 'The call was stopped before the request was sent.', 'no');
    }
    return failure.sent
      ? new ModelError('model_timeout', 'The model did not answer in time.', 'unknown')
      : new ModelError('model_unavailable', 'The model did not take the request in time.', 'no');
  }
  if (failure.reason === 'connect_timeout') return new RetryableRefusal(new ModelError('model_unavailable', 'The model did not take the request in time.', 'no'));
  if (failure.sent) return new ModelError('model_interrupted', `The connection to the model was lost after the request was sent (${failure.message}).`, 'unknown');
  return new RetryableRefusal(new ModelError('model_unavailable', `The model could not be reached (${failure.message}).`, 'no'));
}

/** A failure while a successful answer was being read: accepted, so billable. */
export function duringAnswer(scope: CallScope, usage: TokenUsage | undefined, what = 'answer'): ModelError {
  if (scope.reason === 'deadline') return new ModelError('model_timeout', `The model did not finish its ${what} in time.`, 'unknown', usage);
  if (scope.reason === 'caller') return new ModelError('model_interrupted', `The call was stopped while the model was answering.`, 'yes', usage);
  return new ModelError('model_interrupted', `The connection to the model was lost during its ${what}.`, 'yes', usage);
}

/** A successful answer that is not what the API promises. */
export function invalidOutput(reason: string, usage?: TokenUsage): ModelError {
  return new ModelError('model_output_invalid', `The model's answer is not valid: ${reason}.`, 'yes', usage);
}

const MAX_SUMMARY = 160;

/**
 * An error answer (before any output): model_unavailable, not accepted, but for a proxy's 502 and 504 (ambiguous);
 * 429 and 503 may be tried again. The message
 * quotes at most a short, cleaned line of the provider's own message, never for 401/403 (about the operator's key).
 */
export function errorAnswer(status: number, body: Buffer, headers: Record<string, string | string[] | undefined>, apiKey: string | undefined): ModelError | RetryableRefusal {
  const providerRequestId = headerOf(headers, 'x-request-id');
  const details = { status, ...(providerRequestId === undefined ? {} : { providerRequestId: providerRequestId.slice(0, 128) }) };
  if (status === 401 || status === 403) {
    return new ModelError('model_unavailable', `The model refused the operator's credentials (HTTP ${status}); check KGATE_MODEL_API_KEY.`, 'no', undefined, details);
  }
  const summary = summarize(body, apiKey);
  // A proxy's 502 or 504 in front of the provider may hide a request the provider did accept and bill: ambiguous, so
  // a billable failure (spec 8 rule 4), and never retried.
  if (status === 502) return new ModelError('model_interrupted', `A proxy in front of the model lost its answer (HTTP 502${summary === '' ? '' : `: ${summary}`}).`, 'unknown', undefined, details);
  if (status === 504) return new ModelError('model_timeout', `A proxy in front of the model timed out (HTTP 504${summary === '' ? '' : `: ${summary}`}).`, 'unknown', undefined, details);
  const error = new ModelError('model_unavailable', `The model refused the request (HTTP ${status}${summary === '' ? '' : `: ${summary}`}).`, 'no', undefined, details);
  if (status === 429 || status === 503) return new RetryableRefusal(error, retryAfterMs(headers));
  return error;
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Retry-After in seconds or as an HTTP date, or OpenAI's retry-after-ms. */
export function retryAfterMs(headers: Record<string, string | string[] | undefined>): number | undefined {
  const ms = Number(headerOf(headers, 'retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headerOf(headers, 'retry-after')?.trim();
  if (raw === undefined || raw === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Number(raw) * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function summarize(body: Buffer, apiKey: string | undefined): string {
  let message: unknown;
  try {
    message = (JSON.parse(body.toString('utf8')) as { error?: { message?: unknown } } | null)?.error?.message;
  } catch {
    return '';
  }
  if (typeof message !== 'string') return '';
  // Control characters (log forging, terminal escapes) become spaces.
  let text = [...message].map((char) => (char < ' ' || char === '\u007f' ? ' ' : char)).join('').replace(/\s+/g, ' ').trim();
  if (apiKey !== undefined && apiKey !== '') text = text.split(apiKey).join('[key]');
  // Anything shaped like a key (sk-..., long tokens) is cut out, whoever's it is.
  text = text.replace(/\b(sk|pk|rk)-[\w-]{6,}/g, '$1-[redacted]').replace(/[A-Za-z0-9_-]{40,}/g, '[redacted]');
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY)}…` : text;
}
