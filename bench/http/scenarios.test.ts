import { describe, expect, it } from 'vitest';
import { variedSearch } from './scenarios.ts';

describe('the varied search row', () => {
  it('repeats no (query, limit) within 23,800 requests, so the page cache never answers it', () => {
    const seen = new Set<string>();
    for (let n = 0; n < 23_800; n++) {
      const { query, limit } = variedSearch(n);
      expect(query.split(' ')).toHaveLength(2);
      expect(new Set(query.split(' ')).size).toBe(2);
      expect(limit).toBeGreaterThanOrEqual(1);
      expect(limit).toBeLessThanOrEqual(20);
      seen.add(`${query}|${limit}`);
    }
    expect(seen.size).toBe(23_800);
  });
});
