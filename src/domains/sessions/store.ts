import type { Sql } from '../../db/port.ts';
import type { AccountStatus } from '../../kernel/principal.ts';
import type { SessionSummary, WebSession } from './contract.ts';

/** Stores a new session; only the hash of its secret is given to this function. */
export async function insertSession(
  sql: Sql,
  input: { id: string; tokenHash: string; accountId: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO web_sessions (id, token_hash, account_id, created_at, expires_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $4)`,
    [input.id, input.tokenHash, input.accountId, input.createdAt, input.expiresAt],
  );
}

/** A session found by its hash, with what deciding whether it is live needs. */
export interface SessionRow {
  session: WebSession;
  tokenHash: string;
  revokedAt: Date | null;
  lastSeenAt: Date;
  status: AccountStatus;
}

/** Finds a session by the hash of its secret, with its account's e-mail and status, in one query. */
export async function findSession(sql: Sql, tokenHash: string): Promise<SessionRow | undefined> {
  const rows = await sql.query<{
    id: string;
    token_hash: string;
    account_id: string;
    created_at: Date;
    expires_at: Date;
    last_seen_at: Date;
    revoked_at: Date | null;
    email: string;
    status: AccountStatus;
  }>(
    `SELECT s.id, s.token_hash, s.account_id, s.created_at, s.expires_at, s.last_seen_at, s.revoked_at, a.email, a.status
       FROM web_sessions s JOIN accounts a ON a.id = s.account_id
      WHERE s.token_hash = $1`,
    [tokenHash],
  );
  const row = rows[0];
  return (
    row && {
      session: { id: row.id, accountId: row.account_id, email: row.email, createdAt: row.created_at, expiresAt: row.expires_at },
      tokenHash: row.token_hash,
      revokedAt: row.revoked_at,
      lastSeenAt: row.last_seen_at,
      status: row.status,
    }
  );
}

/** Records that a session was used. */
export async function touchSession(sql: Sql, id: string, at: Date): Promise<void> {
  await sql.query('UPDATE web_sessions SET last_seen_at = $2 WHERE id = $1', [id, at]);
}

/** The live sessions of an account, newest first, at most `limit` (and whether there were more). */
export async function listLiveSessions(
  sql: Sql,
  input: { accountId: string; now: Date; limit: number },
): Promise<{ sessions: SessionSummary[]; truncated: boolean }> {
  const rows = await sql.query<{ id: string; created_at: Date; expires_at: Date; last_seen_at: Date }>(
    `SELECT id, created_at, expires_at, last_seen_at FROM web_sessions
      WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2
      ORDER BY created_at DESC, id DESC LIMIT $3`,
    [input.accountId, input.now, input.limit + 1],
  );
  return {
    sessions: rows.slice(0, input.limit).map((row) => ({
      id: row.id,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
      lastSeenAt: row.last_seen_at,
    })),
    truncated: rows.length > input.limit,
  };
}

/** Revokes one live session of an account by id; false when the account has no such live session. */
export async function revokeSessionOfAccount(sql: Sql, input: { accountId: string; sessionId: string; at: Date }): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE web_sessions SET revoked_at = $3
      WHERE id = $1 AND account_id = $2 AND revoked_at IS NULL AND expires_at > $3 RETURNING 1`,
    [input.sessionId, input.accountId, input.at],
  );
  return rows.length === 1;
}

/** Revokes every live session of an account, except `keepId` when given; returns how many ended. */
export async function revokeSessionsOfAccount(sql: Sql, input: { accountId: string; keepId?: string; at: Date }): Promise<number> {
  const rows = await sql.query(
    `UPDATE web_sessions SET revoked_at = $2
      WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2 AND ($3::uuid IS NULL OR id <> $3::uuid) RETURNING 1`,
    [input.accountId, input.at, input.keepId ?? null],
  );
  return rows.length;
}

