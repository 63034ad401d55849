import { describe, expect, it } from 'vitest';
import { TOKEN_PREFIX, generateToken, isWellFormedToken, lastFourOf } from './token-format.ts';

describe('personal access token format', () => {
  it('has a recognizable prefix, 36 base62 characters and a valid checksum', () => {
    const token = generateToken();
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token).toMatch(/^kgp_[0-9A-Za-z]{36}$/);
    expect(isWellFormedToken(token)).toBe(true);
    expect(lastFourOf(token)).toBe(token.slice(-4));
  });

  it('detects any single-character change through the checksum', () => {
    const token = generateToken();
    for (let i = TOKEN_PREFIX.length; i < token.length; i += 1) {
      const replacement = token[i] === 'x' ? 'y' : 'x';
      expect(isWellFormedToken(token.slice(0, i) + replacement + token.slice(i + 1))).toBe(false);
    }
  });

  it('rejects other shapes', () => {
    const token = generateToken();
    expect(isWellFormedToken(token.replace('kgp_', 'ghp_'))).toBe(false);
    expect(isWellFormedToken(token.slice(0, -1))).toBe(false);
    expect(isWellFormedToken(`${token}a`)).toBe(false);
    expect(isWellFormedToken(token.replace(/[A-Za-z0-9]$/, '-'))).toBe(false);
    expect(isWellFormedToken('')).toBe(false);
  });

  it('does not repeat', () => {
    expect(new Set(Array.from({ length: 2000 }, generateToken)).size).toBe(2000);
  });
});
