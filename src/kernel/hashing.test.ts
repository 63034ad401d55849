import { describe, expect, it } from 'vitest';
import { CONTENT_HASH_PATTERN, constantTimeEqual, contentHash, sha256Hex } from './hashing.ts';
import { isUuid, newId } from './ids.ts';

describe('content hashes', () => {
  it('is sha256: plus the hex digest of the UTF-8 bytes', () => {
    // Known vector: SHA-256 of the empty string.
    expect(contentHash('')).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(contentHash('é')).toBe(`sha256:${sha256Hex(Buffer.from([0xc3, 0xa9]))}`);
    expect(contentHash('# Note\n')).toMatch(CONTENT_HASH_PATTERN);
  });

  it('compares secrets by value', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('ids', () => {
  it('are version 7 UUIDs that sort by creation time', () => {
    const first = newId(1_700_000_000_000);
    const second = newId(1_700_000_000_001);
    expect(isUuid(first)).toBe(true);
    expect(first[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(first[19]);
    expect(first < second).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, () => newId())).size).toBe(1000);
  });

  it('use fresh random bits for each id, across refills of the random pool (256 ids each)', () => {
    // The same millisecond for all: only the random part tells them apart.
    const ids = Array.from({ length: 2000 }, () => newId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(2000);
    expect(new Set(ids.map((id) => id.slice(19))).size).toBe(2000);
    expect(ids.every((id) => isUuid(id) && id[14] === '7' && '89ab'.includes(id[19]!))).toBe(true);
  });
});
