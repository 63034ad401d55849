import type { Database } from '../../db/port.ts';
import { decodeSnapshot, encodeSnapshot, type SearchIndexSnapshots } from './index-snapshot.ts';
import { SLICE_MS, Slices } from '../../kernel/slices.ts';
import * as store from './store.ts';
import { IndexBuilder } from './index-builder.ts';
import { INDEX_RULES_VERSION, VaultSearchIndex, type IndexedNote, type IndexState } from './vault-index.ts';

/**
 * Notes loaded per query while building or refreshing an index. Small on purpose: a page's texts stay alive while
 * it is tokenized, across slices, so big pages get promoted to the old generation and linger as garbage there. A
 * 20,000-note gateway held 344 MB after its first search with pages of 500, 323 MB with 250, 296 MB with 100, for
 * the same first-search time (the next page is read while this one is tokenized).
 */
const LOAD_PAGE = 100;
/** Most notes held in memory across all vault indexes; the least recently searched vault is dropped first. */
export const DEFAULT_MAX_INDEXED_NOTES = 200_000;

/** Bounds on the memory the indexes hold. */
export interface VaultIndexOptions {
  /** Most notes held across all vaults (DEFAULT_MAX_INDEXED_NOTES). */
  maxIndexedNotes?: number;
  /** Most search text characters one vault's index keeps (see MAX_KEPT_TEXT_CHARS). */
  maxKeptTextChars?: number;
  /** Where indexes are stored between runs; without it every process builds its indexes from the database. */
  snapshots?: SearchIndexSnapshots;
}

/** Vaults with fewer notes are not stored: they build in a moment. */
export const MIN_SNAPSHOT_NOTES = 1000;


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

  // Per vault: notes read into the index since it was last stored, and whether a store is under way.
  const unsaved = new Map<string, number>();
  const saving = new Set<string>();

  async function refresh(vaultId: string, version: number): Promise<VaultSearchIndex> {
    let index = indexes.get(vaultId);
    let read: number;
    // A new build is stored as built: its state is already in the stored form.
    let built: IndexState | undefined;
    if (index) read = await catchUp(db, index, vaultId, version);
    else {
      const loaded = await loadStored(vaultId, version);
      if (loaded) {
        index = loaded;
        read = await catchUp(db, index, vaultId, version);
        unsaved.set(vaultId, 0);
      } else {
        ({ index, state: built } = await buildIndex(db, vaultId, version, options.maxKeptTextChars));
        read = index.size;
        unsaved.set(vaultId, 0);
      }
    }
    indexes.delete(vaultId);
    indexes.set(vaultId, index);
    dropLeastRecent(indexes, maxIndexedNotes);
    const pending = (unsaved.get(vaultId) ?? 0) + read;
    unsaved.set(vaultId, pending);
    // Stored after a build, and again once a tenth of the notes have been read since: a restart then loads it and
    // reads only the notes written after it.
    if (options.snapshots && index.size >= MIN_SNAPSHOT_NOTES && pending >= Math.max(1, index.size / 10)) store_(vaultId, index, built);
    return index;
  }

  /** The stored index of the vault, when there is one of these rules that is not ahead of the database. */
  async function loadStored(vaultId: string, version: number): Promise<VaultSearchIndex | undefined> {
    const bytes = await options.snapshots?.read(vaultId).catch(() => undefined);
    if (!bytes) return undefined;
    const slices = new Slices(SLICE_MS);
    const state = await decodeSnapshot(bytes, vaultId, INDEX_RULES_VERSION, slices);
    // A snapshot newer than the database (a restored backup) cannot be brought up to date from content versions.
    if (!state || state.version > version) return undefined;
    return VaultSearchIndex.fromState(state, slices, options.maxKeptTextChars);
  }

  /**
   * Stores the index in the background, in slices; a failure only means the next start builds it again. The index
   * must stay still while it is read: the store takes the vault's refresh turn (no catch-up meanwhile; searches that
   * need a newer version wait for it) and reads as a reader of the index (no compaction meanwhile). `built` is the
   * state a new index was just made from: stored as it is, it spares a copy of the postings.
   */
  function store_(vaultId: string, index: VaultSearchIndex, built?: IndexState): void {
    if (saving.has(vaultId)) return;
    saving.add(vaultId);
    unsaved.set(vaultId, 0);
    setImmediate(() => {
      const previous = refreshing.get(vaultId) ?? Promise.resolve(index);
      const turn = previous
        .catch(() => index)
        .then(() =>
          index.reading(async () => {
            const slices = new Slices(SLICE_MS);
            // The index may have caught up since it was built (the store waits for the refresh in progress).
            const state = built !== undefined && built.version === index.version ? built : await index.exportState(slices);
            await options.snapshots!.write(vaultId, await encodeSnapshot(vaultId, INDEX_RULES_VERSION, state, slices));
          }),
        )
        .catch(() => void unsaved.set(vaultId, index.size))
        .then(() => index)
        .finally(() => {
          saving.delete(vaultId);
          if (refreshing.get(vaultId) === turn) refreshing.delete(vaultId);
        });
      refreshing.set(vaultId, turn);
    });
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
          // The vault's turn may have passed to a store of its index by the time this ends: free only its own.
          const started: Promise<VaultSearchIndex> = refresh(vaultId, version).finally(() => {
            if (refreshing.get(vaultId) === started) refreshing.delete(vaultId);
          });
          refreshing.set(vaultId, started);
          pending = started;
        }
        await pending;
      }
    },
  };
}

