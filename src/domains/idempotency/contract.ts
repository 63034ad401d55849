import { z } from 'zod';
import type { Sql } from '../../db/port.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { KgateError } from '../../kernel/errors.ts';

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
  /** Whose key it is (`account:<id>`): with `key`, what names the request across retries. */
  readonly scope?: string;
  /** What the request's stage did before this transaction opened (IdempotencyService.runStaged). */
  readonly staged?: unknown;
}

/** What running work under a key produced: the work's fresh value, or the stored outcome of an earlier identical request. */
export type IdempotentOutcome<T> = { replayed: false; value: T } | { replayed: true; outcome: StoredOutcome };

/** How one member of a shared commit ended: its result, or the error that refused it (having changed nothing). */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: KgateError };

/** One member of a group, as its runner sees it: what the work is about, and the key its outcome is stored under. */
export interface SharedMember<P> {
  readonly payload: P;
  readonly key: string;
}

/**
 * What a group runner gets besides its members. Both let a group's transaction go in few round trips: the runner
 * sends its reads while the keys are being claimed, and its writes together with the storing of the outcomes.
 */
export interface GroupHooks<R> {
  /**
   * Which members run (true), known once their keys are claimed: the others were taken by another request and go
   * their own way. The runner may send reads before this settles; it writes only after, and only for these.
   */
  readonly admitted: Promise<readonly boolean[]>;
  /**
   * Hands over the outcome of every admitted member (undefined for the others) once it is known, before the writes
   * are awaited; returns the storing of those outcomes, which the runner awaits with its writes. Called exactly once
   * by a runner that does not throw.
   */
  settle(outcomes: ReadonlyArray<Settled<R> | undefined>): Promise<void>;
}

/** Runs a whole group in one open transaction (see SharedWork.runGroup and GroupHooks). */
export type GroupRunner<P, R> = (sql: Sql, members: ReadonlyArray<SharedMember<P>>, hooks: GroupHooks<R>) => Promise<void>;

/**
 * Applied work that may share one database transaction, and so one commit, with concurrent work of the same lane:
 * group commit (docs/architecture.md, "Applied changes share commits"). Each member keeps its own key, outcome, answer and
 * provenance; what they share is the transaction, its locks and its multi-row statements.
 */
export interface SharedWork<P, R, T> {
  /**
   * Work shares a transaction only with work of the same lane and the same runner, e.g. the applies to one vault
   * mapping. Lanes run one group at a time, in arrival order.
   */
  readonly lane: string;
  /**
   * What the work touches (e.g. note path keys). Work never shares a group with earlier waiting work that names one
   * of its keys: it waits for a later group, so that work on one key keeps its order.
   */
  readonly keys: readonly string[];
  readonly payload: P;
  /**
   * Runs a group in `sql` and settles one outcome per admitted member (GroupHooks). It must write nothing for a
   * member it refuses, and throws only when the group failed as a whole: every member then runs again alone. A
   * stable function (not made per call), since members share a group only when their runners are the same function.
   */
  readonly runGroup: GroupRunner<P, R>;
  /** This member's answer from its result: the value stored under its key and returned. */
  present(result: R): T;
}
