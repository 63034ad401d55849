import type { WorkspaceRole } from '../workspaces/index.ts';
import type { Mapping } from './contract.ts';

/** What `findMappingForCaller` answers for a member: the mapping, the caller's role, the vault's content version. */
export interface MappingAuthority {
  mapping: Mapping;
  role: WorkspaceRole;
  /** The vault's `content_version` (0 for a mapping without a hosted vault). */
  contentVersion: number;
}

/**
 * The caller's authority over mappings and each hosted vault's current content version, kept in memory so that a
 * read costs no database round trip. The content version labels the note bodies other caches keep (see
 * notes/body-cache.ts): a vault's version known here is its current one, so a body read at that version is current.
 *
 * Safe only while every change reaches it, exactly like the credential cache: the gateway enables it while it
 * listens to the database's vault notifications (migration 0007), and this process's own changes forget what they
 * touch when they commit, before they are answered (`Sql.afterCommit`). While notifications may be missed the
 * cache is disabled and empty. Entries also expire, as a bound on any bug in that chain. Only members are kept:
 * that someone is not a member is never cached, so a new member needs no notice.
 */
export interface AuthorityCache {
  get(accountId: string, mappingId: string): MappingAuthority | undefined;
  /** A stamp to take before reading the database; `set` ignores a row read before a later forget. */
  generation(): number;
  set(accountId: string, mappingId: string, authority: MappingAuthority, generation: number): void;
  /** The vault's notes changed: its content version is no longer known. */
  forgetVault(vaultId: string): void;
  /** The mapping changed or is gone. */
  forgetMapping(mappingId: string): void;
  /** Some member's role in the workspace changed, or a member left. */
  forgetWorkspace(workspaceId: string): void;
  /** Applies one notification of the `kgate_vaults` channel (`v:`, `m:` or `w:` and an id); unknown ones clear all. */
  forgetNotice(payload: string): void;
  /** Enabled: entries are kept. Disabling also empties it. */
  setEnabled(enabled: boolean): void;
  /** Lookups since it was made that found an entry, and those that did not (disabled: every lookup misses). */
  counts(): { hits: number; misses: number };
}

/** Entries older than this are read again from the database, whatever the notifications said. */
export const AUTHORITY_CACHE_MAX_AGE_MS = 60_000;
/** At most this many (account, mapping) pairs are kept; the oldest entry makes room. */
export const AUTHORITY_CACHE_MAX_ENTRIES = 10_000;

interface Entry {
  mapping: Mapping;
  role: WorkspaceRole;
  at: number;
}

/** A cache that starts disabled: a process that does not listen for notifications (the CLI) never caches. */
export function createAuthorityCache(now: () => number = () => performance.now()): AuthorityCache {
  // Keyed by account and mapping; Map order is insertion order, so the first key is the oldest.
  const entries = new Map<string, Entry>();
  // Current content version of each vault some entry points to; absent means "ask the database".
  const versions = new Map<string, number>();
  let enabled = false;
  // Bumped by every forget: a row read from the database before a change committed must not be kept after it.
  let generation = 0;
  const counts = { hits: 0, misses: 0 };
  const keyOf = (accountId: string, mappingId: string) => `${accountId}/${mappingId}`;

  const forgetWhere = (stale: (entry: Entry) => boolean) => {
    generation += 1;
    for (const [key, entry] of entries) if (stale(entry)) entries.delete(key);
  };

  const cache: AuthorityCache = {
    generation: () => generation,
    counts: () => ({ ...counts }),
    get(accountId, mappingId) {
      const key = keyOf(accountId, mappingId);
      const entry = entries.get(key);
      const vaultId = entry?.mapping.vaultId;
      const contentVersion = vaultId ? versions.get(vaultId) : 0;
      if (!entry || contentVersion === undefined || now() - entry.at > AUTHORITY_CACHE_MAX_AGE_MS) {
        if (entry && contentVersion !== undefined) entries.delete(key);
        counts.misses += 1;
        return undefined;
      }
      counts.hits += 1;
      return { mapping: entry.mapping, role: entry.role, contentVersion };
    },
    set(accountId, mappingId, authority, readAt) {
      if (!enabled || readAt !== generation) return;
      if (entries.size >= AUTHORITY_CACHE_MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      // Callers get the same object again: frozen, so that none can change what the next caller is told.
      entries.set(keyOf(accountId, mappingId), { mapping: Object.freeze({ ...authority.mapping }), role: authority.role, at: now() });
      const vaultId = authority.mapping.vaultId;
      if (vaultId) {
        // Two reads in the same generation saw the same committed state or a later one: the higher version is current.
        versions.set(vaultId, Math.max(authority.contentVersion, versions.get(vaultId) ?? 0));
        // Versions of vaults no entry points to any more go with the oldest entries, in bulk.
        if (versions.size > 2 * AUTHORITY_CACHE_MAX_ENTRIES) versions.clear();
      }
    },
    forgetVault(vaultId) {
      generation += 1;
      versions.delete(vaultId);
    },
    forgetMapping: (mappingId) => forgetWhere((entry) => entry.mapping.id === mappingId),
    forgetWorkspace: (workspaceId) => forgetWhere((entry) => entry.mapping.workspaceId === workspaceId),
    forgetNotice(payload) {
      const id = payload.slice(2);
      if (payload.startsWith('v:')) cache.forgetVault(id);
      else if (payload.startsWith('m:')) cache.forgetMapping(id);
      else if (payload.startsWith('w:')) cache.forgetWorkspace(id);
      else clear();
    },
    setEnabled(next) {
      enabled = next;
      if (!next) clear();
      else generation += 1;
    },
  };

  function clear() {
    generation += 1;
    entries.clear();
    versions.clear();
  }

  return cache;
}
