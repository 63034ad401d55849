/**
 * The database port: the only way domain code talks to storage. Two adapters implement it (embedded PGlite and
 * server PostgreSQL) with identical semantics, so SQL is written once, to what PostgreSQL 15 supports.
 *
 * Value types are normalized across adapters: `int8` and `int4` come back as `number`, `timestamptz` as `Date`,
 * `jsonb` as parsed JSON, `numeric` as `string`. A parameter that is a byte buffer is sent in PostgreSQL's binary
 * format by both adapters; `textArrayParam` and `uuidArrayParam` below make such buffers for bulk statements.
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

/** PostgreSQL's type ids of the element types below. */
const TEXT_OID = 25;
const UUID_OID = 2950;

/**
 * A one-dimensional array in PostgreSQL's binary format, with room for `bodyBytes` of elements after its header
 * (returned as `at`); no dimensions at all when it has no elements, which is how the format writes `{}`.
 */
function binaryArray(elementType: number, count: number, hasNulls: boolean, bodyBytes: number): { out: Buffer; at: number } {
  if (count === 0) {
    const empty = Buffer.alloc(12);
    empty.writeInt32BE(elementType, 8);
    return { out: empty, at: 12 };
  }
  const out = Buffer.allocUnsafe(20 + bodyBytes);
  out.writeInt32BE(1, 0); // dimensions
  out.writeInt32BE(hasNulls ? 1 : 0, 4);
  out.writeInt32BE(elementType, 8);
  out.writeInt32BE(count, 12);
  out.writeInt32BE(1, 16); // lower bound
  return { out, at: 20 };
}

/**
 * A `text[]` parameter in PostgreSQL's binary format: a header, then each element's byte length and UTF-8 bytes.
 * Both adapters send a byte buffer as a binary parameter, which the server copies as it is; a JavaScript array is
 * sent as the text of an array literal instead, which the driver builds, escapes and measures character by
 * character and the server parses again. For the bulk statements of a write, whose arrays carry whole notes, that
 * was a tenth of the embedded database thread's time (docs/architecture.md, "Applied changes share commits").
 * Use it where the statement names the parameter's type (`$n::text[]`).
 */
export function textArrayParam(values: readonly (string | null)[]): Buffer {
  const lengths = values.map((value) => (value === null ? -1 : Buffer.byteLength(value, 'utf8')));
  const body = 4 * values.length + lengths.reduce((sum, length) => sum + Math.max(0, length), 0);
  const array = binaryArray(TEXT_OID, values.length, lengths.includes(-1), body);
  let at = array.at;
  for (const [k, value] of values.entries()) {
    const length = lengths[k]!;
    array.out.writeInt32BE(length, at);
    at += 4;
    if (value !== null && length > 0) at += array.out.write(value, at, length, 'utf8');
  }
  return array.out;
}

/** A `uuid[]` parameter in PostgreSQL's binary format (see textArrayParam): 16 bytes an element. No nulls. */
export function uuidArrayParam(values: readonly string[]): Buffer {
  const array = binaryArray(UUID_OID, values.length, false, 20 * values.length);
  let at = array.at;
  for (const value of values) {
    const hex = value.replaceAll('-', '');
    if (!/^[0-9a-f]{32}$/i.test(hex)) throw new TypeError(`not a UUID: ${value}`);
    array.out.writeInt32BE(16, at);
    array.out.write(hex, at + 4, 16, 'hex');
    at += 20;
  }
  return array.out;
}
