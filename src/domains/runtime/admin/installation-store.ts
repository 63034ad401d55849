import { uuidArrayParam, type Sql } from '../../../db/port.ts';
import type { VaultGrantAccess } from '../contract.ts';
import {
  MAX_LISTED,
  type CustomerInstallation,
  type InstallationStatus,
  type Listing,
  type OrganizationStatus,
  type ProductInstallation,
  type ProductStatus,
  type VaultGrant,
  type WorkspaceAssignment,
} from './contract.ts';

// SQL of installations, their workspace assignments and their vault grants.

/** An active installation, as the use cases that change it need it. */
export interface InstallationRecord {
  id: string;
  productId: string;
  /** The organization of the installation's product: whose chain a change of the installation changes. */
  organizationId: string;
  configuration: Record<string, unknown>;
}

/** Inserts an active installation; false when the customer has one of the product already (nothing written). */
export async function insertInstallation(sql: Sql, input: { id: string; productId: string; customerAccountId: string }): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO runtime_installations (id, product_id, customer_account_id) VALUES ($1, $2, $3)
     ON CONFLICT (product_id, customer_account_id) WHERE status = 'active' DO NOTHING RETURNING 1`,
    [input.id, input.productId, input.customerAccountId],
  );
  return rows.length === 1;
}

/** The customer's active installation with this id, its row locked for the rest of the transaction. */
export async function lockActiveInstallation(sql: Sql, id: string, customerAccountId: string): Promise<InstallationRecord | undefined> {
  const rows = await sql.query<{ id: string; product_id: string; organization_id: string; configuration: Record<string, unknown> }>(
    `SELECT i.id, i.product_id, p.organization_id, i.configuration FROM runtime_installations i
       JOIN runtime_products p ON p.id = i.product_id
      WHERE i.id = $1 AND i.customer_account_id = $2 AND i.status = 'active' FOR UPDATE OF i`,
    [id, customerAccountId],
  );
  const row = rows[0];
  return row && { id: row.id, productId: row.product_id, organizationId: row.organization_id, configuration: row.configuration };
}

/** Marks an installation uninstalled at `at`. */
export async function uninstall(sql: Sql, id: string, at: Date): Promise<void> {
  await sql.query(`UPDATE runtime_installations SET status = 'uninstalled', uninstalled_at = $2 WHERE id = $1`, [id, at]);
}

/** Replaces an installation's configuration. */
export async function setConfiguration(sql: Sql, id: string, configuration: Record<string, unknown>): Promise<void> {
  await sql.query('UPDATE runtime_installations SET configuration = $2::jsonb WHERE id = $1', [id, JSON.stringify(configuration)]);
}

interface CustomerInstallationRow {
  id: string;
  status: InstallationStatus;
  configuration: { productRuntime?: { intelligenceBudgetMicrodollarsMonthly?: number } } | null;
  created_at: Date;
  uninstalled_at: Date | null;
  product_id: string;
  product_slug: string;
  product_name: string;
  product_status: ProductStatus;
  organization_name: string;
  organization_status: OrganizationStatus;
  [key: string]: unknown;
}

/**
 * The customer's active installations (or the one named by `id`, active or not), newest first, with their
 * assignments and grants.
 */
export async function listCustomerInstallations(sql: Sql, customerAccountId: string, id?: string): Promise<Listing<CustomerInstallation>> {
  const rows = await sql.query<CustomerInstallationRow>(
    `SELECT i.id, i.status, i.configuration, i.created_at, i.uninstalled_at, p.id AS product_id, p.slug AS product_slug,
            p.name AS product_name, p.status AS product_status, o.name AS organization_name, o.status AS organization_status
       FROM runtime_installations i
       JOIN runtime_products p ON p.id = i.product_id
       JOIN runtime_organizations o ON o.id = p.organization_id
      WHERE i.customer_account_id = $1 AND ${id === undefined ? "i.status = 'active'" : 'i.id = $3'}
      ORDER BY i.created_at DESC, i.id LIMIT $2`,
    id === undefined ? [customerAccountId, MAX_LISTED + 1] : [customerAccountId, MAX_LISTED + 1, id],
  );
  const kept = rows.slice(0, MAX_LISTED);
  const ids = kept.map((row) => row.id);
  // One after the other: a transaction's statements run in order on one connection anyway.
  const assignments = await listAssignments(sql, ids);
  const grants = await listGrants(sql, ids);
  const items = kept.map((row) => ({
    id: row.id,
    status: row.status,
    product: { id: row.product_id, slug: row.product_slug, name: row.product_name, status: row.product_status },
    organization: { name: row.organization_name, status: row.organization_status },
    intelligenceSublimitMicrodollars: row.configuration?.productRuntime?.intelligenceBudgetMicrodollarsMonthly ?? null,
    createdAt: row.created_at,
    uninstalledAt: row.uninstalled_at,
    assignments: assignments.get(row.id) ?? [],
    grants: grants.get(row.id) ?? [],
  }));
  return { items, truncated: rows.length > MAX_LISTED };
}

async function listAssignments(sql: Sql, installationIds: readonly string[]): Promise<Map<string, WorkspaceAssignment[]>> {
  const byInstallation = new Map<string, WorkspaceAssignment[]>();
  if (installationIds.length === 0) return byInstallation;
  const rows = await sql.query<{ installation_id: string; workspace_id: string; name: string; created_at: Date }>(
    `SELECT a.installation_id, a.workspace_id, w.name, a.created_at FROM runtime_workspace_assignments a
       JOIN workspaces w ON w.id = a.workspace_id
      WHERE a.installation_id = ANY($1::uuid[]) ORDER BY w.name, a.workspace_id`,
    [uuidArrayParam(installationIds)],
  );
  for (const row of rows) {
    const list = byInstallation.get(row.installation_id) ?? [];
    list.push({ workspaceId: row.workspace_id, workspaceName: row.name, assignedAt: row.created_at });
    byInstallation.set(row.installation_id, list);
  }
  return byInstallation;
}

async function listGrants(sql: Sql, installationIds: readonly string[]): Promise<Map<string, VaultGrant[]>> {
  const byInstallation = new Map<string, VaultGrant[]>();
  if (installationIds.length === 0) return byInstallation;
  const rows = await sql.query<{ installation_id: string; vault_id: string; name: string; workspace_id: string; access: VaultGrantAccess; bound_at: Date | null; created_at: Date }>(
    `SELECT g.installation_id, g.vault_id, v.name, g.workspace_id, g.access, g.bound_at, g.created_at FROM runtime_vault_grants g
       JOIN vaults v ON v.id = g.vault_id
      WHERE g.installation_id = ANY($1::uuid[]) ORDER BY v.name, g.vault_id`,
    [uuidArrayParam(installationIds)],
  );
  for (const row of rows) {
    const list = byInstallation.get(row.installation_id) ?? [];
    list.push({ vaultId: row.vault_id, vaultName: row.name, workspaceId: row.workspace_id, access: row.access, boundAt: row.bound_at, grantedAt: row.created_at });
    byInstallation.set(row.installation_id, list);
  }
  return byInstallation;
}

/** The installations of a product, newest first, with their customers. */
export async function listProductInstallations(sql: Sql, productId: string): Promise<Listing<ProductInstallation>> {
  const rows = await sql.query<{ id: string; status: InstallationStatus; account_id: string; email: string; created_at: Date; uninstalled_at: Date | null }>(
    `SELECT i.id, i.status, a.id AS account_id, a.email, i.created_at, i.uninstalled_at FROM runtime_installations i
       JOIN accounts a ON a.id = i.customer_account_id
      WHERE i.product_id = $1 ORDER BY i.created_at DESC, i.id LIMIT $2`,
    [productId, MAX_LISTED + 1],
  );
  return {
    items: rows.slice(0, MAX_LISTED).map((r) => ({
      id: r.id,
      status: r.status,
      customer: { accountId: r.account_id, email: r.email },
      createdAt: r.created_at,
      uninstalledAt: r.uninstalled_at,
    })),
    truncated: rows.length > MAX_LISTED,
  };
}

/** Assigns a workspace to an installation (nothing changes when it already is). */
export async function insertAssignment(sql: Sql, installationId: string, workspaceId: string, assignedBy: string): Promise<void> {
  await sql.query(
    `INSERT INTO runtime_workspace_assignments (installation_id, workspace_id, assigned_by) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [installationId, workspaceId, assignedBy],
  );
}

