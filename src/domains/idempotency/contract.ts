import { z } from 'zod';
import type { Sql } from '../../db/port.ts';
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

/**
 * Where an applied change commits: the database transaction in which the idempotency service also stores the
 * change's outcome under its key, so that a change and its replayable answer commit together or not at all.
 * Domain services that apply changes take it instead of opening a transaction of their own.
 */
export interface IdempotentCommit {
  /** The open transaction; every statement of the change runs in it. */
  readonly sql: Sql;
  /** The idempotency key the outcome is stored under (recorded with each provenance event). */
  readonly key: string;
}

/** What running work under a key produced: the work's fresh value, or the stored outcome of an earlier identical request. */
export type IdempotentOutcome<T> = { replayed: false; value: T } | { replayed: true; outcome: StoredOutcome };
