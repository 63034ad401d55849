import type { Sql } from '../../db/port.ts';
import type { AccountStatus, Plan } from '../../kernel/principal.ts';
import type { Account } from './contract.ts';

interface AccountRow {
  id: string;
  email: string;
  display_name: string | null;
  status: AccountStatus;
  plan: Plan;
  created_at: Date;
  [key: string]: unknown;
}

const COLUMNS = 'id, email, display_name, status, plan, created_at';

function toAccount(row: AccountRow): Account {
  return {
    id: row.id,
    email: row.email,
    displayName: row.display_name,
    status: row.status,
    plan: row.plan,
    createdAt: row.created_at,
  };
}

/** Inserts an account; returns undefined when the email is taken (so callers can decide without a race). */
export async function insertAccount(
  sql: Sql,
  input: { id: string; email: string; displayName: string | null; plan: Plan; passwordHash: string | null },
): Promise<Account | undefined> {
  const rows = await sql.query<AccountRow>(
    `INSERT INTO accounts (id, email, email_key, display_name, plan, password_hash)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (email_key) DO NOTHING
     RETURNING ${COLUMNS}`,
    [input.id, input.email, input.email.toLowerCase(), input.displayName, input.plan, input.passwordHash],
  );
  return rows[0] && toAccount(rows[0]);
}

/** Finds an account by email, case-insensitively. */
export async function findAccountByEmail(sql: Sql, email: string): Promise<Account | undefined> {
  const rows = await sql.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE email_key = $1`, [
    email.toLowerCase(),
  ]);
  return rows[0] && toAccount(rows[0]);
}

/** Finds an account by email, case-insensitively, with its password hash (null when it has no password). */
export async function findCredentialsByEmail(
  sql: Sql,
  email: string,
): Promise<{ account: Account; passwordHash: string | null } | undefined> {
  const rows = await sql.query<AccountRow & { password_hash: string | null }>(
    `SELECT ${COLUMNS}, password_hash FROM accounts WHERE email_key = $1`,
    [email.toLowerCase()],
  );
  return rows[0] && { account: toAccount(rows[0]), passwordHash: rows[0].password_hash };
}

/** Finds an account by id. */
export async function findAccountById(sql: Sql, id: string): Promise<Account | undefined> {
  const rows = await sql.query<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
  return rows[0] && toAccount(rows[0]);
}

/** Updates status, plan or password hash; returns the account, or undefined when it does not exist. */
export async function updateAccount(
  sql: Sql,
  id: string,
  change: { status?: AccountStatus; plan?: Plan; passwordHash?: string },
): Promise<Account | undefined> {
  const rows = await sql.query<AccountRow>(
    `UPDATE accounts SET
       status = COALESCE($2, status),
       plan = COALESCE($3, plan),
       password_hash = COALESCE($4, password_hash),
       updated_at = now()
     WHERE id = $1
     RETURNING ${COLUMNS}`,
    [id, change.status ?? null, change.plan ?? null, change.passwordHash ?? null],
  );
  return rows[0] && toAccount(rows[0]);
}

/** An account's password hash; null when it has none, undefined when the account does not exist. */
export async function findPasswordHashById(sql: Sql, id: string): Promise<string | null | undefined> {
  const rows = await sql.query<{ password_hash: string | null }>('SELECT password_hash FROM accounts WHERE id = $1', [id]);
  return rows[0]?.password_hash;
}

/** Sets a new password hash chosen by the account holder, and records when; false when the account does not exist. */
export async function setPasswordHash(sql: Sql, input: { id: string; passwordHash: string; at: Date }): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE accounts SET password_hash = $2, password_changed_at = $3, updated_at = now() WHERE id = $1 RETURNING 1',
    [input.id, input.passwordHash, input.at],
  );
  return rows.length === 1;
}

/** Replaces an account's allowance overrides. */
export async function setAllowanceOverrides(sql: Sql, id: string, overrides: object): Promise<boolean> {
  const rows = await sql.query('UPDATE accounts SET allowance_overrides = $2::jsonb, updated_at = now() WHERE id = $1 RETURNING 1', [
    id,
    JSON.stringify(overrides),
  ]);
  return rows.length === 1;
}

/** Counts accounts; the embedded quick start bootstraps when there are none. */
export async function countAccounts(sql: Sql): Promise<number> {
  const rows = await sql.query<{ count: number }>('SELECT count(*)::int AS count FROM accounts');
  return rows[0]?.count ?? 0;
}
