import type { Sql } from '../../../db/port.ts';
import type { RuntimeScope } from '../contract.ts';
import type { CredentialInfo, PrincipalInfo } from './contract.ts';

/** SQL of service principals, their credentials, access tokens and seen assertion ids (tables runtime_*). */

interface PrincipalRow {
  id: string;
  installation_id: string;
  name: string;
  scopes: RuntimeScope[];
  status: 'active' | 'revoked';
  created_at: Date;
  revoked_at: Date | null;
  [key: string]: unknown;
}

const PRINCIPAL_COLUMNS = 'id, installation_id, name, scopes, status, created_at, revoked_at';

function toPrincipal(row: PrincipalRow): PrincipalInfo {
  return {
    id: row.id,
    installationId: row.installation_id,
    name: row.name,
    scopes: row.scopes,
    status: row.status,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

interface CredentialRow {
  id: string;
  principal_id: string;
  kind: 'client_secret' | 'public_key';
  secret_last_four: string | null;
  public_jwk: Record<string, unknown> | null;
  key_id: string | null;
  status: 'active' | 'revoked';
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  [key: string]: unknown;
}

// Never secret_hash: listings have no use for it.
const CREDENTIAL_COLUMNS = 'id, principal_id, kind, secret_last_four, public_jwk, key_id, status, created_at, last_used_at, revoked_at';

function toCredential(row: CredentialRow, secretPrefix: string): CredentialInfo {
  return {
    id: row.id,
    principalId: row.principal_id,
    kind: row.kind,
    display: row.secret_last_four === null ? null : `${secretPrefix}…${row.secret_last_four}`,
    keyId: row.key_id,
    publicJwk: row.public_jwk,
    status: row.status,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

/** An installation's status and the organization of its product, for the admin check; undefined when unknown. */
export async function findInstallationOwner(
  sql: Sql,
  installationId: string,
): Promise<{ organization_id: string; status: string } | undefined> {
  const rows = await sql.query<{ organization_id: string; status: string }>(
    `SELECT p.organization_id, i.status FROM runtime_installations i JOIN runtime_products p ON p.id = i.product_id WHERE i.id = $1`,
    [installationId],
  );
  return rows[0];
}

/** Stores a new active principal. */
export async function insertPrincipal(
  sql: Sql,
  input: { id: string; installationId: string; name: string; scopes: readonly RuntimeScope[]; now: Date },
): Promise<PrincipalInfo> {
  const rows = await sql.query<PrincipalRow>(
    `INSERT INTO runtime_service_principals (id, installation_id, name, scopes, created_at) VALUES ($1, $2, $3, $4, $5)
     RETURNING ${PRINCIPAL_COLUMNS}`,
    [input.id, input.installationId, input.name, input.scopes, input.now],
  );
  return toPrincipal(rows[0]!);
}

/** An installation's principals, newest first. */
export async function listPrincipals(sql: Sql, installationId: string): Promise<PrincipalInfo[]> {
  const rows = await sql.query<PrincipalRow>(
    `SELECT ${PRINCIPAL_COLUMNS} FROM runtime_service_principals WHERE installation_id = $1 ORDER BY created_at DESC, id DESC`,
    [installationId],
  );
  return rows.map(toPrincipal);
}

/** Locks and returns one principal. */
export async function findPrincipalForUpdate(sql: Sql, principalId: string): Promise<PrincipalInfo | undefined> {
  const rows = await sql.query<PrincipalRow>(`SELECT ${PRINCIPAL_COLUMNS} FROM runtime_service_principals WHERE id = $1 FOR UPDATE`, [
    principalId,
  ]);
  return rows[0] && toPrincipal(rows[0]);
}

/**
 * Revokes a principal (once: a second call keeps the first time). Its tokens stop at once through link 2 of the chain,
 * which answers them `principal_revoked` so that the product learns why; they are kept until they expire and are purged.
 */
export async function revokePrincipal(sql: Sql, principalId: string, now: Date): Promise<void> {
  await sql.query(`UPDATE runtime_service_principals SET status = 'revoked', revoked_at = $2 WHERE id = $1 AND status = 'active'`, [
    principalId,
    now,
  ]);
}

/** How many active credentials a principal holds. */
export async function countActiveCredentials(sql: Sql, principalId: string): Promise<number> {
  const rows = await sql.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM runtime_principal_credentials WHERE principal_id = $1 AND status = 'active'`,
    [principalId],
  );
  return rows[0]!.count;
}

/** True when an active public key of the principal already carries this key id. */
export async function activeKeyIdExists(sql: Sql, principalId: string, keyId: string): Promise<boolean> {
  const rows = await sql.query(
    `SELECT 1 FROM runtime_principal_credentials WHERE principal_id = $1 AND kind = 'public_key' AND status = 'active' AND key_id = $2`,
    [principalId, keyId],
  );
  return rows.length > 0;
}

/** Stores a client secret credential; only the secret's hash and last four characters are given to this function. */
export async function insertClientSecret(
  sql: Sql,
  input: { id: string; principalId: string; secretHash: string; lastFour: string; now: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO runtime_principal_credentials (id, principal_id, kind, secret_hash, secret_last_four, created_at)
     VALUES ($1, $2, 'client_secret', $3, $4, $5)`,
    [input.id, input.principalId, input.secretHash, input.lastFour, input.now],
  );
}

/** Stores a public key credential. */
export async function insertPublicKey(
  sql: Sql,
  input: { id: string; principalId: string; jwk: Record<string, unknown>; keyId: string; now: Date },
  secretPrefix: string,
): Promise<CredentialInfo> {
  const rows = await sql.query<CredentialRow>(
    `INSERT INTO runtime_principal_credentials (id, principal_id, kind, public_jwk, key_id, created_at)
     VALUES ($1, $2, 'public_key', $3, $4, $5) RETURNING ${CREDENTIAL_COLUMNS}`,
    [input.id, input.principalId, JSON.stringify(input.jwk), input.keyId, input.now],
  );
  return toCredential(rows[0]!, secretPrefix);
}

/** A principal's credentials, newest first. */
export async function listCredentials(sql: Sql, principalId: string, secretPrefix: string): Promise<CredentialInfo[]> {
  const rows = await sql.query<CredentialRow>(
    `SELECT ${CREDENTIAL_COLUMNS} FROM runtime_principal_credentials WHERE principal_id = $1 ORDER BY created_at DESC, id DESC`,
    [principalId],
  );
  return rows.map((row) => toCredential(row, secretPrefix));
}

/** Locks and returns one credential. */
export async function findCredentialForUpdate(sql: Sql, credentialId: string, secretPrefix: string): Promise<CredentialInfo | undefined> {
  const rows = await sql.query<CredentialRow>(`SELECT ${CREDENTIAL_COLUMNS} FROM runtime_principal_credentials WHERE id = $1 FOR UPDATE`, [
    credentialId,
  ]);
  return rows[0] && toCredential(rows[0], secretPrefix);
}

/** Revokes a credential (once) and deletes every token issued from it. */
export async function revokeCredential(sql: Sql, credentialId: string, now: Date): Promise<void> {
  await sql.query(`UPDATE runtime_principal_credentials SET status = 'revoked', revoked_at = $2 WHERE id = $1 AND status = 'active'`, [
    credentialId,
    now,
  ]);
  await sql.query(`DELETE FROM runtime_access_tokens WHERE credential_id = $1`, [credentialId]);
}

/** A principal's usable credential, as client authentication needs it. */
export interface ActiveCredentialRow {
  id: string;
  kind: 'client_secret' | 'public_key';
  secret_hash: string | null;
  public_jwk: Record<string, unknown> | null;
  key_id: string | null;
  [key: string]: unknown;
}

/** A principal's active, unexpired credentials of one kind (at most MAX_ACTIVE_CREDENTIALS_PER_PRINCIPAL). */
export async function activeCredentials(
  sql: Sql,
  principalId: string,
  kind: 'client_secret' | 'public_key',
  now: Date,
): Promise<ActiveCredentialRow[]> {
  return sql.query<ActiveCredentialRow>(
    `SELECT id, kind, secret_hash, public_jwk, key_id FROM runtime_principal_credentials
      WHERE principal_id = $1 AND kind = $2 AND status = 'active' AND (expires_at IS NULL OR expires_at > $3)
      ORDER BY created_at, id`,
    [principalId, kind, now],
  );
}

/** Records the credential's use; `last_used_at` is what admins look at before revoking an old credential. */
export async function touchCredential(sql: Sql, credentialId: string, now: Date): Promise<void> {
  await sql.query(`UPDATE runtime_principal_credentials SET last_used_at = $2 WHERE id = $1`, [credentialId, now]);
}

/**
 * Every link of the chain behind a principal and its tokens (docs/runtime.md, links 2 to 8): one indexed query,
 * each join by primary key.
 */
export interface ChainRow {
  principal_id: string;
  principal_name: string;
  principal_status: string;
  principal_scopes: string[];
  installation_id: string;
  installation_status: string;
  customer_account_id: string;
  product_id: string;
  product_slug: string;
  product_name: string;
  product_domain_pack: string | null;
  product_status: string;
  organization_id: string;
  organization_slug: string;
  organization_name: string;
  organization_status: string;
  organization_settings: unknown;
  installation_configuration: unknown;
  account_status: string;
  [key: string]: unknown;
}

const CHAIN_COLUMNS = `sp.id AS principal_id, sp.name AS principal_name, sp.status AS principal_status, sp.scopes AS principal_scopes,
  i.id AS installation_id, i.status AS installation_status, i.customer_account_id, i.configuration AS installation_configuration,
  p.id AS product_id, p.slug AS product_slug, p.name AS product_name, p.domain_pack AS product_domain_pack, p.status AS product_status,
  o.id AS organization_id, o.slug AS organization_slug, o.name AS organization_name, o.status AS organization_status,
  o.settings AS organization_settings, a.status AS account_status`;

const CHAIN_JOINS = `JOIN runtime_installations i ON i.id = sp.installation_id
  JOIN runtime_products p ON p.id = i.product_id
  JOIN runtime_organizations o ON o.id = p.organization_id
  JOIN accounts a ON a.id = i.customer_account_id`;

/** The chain behind a principal, when the principal exists. */
export async function findPrincipalChain(sql: Sql, principalId: string): Promise<ChainRow | undefined> {
  const rows = await sql.query<ChainRow>(`SELECT ${CHAIN_COLUMNS} FROM runtime_service_principals sp ${CHAIN_JOINS} WHERE sp.id = $1`, [
    principalId,
  ]);
  return rows[0];
}

/** A token with the chain behind it. */
export interface TokenChainRow extends ChainRow {
  token_hash: string;
  token_scopes: string[];
  token_expires_at: Date;
  credential_id: string;
  credential_status: string;
  credential_expires_at: Date | null;
}

/** Links 1 to 8 of the chain for a token hash, in one query (docs/runtime.md). */
export async function findTokenChain(sql: Sql, tokenHash: string): Promise<TokenChainRow | undefined> {
  const rows = await sql.query<TokenChainRow>(
    `SELECT t.token_hash, t.scopes AS token_scopes, t.expires_at AS token_expires_at, c.id AS credential_id,
            c.status AS credential_status, c.expires_at AS credential_expires_at, ${CHAIN_COLUMNS}
       FROM runtime_access_tokens t
       JOIN runtime_service_principals sp ON sp.id = t.principal_id
       JOIN runtime_principal_credentials c ON c.id = t.credential_id
       ${CHAIN_JOINS}
      WHERE t.token_hash = $1`,
    [tokenHash],
  );
  return rows[0];
}

/**
 * Records an assertion's `jti` for the principal (RFC 7523 section 3: used once). False when it was already recorded:
 * a replay. Concurrent uses of one jti serialize on the primary key, and only one inserts.
 */
export async function recordAssertionId(sql: Sql, principalId: string, jti: string, expiresAt: Date): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO runtime_assertion_ids (principal_id, jti, expires_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
    [principalId, jti, expiresAt],
  );
  return rows.length === 1;
}

/** Stores an access token; only its hash is given to this function. */
export async function insertAccessToken(
  sql: Sql,
  input: { tokenHash: string; principalId: string; credentialId: string; scopes: readonly RuntimeScope[]; expiresAt: Date; now: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO runtime_access_tokens (token_hash, principal_id, credential_id, scopes, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [input.tokenHash, input.principalId, input.credentialId, input.scopes, input.expiresAt, input.now],
  );
}

/** Deletes expired tokens and assertion ids that can no longer be replayed; answers how many of each. */
export async function purgeExpired(sql: Sql, now: Date): Promise<{ tokens: number; assertionIds: number }> {
  const count = async (table: string) => {
    const rows = await sql.query<{ count: number }>(
      `WITH gone AS (DELETE FROM ${table} WHERE expires_at <= $1 RETURNING 1) SELECT count(*)::int AS count FROM gone`,
      [now],
    );
    return rows[0]!.count;
  };
  return { tokens: await count('runtime_access_tokens'), assertionIds: await count('runtime_assertion_ids') };
}
