import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { SLICE_MS, Slices } from '../../kernel/slices.ts';
import { lineCount } from './bulk.ts';
import type { PackSelector, PacksService, StoredPack } from './contract.ts';
import type { ParsedPack } from './format/index.ts';
import { packContentHash } from './content-hash.ts';
import { publishPack, unchangedVersion } from './publish.ts';
import { buildPackView, type PackView } from './queries.ts';
import { entitlementOf, listEntitledPacks } from './store.ts';
import { loadPackVersion } from './version-store.ts';

/** Pack versions whose answers are kept in memory at most (their precomputed availability and search index). */
export const DEFAULT_CACHED_PACK_VERSIONS = 8;

// One message for an unknown product, a product the caller is not entitled to, and a product without packs: the
// three must look the same (docs/packs.md, "Entitlement").
const NOT_FOUND = 'No published intelligence of that product is available to you.';

interface PackRow {
  version_id: string | null;
  pack_slug: string;
  [key: string]: unknown;
}

/**
 * The pack version a selector names, for a caller already found entitled: the named pack (or the product's only pack)
 * and its pinned version (or the latest). One statement; `not_found` when there is none, `invalid_request` when the
 * product has several packs and the selector names none.
 */
async function selectVersion(sql: Sql, selector: PackSelector): Promise<string> {
  const rows = await sql.query<PackRow>(
    `SELECT k.slug AS pack_slug,
            (SELECT v.id FROM intelligence_pack_versions v
              WHERE v.pack_id = k.id AND ($3::int IS NULL OR v.version = $3::int)
              ORDER BY v.version DESC LIMIT 1) AS version_id
       FROM runtime_products p JOIN intelligence_packs k ON k.product_id = p.id
      WHERE p.slug = $1 AND ($2::text IS NULL OR k.slug = $2::text)
      ORDER BY k.slug`,
    [selector.product, selector.pack ?? null, selector.packVersion ?? null],
  );
  if (rows.length === 0) throw new KgateError('not_found', selector.pack === undefined ? NOT_FOUND : 'The product publishes no pack of that slug.');
  if (rows.length > 1) {
    const packs = rows.map((row) => row.pack_slug);
    throw new KgateError('invalid_request', `The product publishes several packs: name one with pack (${packs.join(', ')}).`, { packs });
  }
  const versionId = rows[0]!.version_id;
  if (versionId === null) throw new KgateError('not_found', `The pack has no version ${selector.packVersion}.`);
  return versionId;
}

/**
 * Refuses, before anything is stored, a pack whose answers could not be built: loadPack's validation already refuses
 * such a pack with file and line, but publish takes a parsed pack from any caller, and a version stored broken would
 * fail every later call. Building its answers once (as the first call would) is the check.
 */
async function assertAnswerable(pack: ParsedPack): Promise<void> {
  const stored: StoredPack = {
    info: { versionId: '', packId: '', productId: '', productSlug: pack.product, packSlug: pack.slug, version: 0, title: pack.title, publishedAt: new Date(0) },
    sources: pack.sources.map((source) => ({ ...source, versions: source.versions.map(({ text, ...version }) => ({ ...version, lineCount: lineCount(text) })) })),
    assertions: pack.assertions,
    insights: pack.insights,
  };
  try {
    await buildPackView(stored, new Slices(SLICE_MS));
  } catch (error) {
    throw new KgateError('pack_invalid', `The pack is inconsistent: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * Published intelligence (docs/packs.md): publishing, and the six tools' answers. Every answer checks, from server
 * records and on every call, that the account is entitled to the product, then reads the selected pack version's
 * answers from memory: a version never changes once published, so its precomputed view is kept (the most recently
 * used `cachedVersions`) and never goes stale; only which version is the latest is read each time.
 */
export function createPacksService(db: Database, clock: Clock, options: { cachedVersions?: number } = {}): PacksService {
  const capacity = Math.max(1, options.cachedVersions ?? DEFAULT_CACHED_PACK_VERSIONS);
  // Map order is recency: a hit moves its entry to the end, and the first entry is the least recently used.
  const views = new Map<string, Promise<PackView>>();

  function viewOf(versionId: string): Promise<PackView> {
    const cached = views.get(versionId);
    if (cached) {
      views.delete(versionId);
      views.set(versionId, cached);
      return cached;
    }
    // Concurrent first calls share one load and one build. The build (most of it the search index: about 650 ms of
    // CPU for 25,000 assertions) runs in slices, so that other requests are served meanwhile.
    const loading = loadPackVersion(db, versionId).then((stored) => {
      if (!stored) throw new KgateError('not_found', NOT_FOUND);
      return buildPackView(stored, new Slices(SLICE_MS));
    });
    views.set(versionId, loading);
    loading.catch(() => views.delete(versionId));
    while (views.size > capacity) views.delete(views.keys().next().value!);
    return loading;
  }

  async function view(accountId: string, selector: PackSelector): Promise<PackView> {
    if (!(await entitlementOf(db, accountId, selector.product))) throw new KgateError('not_found', NOT_FOUND);
    return viewOf(await selectVersion(db, selector));
  }

  return {
    publish: async (pack, publisher) => {
      // An unchanged folder published again is answered before its answers are built (which takes seconds on a large pack).
      const contentHash = packContentHash(pack);
      const unchanged = await unchangedVersion(db, pack, publisher, contentHash);
      if (unchanged) return unchanged;
      await assertAnswerable(pack);
      return publishPack(db, clock, pack, publisher, contentHash);
    },
    listPacks: (accountId) => listEntitledPacks(db, accountId),
    search: async (accountId, selector, input) => (await view(accountId, selector)).search(input),
    state: async (accountId, selector, input) => (await view(accountId, selector)).state(input),
    changes: async (accountId, selector, input) => (await view(accountId, selector)).changes(input),
    timeline: async (accountId, selector, input) => (await view(accountId, selector)).timeline(input),
    sources: async (accountId, selector, input) => (await view(accountId, selector)).sources(input),
    insights: async (accountId, selector, input) => (await view(accountId, selector)).insights(input),
  };
}
