import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { parseFrontmatter } from '../markdown/index.ts';
import type { VaultsService } from '../vaults/index.ts';
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

/** Frontmatter reads of hosted notes. */
export function createFrontmatterScan(db: Database, vaults: VaultsService) {
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
