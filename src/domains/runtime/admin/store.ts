import { textArrayParam, uuidArrayParam, type Sql } from '../../../db/port.ts';
import type { ProductRuntimeSettings } from '../contract.ts';
import type { BrandProfile, ExperiencePack } from '../presentation/index.ts';
import { MAX_LISTED, type InstallableProduct, type Listing, type OrganizationAdmin, type OrganizationStatus, type ProductStatus, type RuntimeOrganization, type RuntimeProduct } from './contract.ts';

// SQL of organizations, their admins and their products.

interface OrganizationRow {
  id: string;
  slug: string;
  name: string;
  status: OrganizationStatus;
  settings: { productRuntime?: ProductRuntimeSettings } | null;
  brand: BrandProfile | null;
  created_at: Date;
  [key: string]: unknown;
}

const ORGANIZATION_COLUMNS = 'o.id, o.slug, o.name, o.status, o.settings, o.brand, o.created_at';

function toOrganization(row: OrganizationRow): RuntimeOrganization {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    settings: row.settings?.productRuntime ?? {},
    brand: row.brand,
    createdAt: row.created_at,
  };
}

/** Inserts an organization; false when its slug is taken (nothing written). */
export async function insertOrganization(sql: Sql, input: { id: string; slug: string; name: string }): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO runtime_organizations (id, slug, name) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING RETURNING 1`,
    [input.id, input.slug, input.name],
  );
  return rows.length === 1;
}

/** The organization with this slug; `lock` takes its row for the rest of the transaction. */
export async function findOrganizationBySlug(sql: Sql, slug: string, lock = false): Promise<RuntimeOrganization | undefined> {
  const rows = await sql.query<OrganizationRow>(
    `SELECT ${ORGANIZATION_COLUMNS} FROM runtime_organizations o WHERE o.slug = $1${lock ? ' FOR UPDATE' : ''}`,
    [slug],
  );
  return rows[0] && toOrganization(rows[0]);
}

/** The organization with this id. */
export async function findOrganization(sql: Sql, id: string): Promise<RuntimeOrganization | undefined> {
  const rows = await sql.query<OrganizationRow>(`SELECT ${ORGANIZATION_COLUMNS} FROM runtime_organizations o WHERE o.id = $1`, [id]);
  return rows[0] && toOrganization(rows[0]);
}

/** Every organization, oldest first, at most MAX_LISTED. */
export async function listOrganizations(sql: Sql): Promise<Listing<RuntimeOrganization>> {
  const rows = await sql.query<OrganizationRow>(
    `SELECT ${ORGANIZATION_COLUMNS} FROM runtime_organizations o ORDER BY o.created_at, o.id LIMIT $1`,
    [MAX_LISTED + 1],
  );
  return { items: rows.slice(0, MAX_LISTED).map(toOrganization), truncated: rows.length > MAX_LISTED };
}

/** The organizations an account administers now, by name. */
export async function listOrganizationsOfAdmin(sql: Sql, accountId: string): Promise<RuntimeOrganization[]> {
  const rows = await sql.query<OrganizationRow>(
    `SELECT ${ORGANIZATION_COLUMNS} FROM runtime_organizations o
       JOIN runtime_organization_admins a ON a.organization_id = o.id AND a.account_id = $1
      ORDER BY o.name, o.id`,
    [accountId],
  );
  return rows.map(toOrganization);
}

/** Replaces `settings.productRuntime`, keeping any other key of `settings`. */
export async function setOrganizationSettings(sql: Sql, id: string, settings: ProductRuntimeSettings): Promise<void> {
  await sql.query(`UPDATE runtime_organizations SET settings = settings || jsonb_build_object('productRuntime', $2::jsonb) WHERE id = $1`, [
    id,
    JSON.stringify(settings),
  ]);
}

/** Sets an organization's status. */
export async function setOrganizationStatus(sql: Sql, id: string, status: OrganizationStatus): Promise<void> {
  await sql.query('UPDATE runtime_organizations SET status = $2 WHERE id = $1', [id, status]);
}

/** Sets (or, with null, removes) an organization's brand profile. */
export async function setOrganizationBrand(sql: Sql, id: string, brand: BrandProfile | null): Promise<void> {
  await sql.query('UPDATE runtime_organizations SET brand = $2::jsonb WHERE id = $1', [id, brand === null ? null : JSON.stringify(brand)]);
}

/** Makes an account an admin of an organization; false when it already was. */
export async function insertAdmin(sql: Sql, organizationId: string, accountId: string): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO runtime_organization_admins (organization_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1`,
    [organizationId, accountId],
  );
  return rows.length === 1;
}

/** Removes an admin; false when the account was not one. */
export async function deleteAdmin(sql: Sql, organizationId: string, accountId: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM runtime_organization_admins WHERE organization_id = $1 AND account_id = $2 RETURNING 1', [
    organizationId,
    accountId,
  ]);
  return rows.length === 1;
}

/** The admins of each organization, by email. */
export async function listAdmins(sql: Sql, organizationIds: readonly string[]): Promise<Map<string, OrganizationAdmin[]>> {
  const byOrganization = new Map<string, OrganizationAdmin[]>(organizationIds.map((id) => [id, []]));
  if (organizationIds.length === 0) return byOrganization;
  const rows = await sql.query<{ organization_id: string; account_id: string; email: string }>(
    `SELECT a.organization_id, a.account_id, c.email FROM runtime_organization_admins a JOIN accounts c ON c.id = a.account_id
      WHERE a.organization_id = ANY($1::uuid[]) ORDER BY c.email_key`,
    [uuidArrayParam(organizationIds)],
  );
  for (const row of rows) byOrganization.get(row.organization_id)?.push({ accountId: row.account_id, email: row.email });
  return byOrganization;
}

