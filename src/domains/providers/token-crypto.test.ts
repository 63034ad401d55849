import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTokenSealer, parseTokenKeys } from './token-crypto.ts';

const key = () => randomBytes(32).toString('base64');

describe('provider tokens at rest', () => {
  it('seals under the first key and opens under any listed key, so keys rotate without a flag day', () => {
    const oldKey = `old:${key()}`;
    const before = createTokenSealer(parseTokenKeys(oldKey));
    const sealed = before.seal('gho_secret-token', 'provider-connection:c1:access');
    expect(sealed).not.toContain('gho_secret-token');
    expect(before.keyIdOf(sealed)).toBe('old');
    const after = createTokenSealer(parseTokenKeys(`new:${key()},${oldKey}`));
    expect(after.currentKeyId).toBe('new');
    expect(after.open(sealed, 'provider-connection:c1:access')).toBe('gho_secret-token');
    expect(after.keyIdOf(after.seal('x', 'c'))).toBe('new');
  });

  it('refuses an envelope moved to another row or field, tampered with, or sealed under a retired key', () => {
    const sealer = createTokenSealer(parseTokenKeys(`k1:${key()}`));
    const sealed = sealer.seal('refresh-token', 'provider-connection:c1:refresh');
    expect(() => sealer.open(sealed, 'provider-connection:c2:refresh')).toThrow(/could not be opened/);
    expect(() => sealer.open(sealed, 'provider-connection:c1:access')).toThrow(/could not be opened/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => sealer.open(parts.join('.'), 'provider-connection:c1:refresh')).toThrow(/could not be opened/);
    expect(() => sealer.open('v1.k1.only-three', 'provider-connection:c1:refresh')).toThrow(/could not be opened/);
    const other = createTokenSealer(parseTokenKeys(`k2:${key()}`));
    expect(() => other.open(sealed, 'provider-connection:c1:refresh')).toThrow(/key "k1", which is not configured/);
  });

  it('never seals the same token to the same envelope twice (a fresh nonce each time)', () => {
    const sealer = createTokenSealer(parseTokenKeys(`k:${key()}`));
    expect(sealer.seal('same', 'c')).not.toBe(sealer.seal('same', 'c'));
  });

  it('reads the keys setting strictly and names what is wrong without echoing key material', () => {
    expect(() => parseTokenKeys('')).toThrow(/at least one key/);
    expect(() => parseTokenKeys(`:${key()}`)).toThrow(/needs an id/);
    expect(() => parseTokenKeys('short:AAAA')).toThrow(/"short" must be 32 bytes/);
    const material = key();
    expect(() => parseTokenKeys(`a:${material},a:${key()}`)).toThrow(/distinct/);
    try {
      parseTokenKeys(`bad id:${material}`);
    } catch (error) {
      expect((error as Error).message).not.toContain(material);
    }
    expect(parseTokenKeys(` a:${key()} , b:${key()} `).map((k) => k.id)).toEqual(['a', 'b']);
  });
});
