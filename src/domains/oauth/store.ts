import type { Sql } from '../../db/port.ts';
import type { AccountStatus, Plan } from '../../kernel/principal.ts';
import type { ClientKind, OAuthClient, OAuthScope } from './contract.ts';

interface ClientRow {
  client_id: string;
  kind: ClientKind;
  client_name: string | null;
  client_uri: string | null;
  logo_uri: string | null;
  redirect_uris: string[];
  metadata: { grant_types?: string[] };
  [key: string]: unknown;
}

function toClient(row: ClientRow): OAuthClient {
  return {
    clientId: row.client_id,
    kind: row.kind,
    name: row.client_name,
    clientUri: row.client_uri,
    logoUri: row.logo_uri,
    redirectUris: row.redirect_uris,
    grantTypes: row.metadata.grant_types ?? ['authorization_code'],
  };
}

/**
 * Stores a client, or refreshes the stored copy of a metadata document. False when the id is already taken by a
 * client of the other kind (the row is then left alone).
 */
export async function upsertClient(sql: Sql, client: OAuthClient, metadata: Record<string, unknown>, now: Date): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO oauth_clients (client_id, kind, client_name, client_uri, logo_uri, redirect_uris, metadata, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $8)
     ON CONFLICT (client_id) DO UPDATE SET client_name = EXCLUDED.client_name, client_uri = EXCLUDED.client_uri,
       logo_uri = EXCLUDED.logo_uri, redirect_uris = EXCLUDED.redirect_uris, metadata = EXCLUDED.metadata,
       updated_at = EXCLUDED.updated_at
     WHERE oauth_clients.kind = EXCLUDED.kind
     RETURNING 1`,
    [client.clientId, client.kind, client.name, client.clientUri, client.logoUri, JSON.stringify(client.redirectUris), JSON.stringify(metadata), now],
  );
  return rows.length === 1;
}

/**
 * Counts one dynamic client registration of a client address in a fixed window that starts with the address's
 * first registration, in one upsert (concurrent registrations are serialized by the row lock). Refused
 * registrations are counted up to one past the maximum, so a refusal never moves the window.
 */
export async function countRegistration(
  sql: Sql,
  input: { addressKey: string; now: Date; windowMs: number; maxRegistrations: number },
): Promise<{ allowed: boolean; windowEndsAt: Date }> {
  const windowStart = new Date(input.now.getTime() - input.windowMs);
  const rows = await sql.query<{ registrations: number; window_started_at: Date }>(
    `INSERT INTO oauth_registration_counts AS r (address_key, registrations, window_started_at) VALUES ($1, 1, $2)
     ON CONFLICT (address_key) DO UPDATE SET
       registrations = CASE WHEN r.window_started_at <= $3 THEN 1 ELSE LEAST(r.registrations + 1, $4::int + 1) END,
       window_started_at = CASE WHEN r.window_started_at <= $3 THEN $2 ELSE r.window_started_at END
     RETURNING registrations, window_started_at`,
    [input.addressKey, input.now, windowStart, input.maxRegistrations],
  );
  const row = rows[0]!;
  return {
    allowed: row.registrations <= input.maxRegistrations,
    windowEndsAt: new Date(row.window_started_at.getTime() + input.windowMs),
  };
}

/** A stored client by id. */
export async function findClient(sql: Sql, clientId: string): Promise<OAuthClient | undefined> {
  const rows = await sql.query<ClientRow>(
    'SELECT client_id, kind, client_name, client_uri, logo_uri, redirect_uris, metadata FROM oauth_clients WHERE client_id = $1',
    [clientId],
  );
  return rows[0] && toClient(rows[0]);
}

/** Stores a grant (an approval) that becomes active when its code is exchanged. */
export async function insertGrant(
  sql: Sql,
  input: { id: string; accountId: string; clientId: string; scopes: readonly OAuthScope[]; resource: string; now: Date },
): Promise<void> {
  await sql.query(
    'INSERT INTO oauth_grants (id, account_id, client_id, scopes, resource, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [input.id, input.accountId, input.clientId, input.scopes, input.resource, input.now],
  );
}

/** Stores an authorization code by its hash. */
export async function insertCode(
  sql: Sql,
  input: { codeHash: string; grantId: string; clientId: string; redirectUri: string; codeChallenge: string; expiresAt: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO oauth_codes (code_hash, grant_id, client_id, redirect_uri, code_challenge, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [input.codeHash, input.grantId, input.clientId, input.redirectUri, input.codeChallenge, input.expiresAt],
  );
}

/** An authorization code with the grant it belongs to. */
export interface CodeRow {
  code_hash: string;
  grant_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  expires_at: Date;
  consumed_at: Date | null;
  account_id: string;
  scopes: OAuthScope[];
  resource: string;
  grant_revoked_at: Date | null;
  status: AccountStatus;
  [key: string]: unknown;
}

/** Finds a code by hash. */
export async function findCode(sql: Sql, codeHash: string): Promise<CodeRow | undefined> {
  const rows = await sql.query<CodeRow>(
    `SELECT c.code_hash, c.grant_id, c.client_id, c.redirect_uri, c.code_challenge, c.expires_at, c.consumed_at,
            g.account_id, g.scopes, g.resource, g.revoked_at AS grant_revoked_at, a.status
       FROM oauth_codes c JOIN oauth_grants g ON g.id = c.grant_id JOIN accounts a ON a.id = g.account_id
      WHERE c.code_hash = $1`,
    [codeHash],
  );
  return rows[0];
}

/** Marks a code used; false when another exchange got there first (the check and the mark are one statement). */
export async function consumeCode(sql: Sql, codeHash: string, now: Date): Promise<boolean> {
  const rows = await sql.query('UPDATE oauth_codes SET consumed_at = $2 WHERE code_hash = $1 AND consumed_at IS NULL RETURNING 1', [
    codeHash,
    now,
  ]);
  return rows.length === 1;
}

/** Activates a grant at its code's exchange; false when it was revoked meanwhile. */
export async function activateGrant(sql: Sql, grantId: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE oauth_grants SET activated_at = $2, last_used_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING 1',
    [grantId, now],
  );
  return rows.length === 1;
}

/** Revokes a grant, and with it every code and token of its family (they check the grant). */
export async function revokeGrant(sql: Sql, grantId: string, reason: string, now: Date): Promise<void> {
  await sql.query('UPDATE oauth_grants SET revoked_at = $3, revoked_reason = $2 WHERE id = $1 AND revoked_at IS NULL', [
    grantId,
    reason,
    now,
  ]);
}

/** Stores an access or refresh token by its hash. */
export async function insertToken(
  sql: Sql,
  input: {
    id: string;
    tokenHash: string;
    kind: 'access' | 'refresh';
    grantId: string;
    accountId: string;
    clientId: string;
    scopes: readonly OAuthScope[];
    audience: string;
    now: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await sql.query(
    `INSERT INTO oauth_tokens (id, token_hash, kind, grant_id, account_id, client_id, scopes, audience, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [input.id, input.tokenHash, input.kind, input.grantId, input.accountId, input.clientId, input.scopes, input.audience, input.now, input.expiresAt],
  );
}

