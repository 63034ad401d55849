import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';

/**
 * Refuses an account that does not administer the organization now. Unknown organization and not an admin look the
 * same (`not_found`): an account learns nothing about organizations it does not administer.
 */
export async function assertOrganizationAdmin(sql: Sql, accountId: string, organizationId: string): Promise<void> {
  const rows = await sql.query(
    `SELECT 1 FROM runtime_organization_admins WHERE organization_id = $1 AND account_id = $2`,
    [organizationId, accountId],
  );
  if (rows.length === 0) throw new KgateError('not_found', 'The organization does not exist.');
}

/** The organization a service principal belongs to (through its installation and product), if the principal exists. */
export async function organizationOfPrincipal(sql: Sql, principalId: string): Promise<string | undefined> {
  const rows = await sql.query<{ organization_id: string }>(
    `SELECT p.organization_id FROM runtime_service_principals sp
       JOIN runtime_installations i ON i.id = sp.installation_id
       JOIN runtime_products p ON p.id = i.product_id
      WHERE sp.id = $1`,
    [principalId],
  );
  return rows[0]?.organization_id;
}
