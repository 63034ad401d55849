import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { RuntimePrincipal, VaultGrantAccess } from './contract.ts';

/** A vault the installation reaches through links 10 and 11 of the chain (docs/runtime.md). */
export interface GrantedVault {
  workspaceId: string;
  vaultId: string;
  /** The vault's mapping: what the notes domain is called with, on behalf of the customer. */
  mappingId: string;
  access: VaultGrantAccess;
}

const notAssigned = () =>
  new KgateError('workspace_not_assigned', 'This workspace is not assigned to the installation of your product.');
const notGranted = () => new KgateError('vault_not_granted', 'This vault is not granted to the installation of your product.');

interface GrantRow {
  grant_access: VaultGrantAccess | null;
  mapping_id: string | null;
  [key: string]: unknown;
}

/**
 * Links 10 and 11: the workspace is assigned to the principal's installation and its customer is still a member of
 * it; the vault is granted to the installation in that workspace, with publish access when `access` is `publish`.
 * One indexed query. A malformed id is refused like an unknown one, without a query.
 */
export async function resolveGrantedVault(
  sql: Sql,
  principal: RuntimePrincipal,
  workspaceId: string,
  vaultId: string,
  access: VaultGrantAccess,
): Promise<GrantedVault> {
  if (!isUuid(workspaceId)) throw notAssigned();
  if (!isUuid(vaultId)) throw notGranted();
  const rows = await sql.query<GrantRow>(
    `SELECT g.access AS grant_access, m.id AS mapping_id
       FROM runtime_workspace_assignments a
       JOIN workspace_members wm ON wm.workspace_id = a.workspace_id AND wm.account_id = $3
       LEFT JOIN runtime_vault_grants g
              ON g.installation_id = a.installation_id AND g.workspace_id = a.workspace_id AND g.vault_id = $4
       LEFT JOIN mappings m ON m.vault_id = g.vault_id AND m.workspace_id = a.workspace_id
      WHERE a.installation_id = $1 AND a.workspace_id = $2
      ORDER BY m.created_at
      LIMIT 1`,
    [principal.installationId, workspaceId, principal.customerAccountId, vaultId],
  );
  const row = rows[0];
  if (!row) throw notAssigned();
  if (!row.grant_access || !row.mapping_id) throw notGranted();
  if (access === 'publish' && row.grant_access !== 'publish') {
    throw new KgateError('vault_grant_read_only', 'The customer granted this vault to your product for reading only.');
  }
  return { workspaceId, vaultId, mappingId: row.mapping_id, access: row.grant_access };
}

/**
 * Link 10 alone, for a route that names a workspace but no vault (getWorkspace): the workspace is assigned to the
 * principal's installation and its customer is still a member of it. One indexed query; a malformed id is refused
 * like an unknown one, without a query.
 */
export async function requireAssignedWorkspace(sql: Sql, principal: RuntimePrincipal, workspaceId: string): Promise<void> {
  if (!isUuid(workspaceId)) throw notAssigned();
  const rows = await sql.query(
    `SELECT 1
       FROM runtime_workspace_assignments a
       JOIN workspace_members wm ON wm.workspace_id = a.workspace_id AND wm.account_id = $3
      WHERE a.installation_id = $1 AND a.workspace_id = $2`,
    [principal.installationId, workspaceId, principal.customerAccountId],
  );
  if (rows.length === 0) throw notAssigned();
}

