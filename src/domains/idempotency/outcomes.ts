import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { KgateError } from '../../kernel/errors.ts';
import type { StoredOutcome } from './contract.ts';

// Failures worth retrying with the same key: the claim is released instead of stored.
// A remote mapping's provider failing, limiting or disconnected is too: nothing was recorded, and a provider write that
// may have landed is found again by the key's intent (notes/remote-writes.ts).
const RETRYABLE: ReadonlySet<ErrorCode> = new Set([
  'rate_limited',
  'monthly_limit_reached',
  'unavailable',
  'internal',
  'idempotency_key_in_flight',
  'provider_rate_limited',
  'provider_unavailable',
  'provider_disconnected',
]);

/** True for a failure worth retrying with the same key: its claim is released, not stored. */
export function isRetryable(error: KgateError): boolean {
  return RETRYABLE.has(error.code);
}

/** A refusal as it is stored under its key, so that a retry answers the same. */
export function storedError(error: KgateError): StoredOutcome {
  return { kind: 'error', code: error.code, message: error.message, ...(error.details ? { details: { ...error.details } } : {}) };
}
