import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { KgateError } from '../../kernel/errors.ts';
import type { StoredOutcome } from './contract.ts';

// Failures worth retrying with the same key: the claim is released instead of stored.
const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'monthly_limit_reached', 'unavailable', 'internal', 'idempotency_key_in_flight']);

/** True for a failure worth retrying with the same key: its claim is released, not stored. */
export function isRetryable(error: KgateError): boolean {
  return RETRYABLE.has(error.code);
}

/** A refusal as it is stored under its key, so that a retry answers the same. */
export function storedError(error: KgateError): StoredOutcome {
  return { kind: 'error', code: error.code, message: error.message, ...(error.details ? { details: { ...error.details } } : {}) };
}
