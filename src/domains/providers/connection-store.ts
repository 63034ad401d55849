import type { Sql } from '../../db/port.ts';
import type { ProviderConnection } from './contract.ts';
import type { RemoteKind } from './port.ts';

interface ConnectionRow {
  id: string;
  account_id: string;
  provider: RemoteKind;
  provider_account_id: string;
  provider_account_name: string;
  status: 'active' | 'revoked';
  scopes: string[];
  can_read: boolean;
  can_write: boolean;
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  access_expires_at: Date | null;
  last_error: string | null;
  created_at: Date;
  [key: string]: unknown;
}

/** A connection with its sealed tokens (never leaves the providers domain). */
export interface SealedConnection extends ProviderConnection {
  accessTokenEnc: string | null;
  refreshTokenEnc: string | null;
}

const COLUMNS = `id, account_id, provider, provider_account_id, provider_account_name, status, scopes, can_read, can_write,
  access_token_enc, refresh_token_enc, access_expires_at, last_error, created_at`;

function toConnection(row: ConnectionRow): SealedConnection {
  return {
    id: row.id,
    accountId: row.account_id,
    provider: row.provider,
    providerAccountId: row.provider_account_id,
    providerAccountName: row.provider_account_name,
    status: row.status,
    scopes: row.scopes,
    canRead: row.can_read,
    canWrite: row.can_write,
    accessExpiresAt: row.access_expires_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    accessTokenEnc: row.access_token_enc,
    refreshTokenEnc: row.refresh_token_enc,
  };
}

/** Records a started authorization (state as its hash, the PKCE verifier sealed). */
export async function insertAuthorization(
  sql: Sql,
  input: { stateHash: string; accountId: string; provider: RemoteKind; verifierEnc: string; wantWrite: boolean; expiresAt: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO provider_authorizations (state_hash, account_id, provider, code_verifier_enc, want_write, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [input.stateHash, input.accountId, input.provider, input.verifierEnc, input.wantWrite, input.expiresAt],
  );
}

/** Takes a started authorization once: deleted as it is read, so a state is never accepted twice. */
export async function takeAuthorization(
  sql: Sql,
  stateHash: string,
): Promise<{ accountId: string; provider: RemoteKind; verifierEnc: string; wantWrite: boolean; expiresAt: Date } | undefined> {
  const rows = await sql.query<{ account_id: string; provider: RemoteKind; code_verifier_enc: string; want_write: boolean; expires_at: Date }>(
    'DELETE FROM provider_authorizations WHERE state_hash = $1 RETURNING account_id, provider, code_verifier_enc, want_write, expires_at',
    [stateHash],
  );
  const row = rows[0];
  return row && { accountId: row.account_id, provider: row.provider, verifierEnc: row.code_verifier_enc, wantWrite: row.want_write, expiresAt: row.expires_at };
}

/** Deletes authorizations past their expiry; returns how many. */
export async function purgeAuthorizations(sql: Sql, now: Date): Promise<number> {
  const rows = await sql.query('DELETE FROM provider_authorizations WHERE expires_at < $1 RETURNING 1', [now]);
  return rows.length;
}

/** The new state of a connection after a code exchange or a refresh. */
export interface ConnectionGrant {
  scopes: string[];
  canRead: boolean;
  canWrite: boolean;
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  accessExpiresAt: Date | null;
}

/**
 * Stores a new grant for an account's provider account: a reconnection of the same provider account (after a
 * disconnect or a revocation too) gives its connection the new grant, and its mappings work again; otherwise a new
 * connection is created.
 */
export async function upsertConnection(
  sql: Sql,
  input: ConnectionGrant & { id: string; accountId: string; provider: RemoteKind; providerAccountId: string; providerAccountName: string },
): Promise<SealedConnection> {
  // $1 to $10 of both statements: who, which provider account, and the grant.
  const grant = [
    input.accountId,
    input.provider,
    input.providerAccountId,
    input.providerAccountName,
    input.scopes,
    input.canRead,
    input.canWrite,
    input.accessTokenEnc,
    input.refreshTokenEnc,
    input.accessExpiresAt,
  ];
  // The same provider account connected again: its newest connection, active or revoked, takes the new grant, so the
  // mappings made under it work again; mappings left on older revoked connections of that account follow it.
  const updated = await sql.query<ConnectionRow>(
    `UPDATE provider_connections
        SET provider_account_name = $4, scopes = $5, can_read = $6, can_write = $7, access_token_enc = $8,
            refresh_token_enc = $9, access_expires_at = $10, status = 'active', refresh_lease_until = NULL, last_error = NULL,
            updated_at = now()
      WHERE id = (SELECT id FROM provider_connections WHERE account_id = $1 AND provider = $2 AND provider_account_id = $3
                   ORDER BY (status = 'active') DESC, created_at DESC, id DESC LIMIT 1)
      RETURNING ${COLUMNS}`,
    grant,
  );
  if (updated[0]) {
    await sql.query(
      `UPDATE mappings SET provider_connection_id = $1, updated_at = now()
        WHERE provider_connection_id IN (SELECT id FROM provider_connections
                                          WHERE account_id = $2 AND provider = $3 AND provider_account_id = $4 AND id <> $1)`,
      [updated[0].id, input.accountId, input.provider, input.providerAccountId],
    );
    return toConnection(updated[0]);
  }
  const rows = await sql.query<ConnectionRow>(
    `INSERT INTO provider_connections (id, account_id, provider, provider_account_id, provider_account_name, scopes, can_read,
       can_write, access_token_enc, refresh_token_enc, access_expires_at)
     VALUES ($11, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     RETURNING ${COLUMNS}`,
    [...grant, input.id],
  );
  return toConnection(rows[0]!);
}

/** One connection by id. */
export async function findConnection(sql: Sql, id: string): Promise<SealedConnection | undefined> {
  const rows = await sql.query<ConnectionRow>(`SELECT ${COLUMNS} FROM provider_connections WHERE id = $1`, [id]);
  return rows[0] && toConnection(rows[0]);
}

/** An account's connections, newest first (revoked ones too: the page shows what happened). */
export async function listConnections(sql: Sql, accountId: string): Promise<SealedConnection[]> {
  const rows = await sql.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM provider_connections WHERE account_id = $1 ORDER BY created_at DESC, id LIMIT 100`,
    [accountId],
  );
  return rows.map(toConnection);
}

/** Stores refreshed tokens, if the connection is still active. */
export async function storeRefreshed(sql: Sql, id: string, grant: ConnectionGrant): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE provider_connections
        SET scopes = $2, can_read = $3, can_write = $4, access_token_enc = $5, refresh_token_enc = COALESCE($6, refresh_token_enc),
            access_expires_at = $7, refresh_lease_until = NULL, last_error = NULL, updated_at = now()
      WHERE id = $1 AND status = 'active' RETURNING 1`,
    [id, grant.scopes, grant.canRead, grant.canWrite, grant.accessTokenEnc, grant.refreshTokenEnc, grant.accessExpiresAt],
  );
  return rows.length === 1;
}

