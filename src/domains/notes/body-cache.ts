import type { Note } from './contract.ts';

/**
 * Note bodies kept in memory, each labelled with the vault's content version it was read at, least recently read
 * dropped first within a budget of bytes.
 *
 * It needs no notice of changes: a body is served only to a reader whose vault is at exactly the label's version,
 * and every change moves the version (see vaults/authority-cache.ts). A label never claims more than the body holds:
 * the version is read before the body, so the body is of that version or a later one, and a reader that knows the
 * current version gets the current body.
 */
export interface NoteBodyCache {
  get(vaultId: string, pathKey: string, contentVersion: number): Note | undefined;
  set(vaultId: string, pathKey: string, contentVersion: number, note: Note): void;
  /** Lookups that found a body of the asked version, and those that did not. */
  counts(): { hits: number; misses: number };
  /** The estimated bytes held now, and the budget. */
  usage(): { bytes: number; budget: number; entries: number };
}

/** The default budget: 32 MiB of bodies (KGATE_NOTE_CACHE_MB). */
export const DEFAULT_NOTE_CACHE_BYTES = 32 * 1024 * 1024;
// What an entry costs besides its text: the note object, its path and the map slot, roughly.
const ENTRY_OVERHEAD_BYTES = 512;

/** Memory an entry takes: JavaScript holds text as one or two bytes per UTF-16 unit; count two, to stay within. */
function weightOf(note: Note): number {
  return 2 * (note.content.length + note.path.length + note.title.length) + ENTRY_OVERHEAD_BYTES;
}

/**
 * A cache within `budgetBytes` (0 keeps nothing). A body heavier than an eighth of the budget is not kept, so that
 * one large note never empties the cache of many small ones.
 */
export function createNoteBodyCache(budgetBytes: number = DEFAULT_NOTE_CACHE_BYTES): NoteBodyCache {
  // Map order is recency order: a hit moves its entry to the end.
  const entries = new Map<string, { version: number; note: Note; weight: number }>();
  let bytes = 0;
  const counts = { hits: 0, misses: 0 };
  const keyOf = (vaultId: string, pathKey: string) => `${vaultId}/${pathKey}`;

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.weight;
  };

  return {
    get(vaultId, pathKey, contentVersion) {
      const key = keyOf(vaultId, pathKey);
      const entry = entries.get(key);
      if (!entry || entry.version !== contentVersion) {
        counts.misses += 1;
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      counts.hits += 1;
      return entry.note;
    },
    set(vaultId, pathKey, contentVersion, note) {
      const key = keyOf(vaultId, pathKey);
      const existing = entries.get(key);
      // A slower reader must not replace a body labelled with a later version.
      if (existing && existing.version > contentVersion) return;
      remove(key);
      const weight = weightOf(note);
      if (weight > budgetBytes / 8) return;
      for (const oldest of entries.keys()) {
        if (bytes + weight <= budgetBytes) break;
        remove(oldest);
      }
      entries.set(key, { version: contentVersion, note: Object.freeze({ ...note }), weight });
      bytes += weight;
    },
    counts: () => ({ ...counts }),
    usage: () => ({ bytes, budget: budgetBytes, entries: entries.size }),
  };
}
