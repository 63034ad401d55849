/** SQL of delegated connections (migration 0023): connections, started authorizations and write intents. */
import type { Sql } from '../../../db/port.ts';
import type { ConnectionService } from './contract.ts';

interface ConnectionRow {
  id: string;
  installation_id: string;
  customer_account_id: string;
  status: 'pending' | 'active' | 'revoked';
  scopes: string[];
  access_token_enc: string | null;
  refresh_token_enc: string | null;
  access_expires_at: Date | null;
  last_error: string | null;
  connected_at: Date | null;
  updated_at: Date;
  [key: string]: unknown;
}

/** A connection with its sealed tokens: never leaves this module. */
export interface SealedConnection {
  id: string;
  installationId: string;
  customerAccountId: string;
  status: 'pending' | 'active' | 'revoked';
  scopes: string[];
  accessTokenEnc: string | null;
  refreshTokenEnc: string | null;
  accessExpiresAt: Date | null;
  lastError: string | null;
  connectedAt: Date | null;
  updatedAt: Date;
}

const COLUMNS = `id, installation_id, customer_account_id, status, scopes, access_token_enc, refresh_token_enc, access_expires_at,
  last_error, connected_at, updated_at`;

function toConnection(row: ConnectionRow): SealedConnection {
  return {
    id: row.id,
    installationId: row.installation_id,
    customerAccountId: row.customer_account_id,
    status: row.status,
    scopes: row.scopes,
    accessTokenEnc: row.access_token_enc,
    refreshTokenEnc: row.refresh_token_enc,
    accessExpiresAt: row.access_expires_at,
    lastError: row.last_error,
    connectedAt: row.connected_at,
    updatedAt: row.updated_at,
  };
}

/** An installation as the callback re-checks it: still active, its product and organization too, and where it may return. */
export interface InstallationTargets {
  customerAccountId: string;
  productId: string;
  returnOrigins: string[];
}

/** The installation's customer and its product's registered return origins, while the whole chain above it is active. */
export async function installationTargets(sql: Sql, installationId: string): Promise<InstallationTargets | undefined> {
  const rows = await sql.query<{ customer_account_id: string; product_id: string; return_origins: string[] }>(
    `SELECT i.customer_account_id, p.id AS product_id, p.return_origins
       FROM runtime_installations i
       JOIN runtime_products p ON p.id = i.product_id
       JOIN runtime_organizations o ON o.id = p.organization_id
       JOIN accounts a ON a.id = i.customer_account_id
      WHERE i.id = $1 AND i.status = 'active' AND p.status = 'active' AND o.status = 'active' AND a.status = 'active'`,
    [installationId],
  );
  const row = rows[0];
  return row && { customerAccountId: row.customer_account_id, productId: row.product_id, returnOrigins: row.return_origins };
}

/** A started authorization as stored. */
export interface StartedAuthorization {
  stateHash: string;
  installationId: string;
  customerAccountId: string;
  services: ConnectionService[];
  returnTo: string;
  clientState: string | null;
  verifierEnc: string;
  expiresAt: Date;
}

/** Records a started authorization. */
export async function insertAuthorization(sql: Sql, input: StartedAuthorization): Promise<void> {
  await sql.query(
    `INSERT INTO education_connection_authorizations
       (state_hash, installation_id, customer_account_id, provider, services, return_to, client_state, code_verifier_enc, expires_at)
     VALUES ($1, $2, $3, 'google', $4, $5, $6, $7, $8)`,
    [input.stateHash, input.installationId, input.customerAccountId, input.services, input.returnTo, input.clientState, input.verifierEnc, input.expiresAt],
  );
}