/** Takes the refresh lease of an active connection until `until`; false when another process holds it. */
export async function takeRefreshLease(sql: Sql, id: string, now: Date, until: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE provider_connections SET refresh_lease_until = $3
      WHERE id = $1 AND status = 'active' AND (refresh_lease_until IS NULL OR refresh_lease_until < $2) RETURNING 1`,
    [id, now, until],
  );
  return rows.length === 1;
}

/** Gives the refresh lease back (after a failed refresh), recording why. */
export async function releaseRefreshLease(sql: Sql, id: string, lastError: string | null): Promise<void> {
  await sql.query('UPDATE provider_connections SET refresh_lease_until = NULL, last_error = COALESCE($2, last_error) WHERE id = $1', [id, lastError]);
}

/**
 * Marks a connection revoked and drops its tokens: a disconnected grant keeps no secret. Its mappings are touched so
 * that every process's authority cache forgets them (the mappings notification trigger).
 */
export async function revokeConnection(sql: Sql, id: string, reason: string): Promise<void> {
  await sql.query(
    `UPDATE provider_connections
        SET status = 'revoked', access_token_enc = NULL, refresh_token_enc = NULL, access_expires_at = NULL,
            refresh_lease_until = NULL, last_error = $2, updated_at = now()
      WHERE id = $1`,
    [id, reason],
  );
  await sql.query('UPDATE mappings SET updated_at = now() WHERE provider_connection_id = $1', [id]);
}

/** The ids of the mappings that use a connection (their authority is forgotten when it changes). */
export async function mappingsOfConnection(sql: Sql, id: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>('SELECT id FROM mappings WHERE provider_connection_id = $1', [id]);
  return rows.map((r) => r.id);
}
