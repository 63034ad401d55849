import { describe, expect, it } from 'vitest';
import { CREDENTIAL_CACHE_MAX_AGE_MS, CREDENTIAL_CACHE_MAX_ENTRIES, createCredentialCache } from './credential-cache.ts';
import type { TokenCredentialRow } from './store.ts';

const row = (accountId: string, id = 'token'): TokenCredentialRow => ({
  id,
  account_id: accountId,
  token_hash: `hash-${id}`,
  expires_at: null,
  revoked_at: null,
  last_used_at: null,
  status: 'active',
  plan: 'developer',
  allowance_overrides: {},
});

describe('credential cache', () => {
  it('keeps nothing until a listening gateway enables it, and empties when disabled', () => {
    const cache = createCredentialCache<TokenCredentialRow>();
    cache.set('h', row('a'), cache.generation());
    expect(cache.get('h')).toBeUndefined();
    cache.setEnabled(true);
    cache.set('h', row('a'), cache.generation());
    expect(cache.get('h')?.account_id).toBe('a');
    cache.setEnabled(false);
    expect(cache.get('h')).toBeUndefined();
  });

  it('forgets every token of an account and no other', () => {
    const cache = createCredentialCache<TokenCredentialRow>();
    cache.setEnabled(true);
    cache.set('a1', row('a', '1'), cache.generation());
    cache.set('a2', row('a', '2'), cache.generation());
    cache.set('b1', row('b', '3'), cache.generation());
    cache.forgetAccount('a');
    expect([cache.get('a1'), cache.get('a2')]).toEqual([undefined, undefined]);
    expect(cache.get('b1')?.account_id).toBe('b');
  });

  it('does not keep a row that was read before a change was announced', () => {
    const cache = createCredentialCache<TokenCredentialRow>();
    cache.setEnabled(true);
    const readStarted = cache.generation();
    cache.forgetAccount('a'); // the revocation commits while the read is in flight
    cache.set('h', row('a'), readStarted);
    expect(cache.get('h')).toBeUndefined();
  });

  it('reads entries again after the maximum age, and stays within its size', () => {
    let now = 0;
    const cache = createCredentialCache<TokenCredentialRow>(() => now);
    cache.setEnabled(true);
    cache.set('h', row('a'), cache.generation());
    now += CREDENTIAL_CACHE_MAX_AGE_MS + 1;
    expect(cache.get('h')).toBeUndefined();
    for (let k = 0; k <= CREDENTIAL_CACHE_MAX_ENTRIES; k++) cache.set(`h${k}`, row('a', String(k)), cache.generation());
    expect(cache.get('h0')).toBeUndefined();
    expect(cache.get(`h${CREDENTIAL_CACHE_MAX_ENTRIES}`)).toBeDefined();
  });
});