/** A token with the state of its grant and account: everything an exchange, a revocation or a request needs. */
export interface TokenRow {
  id: string;
  token_hash: string;
  kind: 'access' | 'refresh';
  grant_id: string;
  account_id: string;
  client_id: string;
  scopes: OAuthScope[];
  audience: string;
  expires_at: Date;
  revoked_at: Date | null;
  rotated_at: Date | null;
  grant_revoked_at: Date | null;
  grant_scopes: OAuthScope[];
  grant_last_used_at: Date | null;
  client_name: string | null;
  status: AccountStatus;
  plan: Plan;
  allowance_overrides: unknown;
  [key: string]: unknown;
}

/** Finds a token of either kind by hash. */
export async function findToken(sql: Sql, tokenHash: string): Promise<TokenRow | undefined> {
  const rows = await sql.query<TokenRow>(
    `SELECT t.id, t.token_hash, t.kind, t.grant_id, t.account_id, t.client_id, t.scopes, t.audience, t.expires_at,
            t.revoked_at, t.rotated_at, g.revoked_at AS grant_revoked_at, g.scopes AS grant_scopes,
            g.last_used_at AS grant_last_used_at, c.client_name, a.status, a.plan, a.allowance_overrides
       FROM oauth_tokens t
       JOIN oauth_grants g ON g.id = t.grant_id
       JOIN oauth_clients c ON c.client_id = t.client_id
       JOIN accounts a ON a.id = t.account_id
      WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

/** Marks a refresh token exchanged; false when it already was (a concurrent or replayed use) or was revoked. */
export async function rotateRefreshToken(sql: Sql, tokenId: string, now: Date): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE oauth_tokens SET rotated_at = $2 WHERE id = $1 AND rotated_at IS NULL AND revoked_at IS NULL RETURNING 1',
    [tokenId, now],
  );
  return rows.length === 1;
}

/** Revokes one token. */
export async function revokeToken(sql: Sql, tokenId: string, now: Date): Promise<void> {
  await sql.query('UPDATE oauth_tokens SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL', [tokenId, now]);
}

/** Records use of a grant; callers do it at most about once a minute. */
export async function touchGrant(sql: Sql, grantId: string, now: Date): Promise<void> {
  await sql.query('UPDATE oauth_grants SET last_used_at = $2 WHERE id = $1', [grantId, now]);
}

/** An active grant with its client, for the connected-applications page. */
export interface ActiveGrantRow {
  id: string;
  client_id: string;
  kind: ClientKind;
  client_name: string | null;
  redirect_uris: string[];
  scopes: OAuthScope[];
  created_at: Date;
  last_used_at: Date | null;
  [key: string]: unknown;
}

/** Grants that still give access: activated, not revoked, with a token that has not expired. */
export async function listActiveGrants(sql: Sql, accountId: string, now: Date): Promise<ActiveGrantRow[]> {
  return sql.query<ActiveGrantRow>(
    `SELECT g.id, g.client_id, c.kind, c.client_name, c.redirect_uris, g.scopes, g.created_at, g.last_used_at
       FROM oauth_grants g JOIN oauth_clients c ON c.client_id = g.client_id
      WHERE g.account_id = $1 AND g.activated_at IS NOT NULL AND g.revoked_at IS NULL
        AND EXISTS (SELECT 1 FROM oauth_tokens t
                     WHERE t.grant_id = g.id AND t.revoked_at IS NULL AND t.rotated_at IS NULL AND t.expires_at > $2)
      ORDER BY g.created_at, g.id`,
    [accountId, now],
  );
}

/** Revokes every unrevoked grant of one client for an account; returns how many. */
export async function revokeClientGrants(sql: Sql, accountId: string, clientId: string, now: Date): Promise<number> {
  const rows = await sql.query(
    `UPDATE oauth_grants SET revoked_at = $3, revoked_reason = 'owner'
      WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING 1`,
    [accountId, clientId, now],
  );
  return rows.length;
}

/**
 * Deletes what can no longer be used: codes and tokens expired more than a day ago, approvals whose code was
 * never exchanged, and clients that got no grant within 30 days of registering (registration is open to anyone,
 * so unused registrations must not pile up; a client that comes back later registers again). Revoked grants
 * stay, as the record of what was withdrawn and why.
 */
export async function purgeExpired(sql: Sql, now: Date): Promise<number> {
  const dayAgo = new Date(now.getTime() - 24 * 60 * 60_000);
  const codes = await sql.query('DELETE FROM oauth_codes WHERE expires_at < $1 RETURNING 1', [dayAgo]);
  const tokens = await sql.query('DELETE FROM oauth_tokens WHERE expires_at < $1 RETURNING 1', [dayAgo]);
  const grants = await sql.query('DELETE FROM oauth_grants WHERE activated_at IS NULL AND created_at < $1 RETURNING 1', [dayAgo]);
  const monthAgo = new Date(now.getTime() - 30 * 24 * 60 * 60_000);
  const clients = await sql.query(
    `DELETE FROM oauth_clients c WHERE c.updated_at < $1
        AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.client_id) RETURNING 1`,
    [monthAgo],
  );
  const registrationCounts = await sql.query('DELETE FROM oauth_registration_counts WHERE window_started_at < $1 RETURNING 1', [dayAgo]);
  return codes.length + tokens.length + grants.length + clients.length + registrationCounts.length;
}