/** Removes an assignment and, by cascade, the grants of its workspace's vaults; false when there was none. */
export async function deleteAssignment(sql: Sql, installationId: string, workspaceId: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM runtime_workspace_assignments WHERE installation_id = $1 AND workspace_id = $2 RETURNING 1', [
    installationId,
    workspaceId,
  ]);
  return rows.length === 1;
}

/** Whether the workspace is assigned to the installation; locks the assignment against a removal in between. */
export async function lockAssignment(sql: Sql, installationId: string, workspaceId: string): Promise<boolean> {
  const rows = await sql.query(
    'SELECT 1 FROM runtime_workspace_assignments WHERE installation_id = $1 AND workspace_id = $2 FOR SHARE',
    [installationId, workspaceId],
  );
  return rows.length === 1;
}

/** Grants a vault, or changes the access of its grant. */
export async function upsertGrant(
  sql: Sql,
  input: { installationId: string; workspaceId: string; vaultId: string; access: VaultGrantAccess; grantedBy: string },
): Promise<void> {
  await sql.query(
    `INSERT INTO runtime_vault_grants (installation_id, workspace_id, vault_id, access, granted_by) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (installation_id, vault_id) DO UPDATE SET access = EXCLUDED.access, granted_by = EXCLUDED.granted_by`,
    [input.installationId, input.workspaceId, input.vaultId, input.access, input.grantedBy],
  );
}

/** Removes a vault grant; false when there was none. */
export async function deleteGrant(sql: Sql, installationId: string, vaultId: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM runtime_vault_grants WHERE installation_id = $1 AND vault_id = $2 RETURNING 1', [installationId, vaultId]);
  return rows.length === 1;
}
