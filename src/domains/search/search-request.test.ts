import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../../kernel/cursor.ts';
import { KgateError } from '../../kernel/errors.ts';
import { checkSearchRequest, nextPageCursor } from './search-request.ts';

const fieldOf = (request: Parameters<typeof checkSearchRequest>[0]): string | undefined => {
  try {
    checkSearchRequest(request);
  } catch (error) {
    if (error instanceof KgateError && error.code === 'invalid_request') return String(error.details?.field);
    throw error;
  }
  return undefined;
};

describe('checkSearchRequest', () => {
  it('reads the first page with the default limit, tags without # and a folder key', () => {
    const search = checkSearchRequest({ query: 'Amber "sea lion"', tags: [' #Project ', ''], folder: '/Reading/' });
    expect(search).toMatchObject({ limit: 20, offset: 0, filter: { tagKeys: ['project'], folderKey: 'reading' } });
    expect(search.query).toEqual({ words: ['amber', 'sea', 'lion'], phrases: [['sea', 'lion']] });
  });

  it('pages with the cursor of the same query, and refuses it for another query or past the deepest page', () => {
    const first = checkSearchRequest({ query: 'amber', limit: 7 });
    const second = checkSearchRequest({ query: 'amber', limit: 7, cursor: nextPageCursor(first) });
    expect(second.offset).toBe(7);
    expect(fieldOf({ query: 'other', cursor: nextPageCursor(first) })).toBe('cursor');
    expect(fieldOf({ query: 'amber', cursor: encodeCursor({ o: 10_001, q: first.fingerprint }) })).toBe('cursor');
    expect(fieldOf({ query: 'amber', cursor: encodeCursor({ o: 10_000, q: first.fingerprint }) })).toBeUndefined();
  });

  it('names the field of a bad limit or too many tags', () => {
    expect(fieldOf({ query: 'amber', limit: 0 })).toBe('limit');
    expect(fieldOf({ query: 'amber', limit: 101 })).toBe('limit');
    expect(fieldOf({ query: 'amber', tags: Array.from({ length: 11 }, (_, k) => `t${k}`) })).toBe('tags');
  });
});
