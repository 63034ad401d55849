import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../kernel/hashing.ts';
import { chunks, lineCount } from './bulk.ts';
import { canonicalJson, packContentHash } from './content-hash.ts';
import type { ParsedPack } from './format/index.ts';

describe('line counts, chunks and the content hash of a pack', () => {
  it('counts lines as the format validation does: a final line break starts no line', () => {
    const cases: [string, number][] = [
      ['', 1],
      ['one', 1],
      ['one\n', 1],
      ['one\ntwo', 2],
      ['one\ntwo\n', 2],
      ['one\r\ntwo\r\n', 2],
      ['one\rtwo', 2],
      ['one\n\n', 2],
      ['\n', 1],
      ['\n\n', 2],
    ];
    for (const [text, expected] of cases) expect({ text, lines: lineCount(text) }).toEqual({ text, lines: expected });
  });

  it('cuts rows into chunks by count and by size, never an empty one, a large row alone', () => {
    const split = (items: number[], maxRows: number, maxChars: number) => [...chunks(items, (n) => n, maxRows, maxChars)];
    expect(split([], 2, 10)).toEqual([]);
    expect(split([1, 1, 1, 1, 1], 2, 100)).toEqual([[1, 1], [1, 1], [1]]);
    expect(split([4, 4, 4, 20, 1], 10, 10)).toEqual([[4, 4], [4], [20], [1]]);
  });

  it('writes canonical JSON with sorted keys and no undefined properties', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 'x', c: undefined }, null], e: 'é"' })).toBe('{"a":[{"d":"x"},null],"b":1,"e":"é\\""}');
  });

  it('hashes a pack by its content, not by the order of its keys', () => {
    const pack: ParsedPack = {
      pack: 1,
      product: 'tutor',
      slug: 'tiny',
      title: 'Tiny',
      sources: [{ id: 's', title: 'S', citation: 'https://s.example/', versions: [{ version: '1', published: '2024-01-01', reported: '2024-01-02', extraction: 1, text: 'x'.repeat(600_000) }] }],
      assertions: [{ id: 'a', statement: 'A', accepted: '2024-01-02', evidence: [{ source: 's', version: '1', lines: [1, 1], quote: 'x' }] }],
      insights: [],
    };
    const reordered = JSON.parse(JSON.stringify({ insights: [], assertions: pack.assertions, sources: pack.sources, title: 'Tiny', slug: 'tiny', product: 'tutor', pack: 1 })) as ParsedPack;
    expect(packContentHash(reordered)).toBe(packContentHash(pack));
    expect(packContentHash(pack)).toBe(sha256Hex(canonicalJson(pack)));
    expect(packContentHash({ ...pack, title: 'Other' })).not.toBe(packContentHash(pack));
    const text = structuredClone(pack);
    text.sources[0]!.versions[0]!.text += 'y';
    expect(packContentHash(text)).not.toBe(packContentHash(pack));
  });
});
