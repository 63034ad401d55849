import { describe, expect, it } from 'vitest';
import { createNoteBodyCache } from './body-cache.ts';
import type { Note } from './contract.ts';

const note = (path: string, content = `# ${path}\n`): Note => ({
  path,
  title: path,
  content,
  contentHash: `hash-${content.length}`,
  revision: `hash-${content.length}`,
  size: content.length,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

describe('note body cache', () => {
  it('serves a body only at the content version it was read at', () => {
    const cache = createNoteBodyCache();
    cache.set('v', 'a.md', 3, note('a.md', 'three'));
    expect(cache.get('v', 'a.md', 3)?.content).toBe('three');
    expect(cache.get('v', 'a.md', 4)).toBeUndefined();
    expect(cache.get('v', 'a.md', 2)).toBeUndefined();
    expect(cache.get('other', 'a.md', 3)).toBeUndefined();
  });

  it('a body read at a later version replaces the older one; a slower reader of an older version does not', () => {
    const cache = createNoteBodyCache();
    cache.set('v', 'a.md', 3, note('a.md', 'three'));
    cache.set('v', 'a.md', 4, note('a.md', 'four'));
    cache.set('v', 'a.md', 3, note('a.md', 'three again'));
    expect(cache.get('v', 'a.md', 4)?.content).toBe('four');
    expect(cache.get('v', 'a.md', 3)).toBeUndefined();
  });

  it('stays within its byte budget, dropping the least recently read first', () => {
    const body = 'x'.repeat(1000);
    // Each entry weighs 2 * (1000 + path + title) + 512 bytes: about 2.5 KB. Ten fit in 25 KB, eleven do not.
    const cache = createNoteBodyCache(25_500);
    for (let i = 0; i < 10; i++) cache.set('v', `n${i}.md`, 1, note(`n${i}.md`, body));
    expect(cache.usage().entries).toBe(10);
    expect(cache.get('v', 'n0.md', 1)).toBeDefined(); // n0 is now the most recently read
    cache.set('v', 'n10.md', 1, note('n10.md', body));
    expect(cache.usage().bytes).toBeLessThanOrEqual(25_500);
    expect(cache.get('v', 'n1.md', 1)).toBeUndefined();
    expect(cache.get('v', 'n0.md', 1)).toBeDefined();
    expect(cache.get('v', 'n10.md', 1)).toBeDefined();
  });

  it('keeps no body heavier than an eighth of the budget, and nothing with a budget of 0', () => {
    const cache = createNoteBodyCache(80_000);
    cache.set('v', 'big.md', 1, note('big.md', 'x'.repeat(6_000)));
    expect(cache.get('v', 'big.md', 1)).toBeUndefined();
    cache.set('v', 'small.md', 1, note('small.md', 'x'.repeat(4_000)));
    expect(cache.get('v', 'small.md', 1)).toBeDefined();
    const none = createNoteBodyCache(0);
    none.set('v', 'a.md', 1, note('a.md'));
    expect(none.get('v', 'a.md', 1)).toBeUndefined();
    expect(none.usage()).toEqual({ bytes: 0, budget: 0, entries: 0 });
  });

  it('hands out frozen notes', () => {
    const cache = createNoteBodyCache();
    cache.set('v', 'a.md', 1, note('a.md', 'kept'));
    const found = cache.get('v', 'a.md', 1)!;
    expect(() => {
      (found as { content: string }).content = 'changed';
    }).toThrow(TypeError);
  });

  it('counts hits and misses', () => {
    const cache = createNoteBodyCache();
    cache.get('v', 'a.md', 1);
    cache.set('v', 'a.md', 1, note('a.md'));
    cache.get('v', 'a.md', 1);
    expect(cache.counts()).toEqual({ hits: 1, misses: 1 });
  });
});
