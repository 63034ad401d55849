import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import { packContentHash } from './content-hash.ts';
import type { PackPublisher, PackVersionInfo, PublishOutcome } from './contract.ts';
import type { ParsedPack } from './format/index.ts';
import { insertPackVersion } from './version-store.ts';

// Publishing a validated pack (docs/packs.md, "Versions of a pack"): each publication of new content is the pack's
// next version, stored whole and never changed; the same content again answers the version that holds it.

const UNKNOWN_PRODUCT = 'The product does not exist.';

/** How a publisher is recorded in intelligence_pack_versions.published_by. */
export function publishedBy(publisher: PackPublisher): string {
  return publisher.kind === 'operator' ? 'operator' : `account:${publisher.accountId}`;
}

/**
 * The product the pack belongs to, when the publisher may publish to it: the operator may publish to any product,
 * an account only to the products of organizations it administers. An unknown product and one the account may not
 * publish to are refused alike (`not_found`), so an account learns nothing of other organizations' products.
 */
async function publishableProduct(sql: Sql, productSlug: string, publisher: PackPublisher): Promise<string> {
  if (publisher.kind === 'account' && !isUuid(publisher.accountId)) throw new KgateError('not_found', UNKNOWN_PRODUCT);
  const rows = await sql.query<{ id: string; is_admin: boolean }>(
    `SELECT p.id, EXISTS (SELECT 1 FROM runtime_organization_admins a WHERE a.organization_id = p.organization_id AND a.account_id = $2) AS is_admin
       FROM runtime_products p WHERE p.slug = $1`,
    [productSlug, publisher.kind === 'account' ? publisher.accountId : null],
  );
  const product = rows[0];
  if (!product || (publisher.kind === 'account' && !product.is_admin)) throw new KgateError('not_found', UNKNOWN_PRODUCT);
  return product.id;
}

/**
 * The pack's row, created if new, locked until the transaction ends: publications of one pack take their version
 * numbers one after the other. ON CONFLICT DO NOTHING waits for a racing publication that is creating the same pack
 * and then finds its row, so neither fails.
 */
async function lockPack(sql: Sql, productId: string, slug: string, now: Date): Promise<string> {
  await sql.query(`INSERT INTO intelligence_packs (id, product_id, slug, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (product_id, slug) DO NOTHING`, [
    newId(now.getTime()),
    productId,
    slug,
    now,
  ]);
  const rows = await sql.query<{ id: string }>(`SELECT id FROM intelligence_packs WHERE product_id = $1 AND slug = $2 FOR UPDATE`, [productId, slug]);
  return rows[0]!.id;
}

interface LatestRow {
  id: string;
  version: number;
  title: string;
  content_hash: string;
  published_at: Date;
  source_count: number;
  assertion_count: number;
  insight_count: number;
  [key: string]: unknown;
}

/**
 * Publishes a validated pack (format/loadPack made it) as `publisher`, in one transaction: refuses an unknown
 * product, or an account that does not administer the product's organization, with `not_found`; answers the latest
 * version with `created: false` when it already holds exactly this content (same content hash and title) and stores
 * nothing; otherwise stores the content as the pack's next version.
 */
export async function publishPack(
  db: Database,
  clock: Clock,
  pack: ParsedPack,
  publisher: PackPublisher,
  // Outside the transaction: hashing a large pack's texts takes time that no lock needs to be held for.
  contentHash: string = packContentHash(pack),
): Promise<PublishOutcome> {
  return db.transaction(async (tx) => {
    const productId = await publishableProduct(tx, pack.product, publisher);
    const now = clock.now();
    const packId = await lockPack(tx, productId, pack.slug, now);
    const latest = (
      await tx.query<LatestRow>(
        `SELECT id, version, title, content_hash, published_at, source_count, assertion_count, insight_count
           FROM intelligence_pack_versions WHERE pack_id = $1 ORDER BY version DESC LIMIT 1`,
        [packId],
      )
    )[0];
    const info = (versionId: string, version: number, title: string, publishedAt: Date): PackVersionInfo => ({
      versionId,
      packId,
      productId,
      productSlug: pack.product,
      packSlug: pack.slug,
      version,
      title,
      publishedAt,
    });
    if (latest && holds(latest, pack, contentHash)) return unchangedOutcome(latest, info(latest.id, latest.version, latest.title, latest.published_at));
    const versionId = newId(now.getTime());
    const version = (latest?.version ?? 0) + 1;
    await insertPackVersion(tx, { id: versionId, packId, version, contentHash, publishedBy: publishedBy(publisher), publishedAt: now }, pack);
    return {
      info: info(versionId, version, pack.title, now),
      created: true,
      counts: { sources: pack.sources.length, assertions: pack.assertions.length, insights: pack.insights.length },
    };
  });
}

/** True when the version holds exactly this content under this title: publishing it again stores nothing. */
function holds(latest: LatestRow, pack: ParsedPack, contentHash: string): boolean {
  return latest.content_hash === contentHash && latest.title === pack.title;
}

function unchangedOutcome(latest: LatestRow, info: PackVersionInfo): PublishOutcome {
  return { info, created: false, counts: { sources: latest.source_count, assertions: latest.assertion_count, insights: latest.insight_count } };
}

/**
 * The latest version, when it already holds exactly this content: read without a lock or a write, so that an
 * unchanged folder published again answers at once instead of being checked and built first (PacksService.publish).
 * The publisher's right to the product is checked as publishPack checks it; publishPack checks again under its lock.
 */
export async function unchangedVersion(db: Database, pack: ParsedPack, publisher: PackPublisher, contentHash: string): Promise<PublishOutcome | undefined> {
  const productId = await publishableProduct(db, pack.product, publisher);
  const latest = (
    await db.query<LatestRow & { pack_id: string }>(
      `SELECT v.id, v.pack_id, v.version, v.title, v.content_hash, v.published_at, v.source_count, v.assertion_count, v.insight_count
         FROM intelligence_pack_versions v JOIN intelligence_packs p ON p.id = v.pack_id
        WHERE p.product_id = $1 AND p.slug = $2 ORDER BY v.version DESC LIMIT 1`,
      [productId, pack.slug],
    )
  )[0];
  if (!latest || !holds(latest, pack, contentHash)) return undefined;
  return unchangedOutcome(latest, {
    versionId: latest.id,
    packId: latest.pack_id,
    productId,
    productSlug: pack.product,
    packSlug: pack.slug,
    version: latest.version,
    title: latest.title,
    publishedAt: latest.published_at,
  });
}
