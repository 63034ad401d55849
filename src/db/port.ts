/**
 * The database port: the only way domain code talks to storage. Two adapters implement it (embedded PGlite and
 * server PostgreSQL) with identical semantics, so SQL is written once, to what PostgreSQL 15 supports.
 *
 * Value types are normalized across adapters: `int8` and `int4` come back as `number`, `timestamptz` as `Date`,
 * `jsonb` as parsed JSON, `numeric` as `string`.
 */

/** One result row, keyed by column name. */
export type Row = Record<string, unknown>;

/** Something that runs SQL: the database itself or an open transaction. */
export interface Sql {
  /** Runs one statement with `$1`-style parameters and returns its rows. */
  query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of one or more statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Runs `callback` once what this `Sql` wrote is committed: after COMMIT and before `transaction()` resolves, inside
   * a transaction (never, when it rolls back); at once outside one, where every statement commits on its own. For
   * in-memory caches that must forget what a change made stale before the change is answered. Callbacks must not
   * throw; if one does, the others still run and `transaction()` rejects with its error although the change is
   * committed.
   */
  afterCommit(callback: () => void): void;
}

/** Which engine is behind the port; only tests and benchmarks should care. */
export type DatabaseEngine = 'pglite' | 'postgres';

/** A database connection (PGlite instance or PostgreSQL pool). */
export interface Database extends Sql {
  readonly engine: DatabaseEngine;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. Transactions do not
   * nest; code that may run inside a caller's transaction takes an `Sql` argument instead of opening its own.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Subscribes to `NOTIFY` on `channel`. `onState(false)` reports that notifications may have been missed (the
   * listening connection was lost) and `onState(true)` that they flow again; callers that cache must drop the
   * cache while they do not flow. Resolves once listening; the returned function stops it.
   */
  listen(channel: string, onMessage: (payload: string) => void, onState?: (listening: boolean) => void): Promise<() => Promise<void>>;
  /** Connections of a server pool right now; absent for the embedded database, which has one session. */
  pool?(): { total: number; idle: number; waiting: number };
  /** Closes the connection cleanly; further calls fail. */
  close(): Promise<void>;
}