/** Revokes the session with this secret hash (no-op when unknown or already revoked). */
export async function revokeSession(sql: Sql, tokenHash: string, at: Date): Promise<void> {
  await sql.query('UPDATE web_sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash, at]);
}

/** The outcome of counting one sign-in attempt of an account. */
export interface AttemptCount {
  /** False when the account is locked for this attempt: it must be refused without checking the password. */
  allowed: boolean;
  /** When the lock ends for addresses that have failed, if the account is (now) locked. */
  lockedUntil: Date | null;
  /** When the lock ends for addresses that have not failed, if the account is (now) locked. */
  shortLockUntil: Date | null;
}

// The rules both counts share, as CASE arms of their upsert ($2 now, $3 the window's start, $4 the most attempts,
// $5 the lock's end; `f.` is the row as the previous attempt left it): while locked, the count stays one past the
// maximum; a window or lock that is over starts a new count; reaching the maximum locks.
const COUNT_ARMS = `WHEN f.locked_until > $2 THEN LEAST(f.failures + 1, $4::int + 1)
         WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN 1
         ELSE f.failures + 1 END,`;
const WINDOW_START = `window_started_at = CASE
         WHEN f.locked_until > $2 THEN f.window_started_at
         WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN $2
         ELSE f.window_started_at END,`;
const LOCK_ARMS = `WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN CASE WHEN $4::int <= 1 THEN $5::timestamptz END
         WHEN f.failures + 1 >= $4::int THEN $5::timestamptz
         ELSE NULL END`;

/**
 * Counts one sign-in attempt of an account before its password is checked, in a single upsert: concurrent
 * attempts are serialized by the row lock and each sees the count the previous one left, so at most
 * `maxAttempts` passwords are ever checked per window. The attempt that reaches `maxAttempts` is allowed and sets
 * the lock; attempts while locked are counted past the maximum and refused. A success deletes the record
 * (clearAttempts), so only failures keep counting. A window or lock that is over starts a new count.
 *
 * `clean` says the attempt comes from a client address with no failure on record. While the account is locked,
 * such an attempt is allowed once the short lock is over (`shortLockUntil`); it then renews both locks, so that
 * concurrent attempts are refused and the next clean attempt waits `shortLockMs` again. It is marked allowed by
 * setting the count back to `maxAttempts` (refused attempts leave it at `maxAttempts + 1`).
 *
 * In the DO UPDATE arm, `f.` is the row as the previous attempt left it.
 */
export async function countAttempt(
  sql: Sql,
  input: { emailKey: string; now: Date; windowMs: number; maxAttempts: number; lockoutMs: number; clean: boolean; shortLockMs: number },
): Promise<AttemptCount> {
  const { now, maxAttempts } = input;
  const windowStart = new Date(now.getTime() - input.windowMs);
  const lockEnd = new Date(now.getTime() + input.lockoutMs);
  const shortLockEnd = new Date(now.getTime() + input.shortLockMs);
  const cleanPass = '(f.locked_until > $2 AND $6::boolean AND (f.short_lock_until IS NULL OR f.short_lock_until <= $2))';
  const rows = await sql.query<{ failures: number; locked_until: Date | null; short_lock_until: Date | null }>(
    `INSERT INTO sign_in_failures AS f (email_key, failures, window_started_at, locked_until, short_lock_until)
     VALUES ($1, 1, $2, CASE WHEN $4::int <= 1 THEN $5::timestamptz END, CASE WHEN $4::int <= 1 THEN $7::timestamptz END)
     ON CONFLICT (email_key) DO UPDATE SET
       failures = CASE
         WHEN ${cleanPass} THEN $4::int
         ${COUNT_ARMS}
       ${WINDOW_START}
       locked_until = CASE
         WHEN ${cleanPass} THEN $5::timestamptz
         WHEN f.locked_until > $2 THEN f.locked_until
         ${LOCK_ARMS},
       short_lock_until = CASE
         WHEN ${cleanPass} THEN $7::timestamptz
         WHEN f.locked_until > $2 THEN f.short_lock_until
         WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN CASE WHEN $4::int <= 1 THEN $7::timestamptz END
         WHEN f.failures + 1 >= $4::int THEN $7::timestamptz
         ELSE NULL END
     RETURNING failures, locked_until, short_lock_until`,
    [input.emailKey, now, windowStart, maxAttempts, lockEnd, input.clean, shortLockEnd],
  );
  const row = rows[0]!;
  return { allowed: row.failures <= maxAttempts, lockedUntil: row.locked_until, shortLockUntil: row.short_lock_until };
}

/** The outcome of counting one sign-in attempt from a client address. */
export interface AddressAttemptCount {
  /** False when the address is locked: the attempt must be refused without checking anything. */
  allowed: boolean;
  /** When the lock ends, if the address is (now) locked. */
  lockedUntil: Date | null;
  /** True when this attempt is the address's only one on record: it has not failed (within the window). */
  clean: boolean;
}

/**
 * Counts one sign-in attempt from a client address, across accounts, with the same single-upsert rules as
 * countAttempt. An attempt that turns out not to be a failure (a success, or one an account lock refused unchecked)
 * is given back with refundAddressAttempt, so the count is of failures only, and a success cannot wipe it.
 */
export async function countAddressAttempt(
  sql: Sql,
  input: { addressKey: string; now: Date; windowMs: number; maxAttempts: number; lockoutMs: number },
): Promise<AddressAttemptCount> {
  const { now, maxAttempts } = input;
  const windowStart = new Date(now.getTime() - input.windowMs);
  const lockEnd = new Date(now.getTime() + input.lockoutMs);
  const rows = await sql.query<{ failures: number; locked_until: Date | null }>(
    `INSERT INTO sign_in_address_failures AS f (address_key, failures, window_started_at, locked_until)
     VALUES ($1, 1, $2, CASE WHEN $4::int <= 1 THEN $5::timestamptz END)
     ON CONFLICT (address_key) DO UPDATE SET
       failures = CASE
         ${COUNT_ARMS}
       ${WINDOW_START}
       locked_until = CASE
         WHEN f.locked_until > $2 THEN f.locked_until
         ${LOCK_ARMS}
     RETURNING failures, locked_until`,
    [input.addressKey, now, windowStart, maxAttempts, lockEnd],
  );
  const row = rows[0]!;
  return { allowed: row.failures <= maxAttempts, lockedUntil: row.locked_until, clean: row.failures === 1 };
}

/**
 * Gives back one counted attempt of an address that was not a failure. A lock that this attempt set (the count
 * falls below the maximum again) is lifted; one that refused attempts since stays.
 */
export async function refundAddressAttempt(sql: Sql, addressKey: string, maxAttempts: number): Promise<void> {
  await sql.query(
    `UPDATE sign_in_address_failures SET
       failures = GREATEST(failures - 1, 0),
       locked_until = CASE WHEN failures - 1 < $2::int THEN NULL ELSE locked_until END
     WHERE address_key = $1`,
    [addressKey, maxAttempts],
  );
}

/** Forgets the attempts of an account (after its password was right). */
export async function clearAttempts(sql: Sql, emailKey: string): Promise<void> {
  await sql.query('DELETE FROM sign_in_failures WHERE email_key = $1', [emailKey]);
}

/** Deletes sessions that ended before `before` and attempt records whose window and lock are over. */
export async function purgeExpired(sql: Sql, input: { now: Date; before: Date; windowStart: Date; addressWindowStart: Date }): Promise<number> {
  const sessions = await sql.query(
    'DELETE FROM web_sessions WHERE expires_at < $1 OR revoked_at < $1 RETURNING 1',
    [input.before],
  );
  const attempts = await sql.query(
    `DELETE FROM sign_in_failures
      WHERE window_started_at <= $2 AND (locked_until IS NULL OR locked_until <= $1) RETURNING 1`,
    [input.now, input.windowStart],
  );
  const addresses = await sql.query(
    `DELETE FROM sign_in_address_failures
      WHERE window_started_at <= $2 AND (locked_until IS NULL OR locked_until <= $1) RETURNING 1`,
    [input.now, input.addressWindowStart],
  );
  return sessions.length + attempts.length + addresses.length;
}