/** Every vault granted to the installation in one assigned workspace (getWorkspace), or workspace_not_assigned. */
export async function listGrantedVaults(
  sql: Sql,
  principal: RuntimePrincipal,
  workspaceId: string,
): Promise<{ workspace: { id: string; name: string }; vaults: Array<GrantedVault & { name: string; boundAt: Date | null }> }> {
  if (!isUuid(workspaceId)) throw notAssigned();
  const rows = await sql.query<{ workspace_name: string; vault_id: string | null; vault_name: string | null; mapping_id: string | null; access: VaultGrantAccess | null; bound_at: Date | null }>(
    `SELECT w.name AS workspace_name, g.vault_id, v.name AS vault_name, m.id AS mapping_id, g.access, g.bound_at
       FROM runtime_workspace_assignments a
       JOIN workspaces w ON w.id = a.workspace_id
       JOIN workspace_members wm ON wm.workspace_id = a.workspace_id AND wm.account_id = $3
       LEFT JOIN runtime_vault_grants g ON g.installation_id = a.installation_id AND g.workspace_id = a.workspace_id
       LEFT JOIN vaults v ON v.id = g.vault_id
       LEFT JOIN LATERAL (SELECT id FROM mappings WHERE vault_id = g.vault_id AND workspace_id = a.workspace_id ORDER BY created_at LIMIT 1) m ON true
      WHERE a.installation_id = $1 AND a.workspace_id = $2
      ORDER BY v.name, g.vault_id`,
    [principal.installationId, workspaceId, principal.customerAccountId],
  );
  if (rows.length === 0) throw notAssigned();
  const vaults = rows
    .filter((r) => r.vault_id && r.mapping_id && r.access)
    .map((r) => ({ workspaceId, vaultId: r.vault_id!, mappingId: r.mapping_id!, access: r.access!, name: r.vault_name ?? '', boundAt: r.bound_at }));
  return { workspace: { id: workspaceId, name: rows[0]!.workspace_name }, vaults };
}

/** Every vault granted to the installation, in every assigned workspace whose customer is still a member. */
export async function listAllGrantedVaults(sql: Sql, principal: RuntimePrincipal): Promise<GrantedVault[]> {
  const rows = await sql.query<{ workspace_id: string; vault_id: string; mapping_id: string; access: VaultGrantAccess }>(
    `SELECT g.workspace_id, g.vault_id, m.id AS mapping_id, g.access
       FROM runtime_vault_grants g
       JOIN runtime_workspace_assignments a ON a.installation_id = g.installation_id AND a.workspace_id = g.workspace_id
       JOIN workspace_members wm ON wm.workspace_id = g.workspace_id AND wm.account_id = $2
       JOIN LATERAL (SELECT id FROM mappings WHERE vault_id = g.vault_id AND workspace_id = g.workspace_id ORDER BY created_at LIMIT 1) m ON true
      WHERE g.installation_id = $1
      ORDER BY g.workspace_id, g.vault_id
      LIMIT 500`,
    [principal.installationId, principal.customerAccountId],
  );
  return rows.map((r) => ({ workspaceId: r.workspace_id, vaultId: r.vault_id, mappingId: r.mapping_id, access: r.access }));
}

/** The vault behind a context scope, when the scope exists (link 12 goes on with the grant of that vault). */
export async function vaultOfScope(sql: Sql, scopeId: string): Promise<{ workspaceId: string; vaultId: string } | undefined> {
  if (!isUuid(scopeId)) return undefined;
  const rows = await sql.query<{ workspace_id: string; vault_id: string }>(
    `SELECT m.workspace_id, m.vault_id FROM context_scopes s JOIN mappings m ON m.id = s.mapping_id WHERE s.id = $1`,
    [scopeId],
  );
  const row = rows[0];
  return row ? { workspaceId: row.workspace_id, vaultId: row.vault_id } : undefined;
}

/** Records that the product bound a granted vault as its hosted vault (bindHostedVault); grants nothing. */
export async function markBound(sql: Sql, installationId: string, vaultId: string): Promise<Date> {
  const rows = await sql.query<{ bound_at: Date }>(
    `UPDATE runtime_vault_grants SET bound_at = now() WHERE installation_id = $1 AND vault_id = $2 RETURNING bound_at`,
    [installationId, vaultId],
  );
  return rows[0]!.bound_at;
}

/** The workspaces assigned to the installation whose customer is still a member (getRuntimeContext), at most 100. */
export async function listAssignedWorkspaces(sql: Sql, principal: RuntimePrincipal): Promise<Array<{ id: string; name: string }>> {
  return sql.query<{ id: string; name: string }>(
    `SELECT w.id, w.name
       FROM runtime_workspace_assignments a
       JOIN workspaces w ON w.id = a.workspace_id
       JOIN workspace_members wm ON wm.workspace_id = a.workspace_id AND wm.account_id = $2
      WHERE a.installation_id = $1
      ORDER BY w.name, w.id
      LIMIT 100`,
    [principal.installationId, principal.customerAccountId],
  );
}