interface ProductRow {
  id: string;
  organization_id: string;
  slug: string;
  name: string;
  status: ProductStatus;
  domain_pack: string | null;
  experience_pack: ExperiencePack | null;
  return_origins: string[];
  created_at: Date;
  [key: string]: unknown;
}

const PRODUCT_COLUMNS = 'p.id, p.organization_id, p.slug, p.name, p.status, p.domain_pack, p.experience_pack, p.return_origins, p.created_at';

function toProduct(row: ProductRow): RuntimeProduct {
  return {
    id: row.id,
    organizationId: row.organization_id,
    slug: row.slug,
    name: row.name,
    status: row.status,
    domainPack: row.domain_pack,
    experiencePack: row.experience_pack,
    returnOrigins: row.return_origins,
    createdAt: row.created_at,
  };
}

/** The stored fields of a product definition. */
export interface ProductFields {
  name: string;
  domainPack: string | null;
  experiencePack: ExperiencePack | null;
  returnOrigins: string[];
}

/** Inserts a product; false when its slug is taken (nothing written). */
export async function insertProduct(sql: Sql, input: ProductFields & { id: string; organizationId: string; slug: string }): Promise<boolean> {
  const rows = await sql.query(
    `INSERT INTO runtime_products (id, organization_id, slug, name, domain_pack, experience_pack, return_origins)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::text[]) ON CONFLICT (slug) DO NOTHING RETURNING 1`,
    [
      input.id,
      input.organizationId,
      input.slug,
      input.name,
      input.domainPack,
      input.experiencePack === null ? null : JSON.stringify(input.experiencePack),
      textArrayParam(input.returnOrigins),
    ],
  );
  return rows.length === 1;
}

/** The product with this id; `lock` takes its row for the rest of the transaction. */
export async function findProduct(sql: Sql, id: string, lock = false): Promise<RuntimeProduct | undefined> {
  const rows = await sql.query<ProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM runtime_products p WHERE p.id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] && toProduct(rows[0]);
}

/** The product with this slug. */
export async function findProductBySlug(sql: Sql, slug: string): Promise<RuntimeProduct | undefined> {
  const rows = await sql.query<ProductRow>(`SELECT ${PRODUCT_COLUMNS} FROM runtime_products p WHERE p.slug = $1`, [slug]);
  return rows[0] && toProduct(rows[0]);
}

/** Replaces a product's definition fields. */
export async function updateProduct(sql: Sql, id: string, fields: ProductFields): Promise<void> {
  await sql.query(
    `UPDATE runtime_products SET name = $2, domain_pack = $3, experience_pack = $4::jsonb, return_origins = $5::text[] WHERE id = $1`,
    [id, fields.name, fields.domainPack, fields.experiencePack === null ? null : JSON.stringify(fields.experiencePack), textArrayParam(fields.returnOrigins)],
  );
}

/** Sets a product's status. */
export async function setProductStatus(sql: Sql, id: string, status: ProductStatus): Promise<void> {
  await sql.query('UPDATE runtime_products SET status = $2 WHERE id = $1', [id, status]);
}

/** The products of an organization, by name, retired ones too. */
export async function listProducts(sql: Sql, organizationId: string): Promise<Listing<RuntimeProduct>> {
  const rows = await sql.query<ProductRow>(
    `SELECT ${PRODUCT_COLUMNS} FROM runtime_products p WHERE p.organization_id = $1 ORDER BY p.name, p.id LIMIT $2`,
    [organizationId, MAX_LISTED + 1],
  );
  return { items: rows.slice(0, MAX_LISTED).map(toProduct), truncated: rows.length > MAX_LISTED };
}

const INSTALLABLE = `runtime_products p JOIN runtime_organizations o ON o.id = p.organization_id
  WHERE p.status = 'active' AND o.status = 'active'`;

/** Active products of active organizations, by name. */
export async function listInstallableProducts(sql: Sql): Promise<Listing<InstallableProduct>> {
  const rows = await sql.query<{ slug: string; name: string; organization_name: string; domain_pack: string | null }>(
    `SELECT p.slug, p.name, o.name AS organization_name, p.domain_pack FROM ${INSTALLABLE} ORDER BY p.name, p.slug LIMIT $1`,
    [MAX_LISTED + 1],
  );
  return {
    items: rows.slice(0, MAX_LISTED).map((r) => ({ slug: r.slug, name: r.name, organizationName: r.organization_name, domainPack: r.domain_pack })),
    truncated: rows.length > MAX_LISTED,
  };
}

/**
 * The id of the installable product with this slug (active, of an active organization), its rows locked against a
 * retirement or suspension committing in between; undefined otherwise.
 */
export async function findInstallableProduct(sql: Sql, slug: string): Promise<string | undefined> {
  const rows = await sql.query<{ id: string }>(`SELECT p.id FROM ${INSTALLABLE} AND p.slug = $1 FOR SHARE OF p, o`, [slug]);
  return rows[0]?.id;
}