/** Takes a started authorization once: deleted as it is read, so a state is never accepted twice. */
export async function takeAuthorization(sql: Sql, stateHash: string): Promise<StartedAuthorization | undefined> {
  const rows = await sql.query<{
    installation_id: string;
    customer_account_id: string;
    services: ConnectionService[];
    return_to: string;
    client_state: string | null;
    code_verifier_enc: string;
    expires_at: Date;
  }>(
    `DELETE FROM education_connection_authorizations WHERE state_hash = $1
     RETURNING installation_id, customer_account_id, services, return_to, client_state, code_verifier_enc, expires_at`,
    [stateHash],
  );
  const row = rows[0];
  return (
    row && {
      stateHash,
      installationId: row.installation_id,
      customerAccountId: row.customer_account_id,
      services: row.services,
      returnTo: row.return_to,
      clientState: row.client_state,
      verifierEnc: row.code_verifier_enc,
      expiresAt: row.expires_at,
    }
  );
}

/**
 * The id of the installation's Google connection, made (pending, without tokens) when it has none yet: tokens are
 * sealed for a row id, so the id is settled before anything is sealed, and two callbacks racing share one row.
 */
export async function connectionIdFor(sql: Sql, input: { newId: string; installationId: string; customerAccountId: string }): Promise<string> {
  await sql.query(
    `INSERT INTO education_connections (id, installation_id, customer_account_id, provider, status)
     VALUES ($1, $2, $3, 'google', 'pending') ON CONFLICT (installation_id, provider) DO NOTHING`,
    [input.newId, input.installationId, input.customerAccountId],
  );
  const rows = await sql.query<{ id: string }>(`SELECT id FROM education_connections WHERE installation_id = $1 AND provider = 'google'`, [input.installationId]);
  return rows[0]!.id;
}

/** A grant as stored: sealed tokens and the scopes actually granted. */
export interface SealedGrant {
  scopes: string[];
  accessTokenEnc: string;
  refreshTokenEnc: string | null;
  accessExpiresAt: Date | null;
}

/** Stores a new grant: the connection is active with it (a reconnection replaces the previous one). */
export async function storeGrant(sql: Sql, id: string, grant: SealedGrant): Promise<void> {
  await sql.query(
    `UPDATE education_connections
        SET status = 'active', scopes = $2, access_token_enc = $3, refresh_token_enc = $4, access_expires_at = $5,
            refresh_lease_until = NULL, last_error = NULL, connected_at = now(), updated_at = now()
      WHERE id = $1`,
    [id, grant.scopes, grant.accessTokenEnc, grant.refreshTokenEnc, grant.accessExpiresAt],
  );
}

/** Stores refreshed tokens, if the connection is still active (the refresh token is kept when none came back). */
export async function storeRefreshed(sql: Sql, id: string, grant: SealedGrant): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE education_connections
        SET scopes = $2, access_token_enc = $3, refresh_token_enc = COALESCE($4, refresh_token_enc), access_expires_at = $5,
            refresh_lease_until = NULL, last_error = NULL, updated_at = now()
      WHERE id = $1 AND status = 'active' RETURNING 1`,
    [id, grant.scopes, grant.accessTokenEnc, grant.refreshTokenEnc, grant.accessExpiresAt],
  );
  return rows.length === 1;
}

/** One connection by id, of any installation (callers check whose it is). */
export async function findConnection(sql: Sql, id: string): Promise<SealedConnection | undefined> {
  const rows = await sql.query<ConnectionRow>(`SELECT ${COLUMNS} FROM education_connections WHERE id = $1`, [id]);
  return rows[0] && toConnection(rows[0]);
}

/** An installation's connections that ever completed (pending rows are an authorization in progress, not a connection). */
export async function listConnections(sql: Sql, installationId: string): Promise<SealedConnection[]> {
  const rows = await sql.query<ConnectionRow>(
    `SELECT ${COLUMNS} FROM education_connections WHERE installation_id = $1 AND status <> 'pending' ORDER BY created_at, id`,
    [installationId],
  );
  return rows.map(toConnection);
}

/** Takes the refresh lease of an active connection until `until`; false when another process holds it. */
export async function takeRefreshLease(sql: Sql, id: string, now: Date, until: Date): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE education_connections SET refresh_lease_until = $3
      WHERE id = $1 AND status = 'active' AND (refresh_lease_until IS NULL OR refresh_lease_until < $2) RETURNING 1`,
    [id, now, until],
  );
  return rows.length === 1;
}

