import { uuidArrayParam, type Sql } from '../../db/port.ts';
import { isUuid } from '../../kernel/ids.ts';
import type { PackListing, PackVersionInfo } from './contract.ts';

// SQL of packs and their versions (migration 0021) as records: which pack and version a selector names, the packs of
// products with their versions, and who is entitled to a product's packs (the runtime_* tables of migration 0020).
// A pack version's content is version-store.ts's.

/** How an account is entitled to a product's packs (docs/packs.md, "Entitlement"). */
export type PackEntitlement = 'admin' | 'customer';

interface VersionInfoRow {
  id: string;
  pack_id: string;
  product_id: string;
  product_slug: string;
  pack_slug: string;
  version: number;
  title: string;
  published_at: Date;
  [key: string]: unknown;
}

const VERSION_INFO = `SELECT v.id, v.pack_id, k.product_id, p.slug AS product_slug, k.slug AS pack_slug, v.version, v.title, v.published_at
   FROM intelligence_pack_versions v
   JOIN intelligence_packs k ON k.id = v.pack_id
   JOIN runtime_products p ON p.id = k.product_id`;

function toInfo(row: VersionInfoRow): PackVersionInfo {
  return {
    versionId: row.id,
    packId: row.pack_id,
    productId: row.product_id,
    productSlug: row.product_slug,
    packSlug: row.pack_slug,
    version: row.version,
    title: row.title,
    publishedAt: row.published_at,
  };
}

/** A pack version's record by its id; undefined when unknown. */
export async function findPackVersionById(sql: Sql, versionId: string): Promise<PackVersionInfo | undefined> {
  if (!isUuid(versionId)) return undefined;
  const rows = await sql.query<VersionInfoRow>(`${VERSION_INFO} WHERE v.id = $1`, [versionId]);
  return rows[0] && toInfo(rows[0]);
}

/**
 * A pack version by product slug and pack slug: version number `version`, or the latest when it is undefined.
 * Undefined when the product, the pack or the version does not exist.
 */
export async function findPackVersion(sql: Sql, productSlug: string, packSlug: string, version?: number): Promise<PackVersionInfo | undefined> {
  if (version !== undefined && !(Number.isSafeInteger(version) && version > 0 && version <= 2_147_483_647)) return undefined;
  const rows = await sql.query<VersionInfoRow>(
    `${VERSION_INFO} WHERE p.slug = $1 AND k.slug = $2 AND ($3::int IS NULL OR v.version = $3::int) ORDER BY v.version DESC LIMIT 1`,
    [productSlug, packSlug, version ?? null],
  );
  return rows[0] && toInfo(rows[0]);
}

/** The id of a pack's latest version, by product slug and pack slug; undefined when there is none. */
export async function latestPackVersionId(sql: Sql, productSlug: string, packSlug: string): Promise<string | undefined> {
  return (await findPackVersion(sql, productSlug, packSlug))?.versionId;
}

/** The id of version number `version` of a pack, by product slug and pack slug; undefined when there is none. */
export async function packVersionId(sql: Sql, productSlug: string, packSlug: string, version: number): Promise<string | undefined> {
  return (await findPackVersion(sql, productSlug, packSlug, version))?.versionId;
}

/** One version of a pack as listings show it. */
export interface PackVersionSummary {
  versionId: string;
  version: number;
  title: string;
  publishedAt: Date;
  publishedBy: string;
  sources: number;
  assertions: number;
  insights: number;
}

/** A pack of a product with its most recent versions, newest first. */
export interface ProductPack {
  productId: string;
  productSlug: string;
  productName: string;
  packId: string;
  packSlug: string;
  /** The latest version's title. */
  title: string;
  versions: PackVersionSummary[];
}

/** The versions a listing shows of each pack at most (the newest). */
export const LISTED_VERSIONS_PER_PACK = 100;

interface ProductPackRow {
  product_id: string;
  product_slug: string;
  product_name: string;
  pack_id: string;
  pack_slug: string;
  version_id: string;
  version: number;
  title: string;
  published_at: Date;
  published_by: string;
  source_count: number;
  assertion_count: number;
  insight_count: number;
  [key: string]: unknown;
}

/**
 * The packs of the products `productIds`, by product slug then pack slug, each with its newest versions (at most
 * `versionsPerPack`, newest first). A pack with no version (none is stored without one) is not listed.
 */
