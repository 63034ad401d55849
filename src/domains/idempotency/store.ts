import { textArrayParam, type Sql } from '../../db/port.ts';
import type { IdempotencyClaim, StoredOutcome } from './contract.ts';

interface KeyRow {
  operation: string;
  fingerprint: string;
  state: 'in_flight' | 'completed';
  outcome: string | null;
  lease_expired: boolean;
  [key: string]: unknown;
}

/**
 * Claims a key: inserts an in-flight row, or takes over a row that expired or whose lease ran out. Returns true
 * when this call owns the key now. One statement, so two racing requests cannot both win.
 */
export async function claimKey(sql: Sql, claim: IdempotencyClaim, leaseMs: number, retentionMs: number): Promise<boolean> {
  return (await claimKeys(sql, [claim], leaseMs, retentionMs)).size === 1;
}

/** One string for a key in its scope, as `claimKeys` answers them. */
export function keyId(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}

/**
 * Claims several keys in one statement, as `claimKey` claims one, in the order given (callers sort them, so that two
 * such statements never wait for each other in a circle); returns the claimed ones as `keyId`s. No key may
 * appear twice.
 *
 * A key this call does not claim is left unlocked. (`INSERT ... ON CONFLICT DO UPDATE ... WHERE` would lock the row
 * it finds even when the WHERE refuses it, until the transaction ends; a group commit's transaction then held the
 * key of a request running alone while it waited for the vault lock that request held, and the request's completing
 * of its key waited for the group: a deadlock, which PostgreSQL answered by aborting one of them.) So rows are taken
 * over with a locking read that locks only the rows it may take, and new keys are inserted with DO NOTHING.
 */
export async function claimKeys(sql: Sql, claims: readonly IdempotencyClaim[], leaseMs: number, retentionMs: number): Promise<Set<string>> {
  if (claims.length === 0) return new Set();
  const rows = await sql.query<{ scope: string; key: string }>(
    `WITH c AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS c(scope, key, operation, fingerprint, ord)
     ),
     takeable AS (
       SELECT k.scope, k.key, c.operation, c.fingerprint
         FROM idempotency_keys k JOIN c ON k.scope = c.scope AND k.key = c.key
        WHERE k.expires_at <= now()
           OR (k.state = 'in_flight' AND k.locked_until <= now() AND k.fingerprint = c.fingerprint)
        ORDER BY c.ord
          FOR UPDATE OF k
     ),
     taken AS (
       UPDATE idempotency_keys k SET
         operation = t.operation, fingerprint = t.fingerprint, state = 'in_flight', outcome = NULL,
         locked_until = now() + make_interval(secs => $5::double precision / 1000),
         expires_at = now() + make_interval(secs => $6::double precision / 1000), created_at = now()
         FROM takeable t
        WHERE k.scope = t.scope AND k.key = t.key
       RETURNING k.scope, k.key
     ),
     inserted AS (
       INSERT INTO idempotency_keys (scope, key, operation, fingerprint, state, locked_until, expires_at)
       SELECT scope, key, operation, fingerprint, 'in_flight', now() + make_interval(secs => $5::double precision / 1000),
              now() + make_interval(secs => $6::double precision / 1000)
         FROM c
        ORDER BY ord
       ON CONFLICT (scope, key) DO NOTHING
       RETURNING scope, key
     )
     SELECT scope, key FROM taken
     UNION ALL
     SELECT scope, key FROM inserted`,
    [
      textArrayParam(claims.map((c) => c.scope)),
      textArrayParam(claims.map((c) => c.key)),
      textArrayParam(claims.map((c) => c.operation)),
      textArrayParam(claims.map((c) => c.fingerprint)),
      leaseMs,
      retentionMs,
    ],
  );
  return new Set(rows.map((row) => keyId(row.scope, row.key)));
}

/** Reads the row of a key that someone else holds. */
export async function findKey(sql: Sql, scope: string, key: string): Promise<KeyRow | undefined> {
  const rows = await sql.query<KeyRow>(
    `SELECT operation, fingerprint, state, outcome, locked_until <= now() AS lease_expired
       FROM idempotency_keys WHERE scope = $1 AND key = $2`,
    [scope, key],
  );
  return rows[0];
}

/** Stores the outcome of a claimed key and marks it completed. */
export async function completeKey(sql: Sql, scope: string, key: string, outcome: StoredOutcome): Promise<void> {
  await completeKeys(sql, [{ scope, key, outcome }]);
}

/** Stores the outcomes of several claimed keys in one statement (the members of a shared commit). */
export async function completeKeys(sql: Sql, entries: ReadonlyArray<{ scope: string; key: string; outcome: StoredOutcome }>): Promise<void> {
  if (entries.length === 0) return;
  await sql.query(
    `UPDATE idempotency_keys k SET state = 'completed', outcome = c.outcome
       FROM unnest($1::text[], $2::text[], $3::text[]) AS c(scope, key, outcome)
      WHERE k.scope = c.scope AND k.key = c.key`,
    [textArrayParam(entries.map((e) => e.scope)), textArrayParam(entries.map((e) => e.key)), textArrayParam(entries.map((e) => JSON.stringify(e.outcome)))],
  );
}

/** Drops a claimed key so that a retry runs again (after a failure that changed nothing and is worth retrying). */
export async function releaseKey(sql: Sql, scope: string, key: string): Promise<void> {
  await releaseKeys(sql, [{ scope, key }]);
}

/** Drops several claimed keys in one statement (see releaseKey). */
export async function releaseKeys(sql: Sql, entries: ReadonlyArray<{ scope: string; key: string }>): Promise<void> {
  if (entries.length === 0) return;
  await sql.query(
    `DELETE FROM idempotency_keys k USING unnest($1::text[], $2::text[]) AS r(scope, key)
      WHERE k.scope = r.scope AND k.key = r.key AND k.state = 'in_flight'`,
    [textArrayParam(entries.map((e) => e.scope)), textArrayParam(entries.map((e) => e.key))],
  );
}

/** Deletes expired keys; returns how many. */
export async function purgeExpired(sql: Sql): Promise<number> {
  const rows = await sql.query('DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING 1');
  return rows.length;
}
