import type { Sql } from '../../db/port.ts';
import type { AccountStatus } from '../../kernel/principal.ts';
import type { WebSession } from './contract.ts';

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

/** Revokes the session with this secret hash (no-op when unknown or already revoked). */
export async function revokeSession(sql: Sql, tokenHash: string, at: Date): Promise<void> {
  await sql.query('UPDATE web_sessions SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL', [tokenHash, at]);
}

/** The outcome of counting one sign-in attempt. */
export interface AttemptCount {
  /** False when the address is locked: the attempt must be refused without checking the password. */
  allowed: boolean;
  /** When the lock ends, if the address is (now) locked. */
  lockedUntil: Date | null;
}

/**
 * Counts one sign-in attempt of an address before its password is checked, in a single upsert: concurrent
 * attempts are serialized by the row lock and each sees the count the previous one left, so at most
 * `maxAttempts` passwords are ever checked per window. The attempt that reaches `maxAttempts` is allowed and sets
 * the lock; attempts while locked are counted past the maximum and refused. A success deletes the record
 * (clearAttempts), so only failures keep counting. A window or lock that is over starts a new count.
 *
 * In the DO UPDATE arm, `f.` is the row as the previous attempt left it.
 */
export async function countAttempt(
  sql: Sql,
  input: { emailKey: string; now: Date; windowMs: number; maxAttempts: number; lockoutMs: number },
): Promise<AttemptCount> {
  const { now, maxAttempts } = input;
  const windowStart = new Date(now.getTime() - input.windowMs);
  const lockEnd = new Date(now.getTime() + input.lockoutMs);
  const rows = await sql.query<{ failures: number; locked_until: Date | null }>(
    `INSERT INTO sign_in_failures AS f (email_key, failures, window_started_at, locked_until)
     VALUES ($1, 1, $2, CASE WHEN $4::int <= 1 THEN $5::timestamptz END)
     ON CONFLICT (email_key) DO UPDATE SET
       failures = CASE
         WHEN f.locked_until > $2 THEN LEAST(f.failures + 1, $4::int + 1)
         WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN 1
         ELSE f.failures + 1 END,
       window_started_at = CASE
         WHEN f.locked_until > $2 THEN f.window_started_at
         WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN $2
         ELSE f.window_started_at END,
       locked_until = CASE
         WHEN f.locked_until > $2 THEN f.locked_until
         WHEN f.locked_until IS NOT NULL OR f.window_started_at <= $3 THEN CASE WHEN $4::int <= 1 THEN $5::timestamptz END
         WHEN f.failures + 1 >= $4::int THEN $5::timestamptz
         ELSE NULL END
     RETURNING failures, locked_until`,
    [input.emailKey, now, windowStart, maxAttempts, lockEnd],
  );
  const row = rows[0]!;
  return { allowed: row.failures <= maxAttempts, lockedUntil: row.locked_until };
}

/** Forgets the attempts of an address (after a successful sign-in). */
export async function clearAttempts(sql: Sql, emailKey: string): Promise<void> {
  await sql.query('DELETE FROM sign_in_failures WHERE email_key = $1', [emailKey]);
}

/** Deletes sessions that ended before `before` and attempt records whose window and lock are over. */
export async function purgeExpired(sql: Sql, input: { now: Date; before: Date; windowStart: Date }): Promise<number> {
  const sessions = await sql.query(
    'DELETE FROM web_sessions WHERE expires_at < $1 OR revoked_at < $1 RETURNING 1',
    [input.before],
  );
  const attempts = await sql.query(
    `DELETE FROM sign_in_failures
      WHERE window_started_at <= $2 AND (locked_until IS NULL OR locked_until <= $1) RETURNING 1`,
    [input.now, input.windowStart],
  );
  return sessions.length + attempts.length;
}
