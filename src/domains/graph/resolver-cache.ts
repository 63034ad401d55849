import type { Database } from '../../db/port.ts';
import { createLinkResolver, type LinkResolver } from '../markdown/index.ts';
import { listNotePaths, pathsChangedSince } from './store.ts';

/** Vaults whose resolvers stay in memory; the least recently used one goes first. */
export const RESOLVER_CACHE_VAULTS = 64;
/** Past this many notes changed since a cached resolver, it is rebuilt from every path instead of patched. */
const MAX_PATCH = 1000;

interface Entry {
  /** The vaults.content_version the paths were read at. */
  version: number;
  paths: ReadonlySet<string>;
  resolver: LinkResolver;
}

/** The link resolvers of recently used vaults, each as current as the content version asked for. */
export interface ResolverCache {
  /** A resolver built from the vault's paths at `version` or later. */
  resolverFor(vaultId: string, version: number): Promise<LinkResolver>;
}

/**
 * Builds the per-process cache. A resolver is reused while the vault's content version is unchanged; when it
 * changed, only the notes written since are read: an edit that moves no path keeps the resolver, a batch of new
 * notes adds their paths, and a deletion (the note count shows it) rebuilds from every path.
 */
export function createResolverCache(db: Database, maxVaults = RESOLVER_CACHE_VAULTS): ResolverCache {
  const entries = new Map<string, Entry>();
  const loading = new Map<string, { version: number; promise: Promise<Entry> }>();

  function remember(vaultId: string, entry: Entry): void {
    const current = entries.get(vaultId);
    // Concurrent loads may finish out of order: keep the newest.
    if (current && current.version > entry.version) return;
    entries.delete(vaultId);
    entries.set(vaultId, entry);
    if (entries.size > maxVaults) entries.delete(entries.keys().next().value!);
  }

  async function load(vaultId: string, version: number, previous: Entry | undefined): Promise<Entry> {
    if (previous) {
      const delta = await pathsChangedSince(db, vaultId, previous.version, MAX_PATCH);
      if (delta.changed.length <= MAX_PATCH) {
        const paths = new Set(previous.paths);
        for (const path of delta.changed) paths.add(path);
        // The notes now are the notes then plus those written since, unless some were deleted: then the count
        // is smaller than that union (a case-only rename counts as a deletion, as it should).
        if (paths.size === delta.total) {
          const resolver = paths.size === previous.paths.size ? previous.resolver : createLinkResolver(paths);
          return { version: delta.version, paths, resolver };
        }
      }
    }
    const all = await listNotePaths(db, vaultId);
    return { version: all.version ?? version, paths: new Set(all.paths), resolver: createLinkResolver(all.paths) };
  }

  return {
    async resolverFor(vaultId, version) {
      const cached = entries.get(vaultId);
      if (cached && cached.version >= version) {
        entries.delete(vaultId);
        entries.set(vaultId, cached);
        return cached.resolver;
      }
      const pending = loading.get(vaultId);
      if (pending && pending.version >= version) return (await pending.promise).resolver;
      const promise = load(vaultId, version, cached);
      loading.set(vaultId, { version, promise });
      try {
        const entry = await promise;
        remember(vaultId, entry);
        return entry.resolver;
      } finally {
        if (loading.get(vaultId)?.promise === promise) loading.delete(vaultId);
      }
    },
  };
}
