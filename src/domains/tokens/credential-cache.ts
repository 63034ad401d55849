/**
 * Resolved credentials kept in memory, so that a request with a known token costs no database round trip.
 *
 * Safe only while every change of access reaches it: the gateway enables it while it listens to the database's
 * credential notifications (migration 0003 notifies on every token and account change), and this process's own
 * changes forget their account synchronously, before the changing call returns. While notifications may be
 * missed (the listening connection is down) the cache is disabled and empty, and every request reads the
 * database as if there were no cache. Entries also expire, as a bound on any bug in that chain.
 */
export interface CredentialCache<R extends CachedCredential = CachedCredential> {
  get(tokenHash: string): R | undefined;
  /** A stamp to take before reading the database; `set` ignores a row read before a later forget. */
  generation(): number;
  set(tokenHash: string, row: R, generation: number): void;
  /** Drops every entry of an account: its tokens, status, plan or allowances changed. */
  forgetAccount(accountId: string): void;
  /** Enabled: entries are kept. Disabling also empties it. */
  setEnabled(enabled: boolean): void;
  /** Lookups since it was made that found an entry, and those that did not (disabled: every lookup misses). */
  counts(): { hits: number; misses: number };
}

/** What every cached credential row has: the account whose changes make it stale. */
export interface CachedCredential {
  account_id: string;
}

/** Entries older than this are read again from the database, whatever the notifications said. */
export const CREDENTIAL_CACHE_MAX_AGE_MS = 60_000;
/** At most this many tokens are cached; the oldest entry makes room. */
export const CREDENTIAL_CACHE_MAX_ENTRIES = 10_000;

/** A cache that starts disabled: a process that does not listen for notifications (the CLI) never caches. */
export function createCredentialCache<R extends CachedCredential = CachedCredential>(
  now: () => number = () => performance.now(),
): CredentialCache<R> {
  const entries = new Map<string, { row: R; at: number }>();
  let enabled = false;
  // Bumped by every forget: a row read from the database before a change committed must not be cached after it.
  let generation = 0;
  const counts = { hits: 0, misses: 0 };
  return {
    generation: () => generation,
    counts: () => ({ ...counts }),
    get(tokenHash) {
      const entry = entries.get(tokenHash);
      if (!entry || now() - entry.at > CREDENTIAL_CACHE_MAX_AGE_MS) {
        if (entry) entries.delete(tokenHash);
        counts.misses += 1;
        return undefined;
      }
      counts.hits += 1;
      return entry.row;
    },
    set(tokenHash, row, readAt) {
      if (!enabled || readAt !== generation) return;
      if (entries.size >= CREDENTIAL_CACHE_MAX_ENTRIES) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(tokenHash, { row, at: now() });
    },
    forgetAccount(accountId) {
      generation += 1;
      for (const [hash, entry] of entries) if (entry.row.account_id === accountId) entries.delete(hash);
    },
    setEnabled(next) {
      enabled = next;
      generation += 1;
      if (!next) entries.clear();
    },
  };
}
