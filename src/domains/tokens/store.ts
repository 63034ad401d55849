import type { Sql } from '../../db/port.ts';
import type { AccountStatus, Plan } from '../../kernel/principal.ts';
import type { TokenInfo } from './contract.ts';

interface TokenRow {
  id: string;
  name: string;
  prefix: string;
  last_four: string;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  [key: string]: unknown;
}

const COLUMNS = 'id, name, prefix, last_four, created_at, expires_at, last_used_at, revoked_at';

function toInfo(row: TokenRow): TokenInfo {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    lastFour: row.last_four,
    display: `${row.prefix}…${row.last_four}`,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** Stores a token record; only the hash of the secret is given to this function. */
export async function insertToken(
  sql: Sql,
  input: { id: string; accountId: string; name: string; tokenHash: string; prefix: string; lastFour: string; expiresAt: Date | null },
): Promise<TokenInfo> {
  const rows = await sql.query<TokenRow>(
    `INSERT INTO personal_access_tokens (id, account_id, name, token_hash, prefix, last_four, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [input.id, input.accountId, input.name, input.tokenHash, input.prefix, input.lastFour, input.expiresAt],
  );
  return toInfo(rows[0]!);
}

/** An account's tokens, newest first. */
export async function listTokens(sql: Sql, accountId: string): Promise<TokenInfo[]> {
  const rows = await sql.query<TokenRow>(
    `SELECT ${COLUMNS} FROM personal_access_tokens WHERE account_id = $1 ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
  return rows.map(toInfo);
}

/** Locks and returns one of an account's tokens. */
export async function findTokenForUpdate(
  sql: Sql,
  accountId: string,
  tokenId: string,
): Promise<(TokenInfo & { expiresAtRaw: Date | null }) | undefined> {
  const rows = await sql.query<TokenRow>(
    `SELECT ${COLUMNS} FROM personal_access_tokens WHERE account_id = $1 AND id = $2 FOR UPDATE`,
    [accountId, tokenId],
  );
  return rows[0] && { ...toInfo(rows[0]), expiresAtRaw: rows[0].expires_at };
}

/** Marks a token revoked (and, on rotation, what replaced it). */
export async function revokeToken(sql: Sql, tokenId: string, replacedBy: string | null): Promise<void> {
  await sql.query(
    'UPDATE personal_access_tokens SET revoked_at = now(), replaced_by = $2 WHERE id = $1 AND revoked_at IS NULL',
    [tokenId, replacedBy],
  );
}

/** What authentication needs, looked up by the token hash in one query. */
export interface TokenCredentialRow {
  id: string;
  account_id: string;
  token_hash: string;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  status: AccountStatus;
  plan: Plan;
  allowance_overrides: unknown;
  [key: string]: unknown;
}

/** Finds a token by hash together with its account's status and plan. */
export async function findCredential(sql: Sql, tokenHash: string): Promise<TokenCredentialRow | undefined> {
  const rows = await sql.query<TokenCredentialRow>(
    `SELECT t.id, t.account_id, t.token_hash, t.expires_at, t.revoked_at, t.last_used_at, a.status, a.plan,
            a.allowance_overrides
       FROM personal_access_tokens t JOIN accounts a ON a.id = t.account_id
      WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

/** Records use; callers call it at most about once a minute per token to keep reads cheap. */
export async function touchToken(sql: Sql, tokenId: string, at: Date): Promise<void> {
  await sql.query('UPDATE personal_access_tokens SET last_used_at = $2 WHERE id = $1', [tokenId, at]);
}

/** What a principal needs of its account: status, plan and allowance overrides. */
export interface AccountStandingRow {
  status: AccountStatus;
  plan: Plan;
  allowance_overrides: unknown;
  [key: string]: unknown;
}

/** The account's current status, plan and overrides; undefined when there is no such account. */
export async function findAccountStanding(sql: Sql, accountId: string): Promise<AccountStandingRow | undefined> {
  const rows = await sql.query<AccountStandingRow>('SELECT status, plan, allowance_overrides FROM accounts WHERE id = $1', [accountId]);
  return rows[0];
}
