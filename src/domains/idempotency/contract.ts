import { z } from 'zod';
import type { ErrorCode } from '../../kernel/error-codes.ts';

/** How long a completed key is kept for replay; the spec asks for at least 24 hours. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
/** How long an in-flight key is held before a retry may take it over (its process is presumed dead). */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;

/**
 * An idempotency key as clients send it: 1 to 255 visible ASCII characters (the IETF Idempotency-Key draft
 * recommends UUIDs; we accept any opaque token of that alphabet).
 */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII characters without spaces');

/** What a finished operation answered: replayed byte for byte on a retry with the same key. */
export type StoredOutcome =
  | { kind: 'result'; value: unknown }
  | { kind: 'error'; code: ErrorCode; message: string; details?: Record<string, unknown> };

/** The key of one request: who sent it, under which key, for which operation, with what request fingerprint. */
export interface IdempotencyClaim {
  scope: string;
  key: string;
  operation: string;
  fingerprint: string;
}

/** What `begin` found: a fresh claim to run, or the stored outcome of an earlier identical request. */
export type BeginResult = { kind: 'run' } | { kind: 'replay'; outcome: StoredOutcome };