export async function listProductPacks(sql: Sql, productIds: readonly string[], versionsPerPack = LISTED_VERSIONS_PER_PACK): Promise<ProductPack[]> {
  const ids = productIds.filter(isUuid);
  if (ids.length === 0) return [];
  const rows = await sql.query<ProductPackRow>(
    `SELECT p.id AS product_id, p.slug AS product_slug, p.name AS product_name, k.id AS pack_id, k.slug AS pack_slug,
            v.id AS version_id, v.version, v.title, v.published_at, v.published_by, v.source_count, v.assertion_count, v.insight_count
       FROM runtime_products p
       JOIN intelligence_packs k ON k.product_id = p.id
       JOIN LATERAL (SELECT * FROM intelligence_pack_versions WHERE pack_id = k.id ORDER BY version DESC LIMIT $2) v ON true
      WHERE p.id = ANY($1::uuid[])
      ORDER BY p.slug, k.slug, v.version DESC`,
    [uuidArrayParam(ids), versionsPerPack],
  );
  const packs: ProductPack[] = [];
  for (const row of rows) {
    let pack = packs[packs.length - 1];
    if (pack?.packId !== row.pack_id) {
      // The first row of a pack is its latest version: its title is the pack's.
      pack = { productId: row.product_id, productSlug: row.product_slug, productName: row.product_name, packId: row.pack_id, packSlug: row.pack_slug, title: row.title, versions: [] };
      packs.push(pack);
    }
    pack.versions.push({
      versionId: row.version_id,
      version: row.version,
      title: row.title,
      publishedAt: row.published_at,
      publishedBy: row.published_by,
      sources: row.source_count,
      assertions: row.assertion_count,
      insights: row.insight_count,
    });
  }
  return packs;
}

// The entitlement rule in SQL, for a product `p` of organization `o` and the account $1: an admin of the
// organization, whatever the product's and the organization's status; or a customer with an active installation of
// an active product of an active organization.
const IS_ADMIN = `EXISTS (SELECT 1 FROM runtime_organization_admins a WHERE a.organization_id = p.organization_id AND a.account_id = $1)`;
const IS_CUSTOMER = `(p.status = 'active' AND o.status = 'active' AND EXISTS (
   SELECT 1 FROM runtime_installations i WHERE i.product_id = p.id AND i.customer_account_id = $1 AND i.status = 'active'))`;
const ENTITLED_AS = `CASE WHEN ${IS_ADMIN} THEN 'admin' WHEN ${IS_CUSTOMER} THEN 'customer' END`;

/**
 * How the account is entitled to the product's packs (one statement, from server-held records): 'admin' when it
 * administers the product's organization, 'customer' when it has an active installation of the product and the
 * product and its organization are active; undefined otherwise, and for an unknown product (they look the same).
 */
export async function entitlementOf(sql: Sql, accountId: string, productSlug: string): Promise<PackEntitlement | undefined> {
  if (!isUuid(accountId)) return undefined;
  const rows = await sql.query<{ entitled_as: PackEntitlement | null }>(
    `SELECT ${ENTITLED_AS} AS entitled_as FROM runtime_products p JOIN runtime_organizations o ON o.id = p.organization_id WHERE p.slug = $2`,
    [accountId, productSlug],
  );
  return rows[0]?.entitled_as ?? undefined;
}

/** A product an account is entitled to. */
export interface EntitledProduct {
  productId: string;
  productSlug: string;
  productName: string;
  entitledAs: PackEntitlement;
}

/** The products an account may list packs of at most. */
export const MAX_ENTITLED_PRODUCTS = 1_000;

/** The products the account is entitled to (as entitlementOf decides), by slug, at most `limit`. */
export async function entitledProducts(sql: Sql, accountId: string, limit = MAX_ENTITLED_PRODUCTS): Promise<EntitledProduct[]> {
  if (!isUuid(accountId)) return [];
  const rows = await sql.query<{ id: string; slug: string; name: string; entitled_as: PackEntitlement | null }>(
    `SELECT p.id, p.slug, p.name, ${ENTITLED_AS} AS entitled_as
       FROM runtime_products p JOIN runtime_organizations o ON o.id = p.organization_id
      WHERE ${IS_ADMIN} OR ${IS_CUSTOMER}
      ORDER BY p.slug LIMIT $2`,
    [accountId, limit],
  );
  return rows.flatMap((row) => (row.entitled_as === null ? [] : [{ productId: row.id, productSlug: row.slug, productName: row.name, entitledAs: row.entitled_as }]));
}

/** The packs the account is entitled to, by product slug then pack slug, as PacksService.listPacks answers them. */
export async function listEntitledPacks(sql: Sql, accountId: string): Promise<PackListing[]> {
  const products = await entitledProducts(sql, accountId);
  const entitledAs = new Map(products.map((product) => [product.productId, product.entitledAs]));
  const packs = await listProductPacks(sql, products.map((product) => product.productId));
  return packs.map((pack) => ({
    product: pack.productSlug,
    productName: pack.productName,
    pack: pack.packSlug,
    title: pack.title,
    entitledAs: entitledAs.get(pack.productId)!,
    versions: pack.versions.map((v) => ({
      version: v.version,
      title: v.title,
      publishedAt: v.publishedAt,
      publishedBy: v.publishedBy,
      sources: v.sources,
      assertions: v.assertions,
      insights: v.insights,
    })),
  }));
}
