import { describe, expect, it } from 'vitest';
import type { SearchPage } from './contract.ts';
import { createSearchPageCache } from './page-cache.ts';
import { checkSearchRequest } from './search-request.ts';

const page = (path: string, snippet = 'a passage'): SearchPage => ({
  results: [{ path, title: path, score: 1, matchedIn: ['body'], snippet, highlights: [[0, 1]], tags: ['t'] }],
  truncated: false,
  nextCursor: null,
});
const search = (query: string, extra: { limit?: number; folder?: string } = {}) => checkSearchRequest({ query, ...extra });

describe('search page cache', () => {
  it('answers the same request at the same content version only', () => {
    const cache = createSearchPageCache();
    cache.set('v', 3, search('offline sync'), page('a.md'));
    expect(cache.get('v', 3, search('offline sync'))?.results[0]?.path).toBe('a.md');
    expect(cache.get('v', 3, search('Offline   SYNC'))?.results[0]?.path).toBe('a.md'); // the same parsed query
    expect(cache.get('v', 4, search('offline sync'))).toBeUndefined();
    expect(cache.get('w', 3, search('offline sync'))).toBeUndefined();
    expect(cache.get('v', 3, search('offline'))).toBeUndefined();
    expect(cache.get('v', 3, search('offline sync', { limit: 5 }))).toBeUndefined();
    expect(cache.get('v', 3, search('offline sync', { folder: 'Projects' }))).toBeUndefined();
  });

  it('stays within its byte budget, dropping the least recently used first', () => {
    const snippet = 'x'.repeat(1000);
    const cache = createSearchPageCache(40_000);
    for (let i = 0; i < 20; i++) cache.set('v', 1, search(`word${i}`), page(`n${i}.md`, snippet));
    expect(cache.get('v', 1, search('word0'))).toBeUndefined();
    expect(cache.get('v', 1, search('word19'))).toBeDefined();
    const kept = Array.from({ length: 20 }, (_, i) => cache.get('v', 1, search(`word${i}`))).filter(Boolean).length;
    // Each page weighs about 3 KB: at most 40,000 / 3,000 fit.
    expect(kept).toBeGreaterThan(5);
    expect(kept).toBeLessThanOrEqual(13);
  });

  it('keeps nothing with a budget of 0, and hands out frozen pages', () => {
    const none = createSearchPageCache(0);
    none.set('v', 1, search('a'), page('a.md'));
    expect(none.get('v', 1, search('a'))).toBeUndefined();
    const cache = createSearchPageCache();
    cache.set('v', 1, search('a'), page('a.md'));
    const found = cache.get('v', 1, search('a'))!;
    expect(() => found.results.push(page('b.md').results[0]!)).toThrow(TypeError);
    expect(() => {
      (found.results[0] as { snippet: string }).snippet = 'changed';
    }).toThrow(TypeError);
    expect(cache.counts()).toEqual({ hits: 1, misses: 0 });
  });
});