/** Gives the refresh lease back after a failed refresh, recording why. */
export async function releaseRefreshLease(sql: Sql, id: string, lastError: string): Promise<void> {
  await sql.query('UPDATE education_connections SET refresh_lease_until = NULL, last_error = $2 WHERE id = $1', [id, lastError]);
}

/** Marks a connection revoked and drops its tokens: a revoked grant keeps no secret. */
export async function revokeConnection(sql: Sql, id: string, reason: string): Promise<void> {
  await sql.query(
    `UPDATE education_connections
        SET status = 'revoked', access_token_enc = NULL, refresh_token_enc = NULL, access_expires_at = NULL,
            refresh_lease_until = NULL, last_error = $2, updated_at = now()
      WHERE id = $1 AND status <> 'pending'`,
    [id, reason],
  );
}

/** Deletes authorizations past their expiry and intents older than `intentsBefore`; returns how many rows went. */
export async function purgeExpired(sql: Sql, now: Date, intentsBefore: Date): Promise<number> {
  const authorizations = await sql.query('DELETE FROM education_connection_authorizations WHERE expires_at < $1 RETURNING 1', [now]);
  const intents = await sql.query('DELETE FROM education_provider_intents WHERE started_at < $1 RETURNING 1', [intentsBefore]);
  return authorizations.length + intents.length;
}

/** What a key is about to write at the provider (see migration 0023). */
export interface ProviderIntent {
  kind: 'drive.create' | 'drive.update' | 'classroom.assignment';
  fingerprint: string;
  target: string;
  detail: string | null;
  resultId: string | null;
  startedAt: Date;
}

/** The key of an intent: the connection, and the idempotency key with whose key it is. */
export interface IntentKey {
  connectionId: string;
  claimScope: string;
  key: string;
}

/** The intent recorded under a key, if any. */
export async function findIntent(sql: Sql, at: IntentKey): Promise<ProviderIntent | undefined> {
  const rows = await sql.query<{ kind: ProviderIntent['kind']; fingerprint: string; target: string; detail: string | null; result_id: string | null; started_at: Date }>(
    `SELECT kind, fingerprint, target, detail, result_id, started_at FROM education_provider_intents
      WHERE connection_id = $1 AND claim_scope = $2 AND idempotency_key = $3`,
    [at.connectionId, at.claimScope, at.key],
  );
  const row = rows[0];
  return row && { kind: row.kind, fingerprint: row.fingerprint, target: row.target, detail: row.detail, resultId: row.result_id, startedAt: row.started_at };
}

/** Records an intent before its provider call; answers the one already there when another got in first. */
export async function insertIntent(sql: Sql, at: IntentKey, intent: Omit<ProviderIntent, 'resultId' | 'startedAt'>): Promise<ProviderIntent> {
  await sql.query(
    `INSERT INTO education_provider_intents (connection_id, claim_scope, idempotency_key, kind, fingerprint, target, detail)
     VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
    [at.connectionId, at.claimScope, at.key, intent.kind, intent.fingerprint, intent.target, intent.detail],
  );
  return (await findIntent(sql, at))!;
}

/** Records what the provider answered for an intent (the Classroom courseWork id). */
export async function setIntentResult(sql: Sql, at: IntentKey, resultId: string): Promise<void> {
  await sql.query(
    'UPDATE education_provider_intents SET result_id = $4 WHERE connection_id = $1 AND claim_scope = $2 AND idempotency_key = $3',
    [at.connectionId, at.claimScope, at.key, resultId],
  );
}
