import type { Database } from '../../db/port.ts';
import * as store from './store.ts';
import { VaultSearchIndex } from './vault-index.ts';

/** Notes loaded per query while building or refreshing an index. */
const LOAD_PAGE = 2000;
/** Most notes held in memory across all vault indexes; the least recently searched vault is dropped first. */
export const DEFAULT_MAX_INDEXED_NOTES = 200_000;

/** Bounds on the memory the indexes hold. */
export interface VaultIndexOptions {
  /** Most notes held across all vaults (DEFAULT_MAX_INDEXED_NOTES). */
  maxIndexedNotes?: number;
  /** Most search text characters one vault's index keeps (see MAX_KEPT_TEXT_CHARS). */
  maxKeptTextChars?: number;
}

/** This process's in-memory search indexes, one per vault, kept as fresh as each search's caller needs. */
export interface VaultIndexCache {
  /**
   * The vault's index, at least as recent as `version` (the content version this search's caller saw), so a search
   * never answers from an index older than the writes its caller saw.
   */
  current(vaultId: string, version: number): Promise<VaultSearchIndex>;
}

/**
 * Keeps one index per vault, built on first use from the search text stored at apply time and brought up to date
 * from `content_version`, whichever process wrote. At most one refresh per vault runs at a time; the least recently
 * searched vaults are dropped when the notes held pass `maxIndexedNotes`.
 */
export function createVaultIndexCache(db: Database, options: VaultIndexOptions = {}): VaultIndexCache {
  const maxIndexedNotes = options.maxIndexedNotes ?? DEFAULT_MAX_INDEXED_NOTES;
  // Map order is recency order: a refresh re-inserts its vault at the end.
  const indexes = new Map<string, VaultSearchIndex>();
  const refreshing = new Map<string, Promise<VaultSearchIndex>>();

  async function refresh(vaultId: string, version: number): Promise<VaultSearchIndex> {
    let index = indexes.get(vaultId);
    if (!index) index = await buildIndex(db, vaultId, version, options.maxKeptTextChars);
    else await catchUp(db, index, vaultId, version);
    indexes.delete(vaultId);
    indexes.set(vaultId, index);
    dropLeastRecent(indexes, maxIndexedNotes);
    return index;
  }

  return {
    async current(vaultId: string, version: number): Promise<VaultSearchIndex> {
      for (;;) {
        const index = indexes.get(vaultId);
        if (index && index.version >= version) return index;
        // One refresh per vault at a time; concurrent searches wait for it, then check again: a refresh that was
        // already under way may be for an older version than the one this search must see.
        let pending = refreshing.get(vaultId);
        if (!pending) {
          pending = refresh(vaultId, version).finally(() => refreshing.delete(vaultId));
          refreshing.set(vaultId, pending);
        }
        await pending;
      }
    },
  };
}

/** A new index of every note of the vault, labelled with `version` (the rows read may be newer: harmless). */
async function buildIndex(db: Database, vaultId: string, version: number, maxKeptTextChars: number | undefined): Promise<VaultSearchIndex> {
  const index = new VaultSearchIndex(version, maxKeptTextChars);
  await loadNotesChangedSince(db, index, vaultId, null);
  return index;
}

/**
 * Brings an index from its version up to `version`: notes written since are re-read, deleted ones removed. Then
 * compacts, unless a search still holds document numbers (see VaultSearchIndex.reading).
 */
async function catchUp(db: Database, index: VaultSearchIndex, vaultId: string, version: number): Promise<void> {
  await loadNotesChangedSince(db, index, vaultId, index.version);
  // Deletions leave no row behind: compare counts, and only when they differ, the ids.
  if (index.size !== (await store.countNotes(db, vaultId))) {
    const live = await store.noteIds(db, vaultId);
    for (const id of [...index.noteIds()]) if (!live.has(id)) index.remove(id);
  }
  // Rows read above may be newer than `version`; re-reading them next time is harmless (upserts).
  index.version = version;
  index.compactIfIdle();
}

/** Upserts into the index the vault's notes written after `since` (every note when null), a page at a time. */
async function loadNotesChangedSince(db: Database, index: VaultSearchIndex, vaultId: string, since: number | null): Promise<void> {
  let after: string | null = null;
  for (;;) {
    const rows = await store.notesChangedSince(db, vaultId, since, after, LOAD_PAGE);
    for (const row of rows) index.upsert({ noteId: row.id, path: row.path, title: row.title, tagKeys: row.tag_keys, searchText: row.search_text });
    if (rows.length < LOAD_PAGE) return;
    after = rows[rows.length - 1]!.id;
  }
}

/** Drops the least recently refreshed indexes (Map order) until the notes held fit `maxIndexedNotes`; one always stays. */
function dropLeastRecent(indexes: Map<string, VaultSearchIndex>, maxIndexedNotes: number): void {
  let total = 0;
  for (const index of indexes.values()) total += index.weight;
  for (const [vaultId, index] of indexes) {
    if (total <= maxIndexedNotes || indexes.size === 1) return;
    indexes.delete(vaultId);
    total -= index.weight;
  }
}
