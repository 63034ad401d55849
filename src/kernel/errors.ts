import type { ErrorCode } from './error-codes.ts';

/**
 * The one error type domain code throws. It carries a stable `code` and optional machine-readable details; the
 * transport decides the status and wire shape. Messages are for humans and may change.
 */
export class KgateError extends Error {
  override readonly name = 'KgateError';

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

/** True when `value` is a KgateError (also across module copies, by shape). */
export function isKgateError(value: unknown): value is KgateError {
  return value instanceof KgateError;
}
