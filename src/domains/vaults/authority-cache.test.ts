import { describe, expect, it } from 'vitest';
import { AUTHORITY_CACHE_MAX_AGE_MS, AUTHORITY_CACHE_MAX_ENTRIES, createAuthorityCache, type MappingAuthority } from './authority-cache.ts';
import type { Mapping } from './contract.ts';

const mapping = (id: string, over: Partial<Mapping> = {}): Mapping => ({
  id,
  workspaceId: 'ws-1',
  ownerAccountId: 'owner',
  provider: 'hosted',
  vaultId: `vault-of-${id}`,
  name: id,
  readOnly: false,
  pullOnly: false,
  allowMcpNoteChanges: false,
  approvalPolicy: 'open',
  deviceEncrypted: false,
  remoteRoot: null,
  remoteConfig: null,
  connection: null,
  createdAt: new Date(0),
  ...over,
});
const authority = (id: string, contentVersion = 1, over: Partial<Mapping> = {}): MappingAuthority => ({
  mapping: mapping(id, over),
  role: 'owner',
  contentVersion,
});

function enabledCache(now?: () => number) {
  const cache = createAuthorityCache(now);
  cache.setEnabled(true);
  return cache;
}

describe('authority cache', () => {
  it('keeps nothing until a listening gateway enables it, and empties when disabled', () => {
    const cache = createAuthorityCache();
    cache.set('a', 'm', authority('m'), cache.generation());
    expect(cache.get('a', 'm')).toBeUndefined();
    cache.setEnabled(true);
    cache.set('a', 'm', authority('m', 7), cache.generation());
    expect(cache.get('a', 'm')).toMatchObject({ role: 'owner', contentVersion: 7, mapping: { id: 'm' } });
    cache.setEnabled(false);
    expect(cache.get('a', 'm')).toBeUndefined();
  });

  it('keys by caller: another account learns nothing from an entry', () => {
    const cache = enabledCache();
    cache.set('a', 'm', authority('m'), cache.generation());
    expect(cache.get('b', 'm')).toBeUndefined();
  });

  it('a changed vault keeps the authority but not the version, so the next read asks the database', () => {
    const cache = enabledCache();
    cache.set('a', 'm', authority('m', 3), cache.generation());
    cache.set('a', 'other', authority('other', 5), cache.generation());
    cache.forgetVault('vault-of-m');
    expect(cache.get('a', 'm')).toBeUndefined();
    expect(cache.get('a', 'other')?.contentVersion).toBe(5);
    cache.set('a', 'm', authority('m', 4), cache.generation());
    expect(cache.get('a', 'm')?.contentVersion).toBe(4);
  });

  it('ignores a row read before a forget (a slow reader must not put back what a change made stale)', () => {
    const cache = enabledCache();
    const readAt = cache.generation();
    cache.forgetVault('vault-of-m');
    cache.set('a', 'm', authority('m', 3), readAt);
    expect(cache.get('a', 'm')).toBeUndefined();
  });

  it('two rows of one vault read in the same generation: the later version stands', () => {
    const cache = enabledCache();
    const readAt = cache.generation();
    cache.set('a', 'm', authority('m', 9), readAt);
    cache.set('b', 'm', authority('m', 8), readAt);
    expect(cache.get('a', 'm')?.contentVersion).toBe(9);
    expect(cache.get('b', 'm')?.contentVersion).toBe(9);
  });

  it('forgets a mapping for every caller, and a workspace for every mapping in it', () => {
    const cache = enabledCache();
    cache.set('a', 'm1', authority('m1'), cache.generation());
    cache.set('b', 'm1', authority('m1'), cache.generation());
    cache.set('a', 'm2', authority('m2'), cache.generation());
    cache.set('a', 'm3', authority('m3', 1, { workspaceId: 'ws-2' }), cache.generation());
    cache.forgetMapping('m1');
    expect([cache.get('a', 'm1'), cache.get('b', 'm1')]).toEqual([undefined, undefined]);
    expect(cache.get('a', 'm2')).toBeDefined();
    cache.forgetWorkspace('ws-1');
    expect(cache.get('a', 'm2')).toBeUndefined();
    expect(cache.get('a', 'm3')).toBeDefined();
  });

  it('applies notifications: v:, m: and w: forget what they name; anything else forgets everything', () => {
    const cache = enabledCache();
    const fill = () => {
      for (const id of ['m1', 'm2']) cache.set('a', id, authority(id), cache.generation());
      cache.set('a', 'm3', authority('m3', 1, { workspaceId: 'ws-2' }), cache.generation());
    };
    const present = () => ['m1', 'm2', 'm3'].filter((id) => cache.get('a', id) !== undefined);
    fill();
    cache.forgetNotice('v:vault-of-m1');
    expect(present()).toEqual(['m2', 'm3']);
    cache.forgetNotice('m:m2');
    expect(present()).toEqual(['m3']);
    fill();
    cache.forgetNotice('w:ws-2');
    expect(present()).toEqual(['m1', 'm2']);
    cache.forgetNotice('something new');
    expect(present()).toEqual([]);
  });

  it('hands out frozen mappings, so no caller can change what the next one is told', () => {
    const cache = enabledCache();
    cache.set('a', 'm', authority('m'), cache.generation());
    const found = cache.get('a', 'm')!;
    expect(() => {
      (found.mapping as { readOnly: boolean }).readOnly = true;
    }).toThrow(TypeError);
    expect(cache.get('a', 'm')?.mapping.readOnly).toBe(false);
  });

  it('a remote mapping is kept with the version of its synchronized copy', () => {
    const cache = enabledCache();
    cache.set('a', 'r', authority('r', 0, { provider: 'drive' }), cache.generation());
    expect(cache.get('a', 'r')).toMatchObject({ contentVersion: 0, mapping: { provider: 'drive' } });
  });

  it('entries expire after the maximum age, whatever the notifications said', () => {
    let clock = 0;
    const cache = enabledCache(() => clock);
    cache.set('a', 'm', authority('m'), cache.generation());
    clock = AUTHORITY_CACHE_MAX_AGE_MS;
    expect(cache.get('a', 'm')).toBeDefined();
    clock = AUTHORITY_CACHE_MAX_AGE_MS + 1;
    expect(cache.get('a', 'm')).toBeUndefined();
  });

  it('holds at most the maximum number of entries, dropping the oldest', () => {
    const cache = enabledCache();
    for (let i = 0; i <= AUTHORITY_CACHE_MAX_ENTRIES; i++) cache.set('a', `m${i}`, authority(`m${i}`), cache.generation());
    expect(cache.get('a', 'm0')).toBeUndefined();
    expect(cache.get('a', 'm1')).toBeDefined();
    expect(cache.get('a', `m${AUTHORITY_CACHE_MAX_ENTRIES}`)).toBeDefined();
  });

  it('counts hits and misses', () => {
    const cache = enabledCache();
    cache.get('a', 'm');
    cache.set('a', 'm', authority('m'), cache.generation());
    cache.get('a', 'm');
    cache.get('a', 'm');
    expect(cache.counts()).toEqual({ hits: 2, misses: 1 });
  });
});
