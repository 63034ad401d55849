import { describe, expect, it } from 'vitest';
import { partOf } from '../../domains/media/index.ts';
import { entityTagOf, ifRangeSha256Of, parseRange } from './media-range.ts';

describe('Range headers of the media download (RFC 9110 s14)', () => {
  it('reads one byte range: first-last, first- (to the end), and -suffix', () => {
    expect(parseRange('bytes=0-99')).toEqual({ start: 0, end: 99 });
    expect(parseRange('bytes=100-')).toEqual({ start: 100 });
    expect(parseRange('bytes=-500')).toEqual({ suffix: 500 });
    expect(parseRange(' bytes = 5 - 9 ')).toEqual({ start: 5, end: 9 });
    expect(parseRange('BYTES=0-0')).toEqual({ start: 0, end: 0 });
  });

  it('ignores (the whole object is answered) what it does not honour: none, other units, several ranges, bad syntax', () => {
    for (const header of [undefined, '', 'bytes=', 'bytes=-', 'items=0-9', 'bytes=0-9,20-29', 'bytes=9-0', 'bytes=a-b', 'bytes=1234567890123456-', 'bytes 0-9']) {
      expect({ header, range: parseRange(header) }).toEqual({ header, range: undefined });
    }
  });

  it('the ETag is the quoted SHA-256; If-Range matches only that strong tag', () => {
    const sha = 'ab'.repeat(32);
    expect(entityTagOf(sha)).toBe(`"${sha}"`);
    expect(ifRangeSha256Of(undefined)).toBeUndefined();
    expect(ifRangeSha256Of(`"${sha}"`)).toBe(sha);
    expect(ifRangeSha256Of(`W/"${sha}"`)).toBe('');
    expect(ifRangeSha256Of('Wed, 21 Oct 2015 07:28:00 GMT')).toBe('');
  });
});

describe('the part of a media object a range names', () => {
  const size = 1000;
  it('is the whole object without a range, and the range itself, clamped to the end, with one', () => {
    expect(partOf(size, undefined)).toEqual({ kind: 'whole', range: { start: 0, end: 999 } });
    expect(partOf(size, { start: 0, end: 9 })).toEqual({ kind: 'partial', range: { start: 0, end: 9 } });
    expect(partOf(size, { start: 990 })).toEqual({ kind: 'partial', range: { start: 990, end: 999 } });
    expect(partOf(size, { start: 990, end: 5000 })).toEqual({ kind: 'partial', range: { start: 990, end: 999 } });
    expect(partOf(size, { start: 999, end: 999 })).toEqual({ kind: 'partial', range: { start: 999, end: 999 } });
  });

  it('takes the last bytes for a suffix, all of them when the suffix is longer', () => {
    expect(partOf(size, { suffix: 10 })).toEqual({ kind: 'partial', range: { start: 990, end: 999 } });
    expect(partOf(size, { suffix: 5000 })).toEqual({ kind: 'partial', range: { start: 0, end: 999 } });
  });

  it('is unsatisfiable from the end on, and for an empty suffix', () => {
    expect(partOf(size, { start: 1000 })).toEqual({ kind: 'unsatisfiable' });
    expect(partOf(size, { start: 1000, end: 2000 })).toEqual({ kind: 'unsatisfiable' });
    expect(partOf(size, { suffix: 0 })).toEqual({ kind: 'unsatisfiable' });
  });
});