/**
 * A new index of every note of the vault, labelled with `version` (the rows read may be newer: harmless), built in
 * the compact form a stored index has (see IndexBuilder).
 */
async function buildIndex(db: Database, vaultId: string, version: number, maxKeptTextChars: number | undefined): Promise<{ index: VaultSearchIndex; state: IndexState }> {
  const builder = new IndexBuilder(await store.countNotes(db, vaultId), maxKeptTextChars);
  await loadNotesChangedSince(db, vaultId, null, (note) => builder.add(note));
  const slices = new Slices(SLICE_MS);
  const texts = builder.searchTexts();
  const state = await builder.finish(version, slices);
  return { index: await VaultSearchIndex.fromState(state, slices, maxKeptTextChars, texts), state };
}

/**
 * Brings an index from its version up to `version`: notes written since are re-read, deleted ones removed. Then
 * compacts, unless a search still holds document numbers (see VaultSearchIndex.reading). Returns how many notes it
 * re-read.
 */
async function catchUp(db: Database, index: VaultSearchIndex, vaultId: string, version: number): Promise<number> {
  const read = await loadNotesChangedSince(db, vaultId, index.version, (note) => index.upsert(note));
  // Deletions leave no row behind: compare counts, and only when they differ, the ids.
  if (index.size !== (await store.countNotes(db, vaultId))) {
    const live = await store.noteIds(db, vaultId);
    for (const id of [...index.noteIds()]) if (!live.has(id)) index.remove(id);
  }
  // Rows read above may be newer than `version`; re-reading them next time is harmless (upserts).
  index.version = version;
  index.compactIfIdle();
  return read;
}

/**
 * Hands `visit` the vault's notes written after `since` (every note when null), read a page at a time, and returns
 * how many. The next page is read while this one is tokenized, the costly part, which yields to the event loop
 * every SLICE_MS, so that other requests are served while a large vault is indexed.
 */
async function loadNotesChangedSince(db: Database, vaultId: string, since: number | null, visit: (note: IndexedNote) => void): Promise<number> {
  const page = (after: string | null) => store.notesChangedSince(db, vaultId, since, after, LOAD_PAGE);
  let next: Promise<store.NoteSearchRow[]> | undefined = page(null);
  let read = 0;
  // One slice runs on across pages: a page read ahead is often there already, and awaiting it then gives the event
  // loop no turn, so a slice restarted at every page of 100 notes (about 10 ms of tokenizing) never ended, and the
  // loop waited up to 276 ms.
  const slices = new Slices(SLICE_MS);
  while (next) {
    const rows: store.NoteSearchRow[] = await next;
    next = rows.length === LOAD_PAGE ? page(rows[rows.length - 1]!.id) : undefined;
    // An error of the page read ahead is met when it is awaited; until then it must not count as unhandled.
    next?.catch(() => undefined);
    for (const row of rows) {
      visit({ noteId: row.id, path: row.path, title: row.title, tagKeys: row.tag_keys, searchText: row.search_text });
      if (slices.due()) await slices.pause();
    }
    read += rows.length;
  }
  return read;
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
