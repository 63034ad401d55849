import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { parseFrontmatter } from '../markdown/index.ts';
import type { Mapping, VaultsService } from '../vaults/index.ts';
import type { RemoteNotes } from './write-deps.ts';
import { assertReadableBodies } from './policy.ts';
import * as store from './store.ts';

/** Most hosted notes one frontmatter scan reads. */
export const MAX_FRONTMATTER_SCAN = 2000;
/** Notes read per page while scanning. */
const SCAN_PAGE = 250;
/** Most unreadable frontmatter blocks a scan reports by path. */
export const MAX_FRONTMATTER_ERRORS = 20;

/** The frontmatter of the first notes of a hosted vault, in path order. */
export interface FrontmatterScan {
  /** The frontmatter mappings read, one per note that has readable frontmatter. */
  documents: Record<string, unknown>[];
  /** Notes whose frontmatter could not be read: the first MAX_FRONTMATTER_ERRORS, by path. */
  errors: { path: string; error: string }[];
  /** How many notes had unreadable frontmatter (all of them, also beyond the listed ones). */
  errorCount: number;
  /** Notes read. */
  scanned: number;
  /** Notes in the vault. */
  total: number;
  /** True when the scan stopped at its limit before the last note. */
  truncated: boolean;
}

/** Most live note reads one frontmatter scan of a remote mapping makes (spec 8). */
export const MAX_REMOTE_FRONTMATTER_READS = 20;

/**
 * A remote mapping's scan: the first notes in path order of what its last sync saw, each read live at the provider,
 * at most MAX_REMOTE_FRONTMATTER_READS of them (spec 8), so the schema reflects the provider now, not the copy.
 */
async function scanRemote(db: Database, remote: RemoteNotes | undefined, mapping: Mapping, limit: number): Promise<FrontmatterScan> {
  if (!remote) throw new KgateError('unavailable', 'Remote mappings are not available on this server.');
  const reads = Math.min(limit, MAX_REMOTE_FRONTMATTER_READS);
  const rows = await db.query<{ path: string }>(
    `SELECT path FROM remote_files WHERE mapping_id = $1 AND state = 'synced' ORDER BY path COLLATE "C" LIMIT $2`,
    [mapping.id, reads + 1],
  );
  const counted = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM remote_files WHERE mapping_id = $1 AND state = 'synced'", [mapping.id]);
  const result: FrontmatterScan = { documents: [], errors: [], errorCount: 0, scanned: 0, total: counted[0]?.count ?? 0, truncated: rows.length > reads };
  // One budget for the whole scan (PROVIDER_BUDGETS.schema): when it ends first, the answer says truncated.
  const read = await remote.readMany(mapping, rows.slice(0, reads).map((row) => row.path));
  if (read.exhausted) result.truncated = true;
  for (const note of read.notes) {
    // Gone since the last sync, or not text: not a note any more, and not an error of its frontmatter.
    if (note.content === null) continue;
    result.scanned += 1;
    const parsed = parseFrontmatter(note.content);
    if (parsed.data) result.documents.push(parsed.data);
    if (parsed.error !== undefined) {
      result.errorCount += 1;
      if (result.errors.length < MAX_FRONTMATTER_ERRORS) result.errors.push({ path: note.path, error: parsed.error });
    }
  }
  return result;
}

/** Frontmatter reads of notes. */
export function createFrontmatterScan(db: Database, vaults: VaultsService, remote?: RemoteNotes) {
  return {
    /**
     * Reads the frontmatter of at most `limit` notes (1 to MAX_FRONTMATTER_SCAN, the default) in byte order of
     * path and says when it stopped early. Device-encrypted mappings are refused: the server cannot read them.
     */
    async scanFrontmatter(actor: Actor, mappingId: string, limit: number = MAX_FRONTMATTER_SCAN): Promise<FrontmatterScan> {
      if (!Number.isInteger(limit) || limit < 1 || limit > MAX_FRONTMATTER_SCAN) {
        throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_FRONTMATTER_SCAN}.`, { field: 'limit' });
      }
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      if (mapping.provider !== 'hosted') return scanRemote(db, remote, mapping, limit);
      const result: FrontmatterScan = { documents: [], errors: [], errorCount: 0, scanned: 0, total: 0, truncated: false };
      let after: string | null = null;
      while (result.scanned < limit) {
        const want = Math.min(SCAN_PAGE, limit - result.scanned);
        const page = await store.listNotesWithContent(db, mapping.vaultId, after, want);
        for (const note of page) {
          const parsed = parseFrontmatter(note.content);
          if (parsed.data) result.documents.push(parsed.data);
          if (parsed.error !== undefined) {
            result.errorCount += 1;
            if (result.errors.length < MAX_FRONTMATTER_ERRORS) result.errors.push({ path: note.path, error: parsed.error });
          }
        }
        result.scanned += page.length;
        if (page.length < want) break;
        after = page[page.length - 1]!.path;
      }
      // Stopped at the limit: is there a note after the last one read?
      if (result.scanned >= limit && after !== null) {
        result.truncated = (await store.listSummaries(db, mapping.vaultId, after, 1)).length > 0;
      }
      result.total = Math.max(await store.countNotes(db, mapping.vaultId), result.scanned);
      return result;
    },
  };
}

/** See createFrontmatterScan. */
export type FrontmatterScanReads = ReturnType<typeof createFrontmatterScan>;
