import type { SearchPage } from './contract.ts';
import type { CheckedSearch } from './search-request.ts';

/**
 * Answered search pages kept in memory, each under the vault's content version it was answered at, least recently
 * used dropped first within a budget of bytes. Like note bodies (notes/body-cache.ts), a page is served only to a
 * search that sees the vault at exactly that version, so no notice of changes is needed: every change moves it.
 * Pages do not depend on who asks (authority is checked before), only on the vault's notes and the request.
 */
export interface SearchPageCache {
  get(vaultId: string, contentVersion: number, search: CheckedSearch): SearchPage | undefined;
  set(vaultId: string, contentVersion: number, search: CheckedSearch, page: SearchPage): void;
  counts(): { hits: number; misses: number };
}

/** The default budget: 8 MiB of answered pages. */
export const DEFAULT_SEARCH_PAGE_CACHE_BYTES = 8 * 1024 * 1024;
const ENTRY_OVERHEAD_BYTES = 512;
const HIT_OVERHEAD_BYTES = 256;

// Text is counted at two bytes per UTF-16 unit, to stay within the budget whatever the script.
function weightOf(key: string, page: SearchPage): number {
  let units = key.length;
  for (const hit of page.results) units += hit.path.length + hit.title.length + hit.snippet.length + hit.tags.join('').length;
  return 2 * units + ENTRY_OVERHEAD_BYTES + HIT_OVERHEAD_BYTES * page.results.length;
}

/** The exact request a page answers: the parsed query, the filter and the page's place (not a hash: no collisions). */
function keyOf(vaultId: string, contentVersion: number, search: CheckedSearch): string {
  return `${vaultId}/${contentVersion}/${JSON.stringify([search.query, search.filter, search.offset, search.limit])}`;
}

/** A cache within `budgetBytes` (0 keeps nothing). Pages are frozen: every caller gets the same object. */
export function createSearchPageCache(budgetBytes: number = DEFAULT_SEARCH_PAGE_CACHE_BYTES): SearchPageCache {
  // Map order is recency order: a hit moves its entry to the end.
  const entries = new Map<string, { page: SearchPage; weight: number }>();
  let bytes = 0;
  const counts = { hits: 0, misses: 0 };
  return {
    get(vaultId, contentVersion, search) {
      const key = keyOf(vaultId, contentVersion, search);
      const entry = entries.get(key);
      if (!entry) {
        counts.misses += 1;
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      counts.hits += 1;
      return entry.page;
    },
    set(vaultId, contentVersion, search, page) {
      const key = keyOf(vaultId, contentVersion, search);
      const weight = weightOf(key, page);
      if (entries.has(key) || weight > budgetBytes / 8) return;
      for (const [oldest, entry] of entries) {
        if (bytes + weight <= budgetBytes) break;
        entries.delete(oldest);
        bytes -= entry.weight;
      }
      entries.set(key, { page: deepFreeze(page), weight });
      bytes += weight;
    },
    counts: () => ({ ...counts }),
  };
}

function deepFreeze(page: SearchPage): SearchPage {
  for (const hit of page.results) {
    Object.freeze(hit.matchedIn);
    Object.freeze(hit.highlights);
    for (const pair of hit.highlights) Object.freeze(pair);
    Object.freeze(hit.tags);
    Object.freeze(hit);
  }
  Object.freeze(page.results);
  return Object.freeze(page);
}
