import { randomBytes } from 'node:crypto';
import type { Sql } from '../../src/db/port.ts';
import { newId } from '../../src/kernel/ids.ts';

/**
 * The records behind a service principal, written with plain SQL for tests of the credentials domain: an admin account,
 * an organization it administers, a product of it, a customer account and its installation of the product.
 */
export interface RuntimeChain {
  adminAccountId: string;
  organizationId: string;
  productId: string;
  customerAccountId: string;
  installationId: string;
}

/** What a test may set of the chain; everything is active by default, with no settings (no cap). */
export interface RuntimeChainOverrides {
  organizationStatus?: 'active' | 'suspended';
  /** The whole `settings` column, e.g. `{ productRuntime: { apiOperationsPerMonth: 0 } }`. */
  organizationSettings?: unknown;
  productStatus?: 'active' | 'retired';
  installationStatus?: 'active' | 'uninstalled';
  customerStatus?: 'active' | 'suspended';
  /** Administer with this account instead of a new one (several organizations of one admin). */
  adminAccountId?: string;
}

/** Inserts an account with a unique email. */
export async function insertRuntimeAccount(sql: Sql, label: string, status: 'active' | 'suspended' = 'active'): Promise<string> {
  const id = newId();
  const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
  await sql.query(`INSERT INTO accounts (id, email, email_key, status) VALUES ($1, $2, $2, $3)`, [id, email, status]);
  return id;
}

/** Inserts a whole chain (until the administration service exists to make one) and answers its ids. */
export async function insertRuntimeChain(sql: Sql, overrides: RuntimeChainOverrides = {}): Promise<RuntimeChain> {
  const suffix = randomBytes(4).toString('hex');
  const adminAccountId = overrides.adminAccountId ?? (await insertRuntimeAccount(sql, 'org-admin'));
  const customerAccountId = await insertRuntimeAccount(sql, 'customer', overrides.customerStatus);
  const organizationId = newId();
  await sql.query(`INSERT INTO runtime_organizations (id, slug, name, status, settings) VALUES ($1, $2, $3, $4, $5)`, [
    organizationId,
    `org-${suffix}`,
    `Organization ${suffix}`,
    overrides.organizationStatus ?? 'active',
    JSON.stringify(overrides.organizationSettings ?? {}),
  ]);
  await sql.query(`INSERT INTO runtime_organization_admins (organization_id, account_id) VALUES ($1, $2)`, [organizationId, adminAccountId]);
  const productId = newId();
  await sql.query(`INSERT INTO runtime_products (id, organization_id, slug, name, status, domain_pack) VALUES ($1, $2, $3, $4, $5, 'education')`, [
    productId,
    organizationId,
    `product-${suffix}`,
    `Product ${suffix}`,
    overrides.productStatus ?? 'active',
  ]);
  const installationId = newId();
  await sql.query(`INSERT INTO runtime_installations (id, product_id, customer_account_id, status) VALUES ($1, $2, $3, $4)`, [
    installationId,
    productId,
    customerAccountId,
    overrides.installationStatus ?? 'active',
  ]);
  return { adminAccountId, organizationId, productId, customerAccountId, installationId };
}

/** Rows of the tables a token request may write, for "nothing changed" assertions. */
export async function credentialTablesSnapshot(sql: Sql): Promise<string> {
  const tokens = await sql.query(`SELECT * FROM runtime_access_tokens ORDER BY token_hash`);
  const assertionIds = await sql.query(`SELECT * FROM runtime_assertion_ids ORDER BY principal_id, jti`);
  const credentials = await sql.query(`SELECT id, status, last_used_at, revoked_at FROM runtime_principal_credentials ORDER BY id`);
  return JSON.stringify({ tokens, assertionIds, credentials });
}
