import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits, prefersMarkdown } from './bind.ts';
import { requestFingerprint } from '../operations/run-operation.ts';

describe('content negotiation and conditional requests', () => {
  it.each([
    [undefined, false],
    ['application/json', false],
    ['text/markdown', true],
    ['text/markdown, application/json', false],
    ['application/json;q=0.5, text/markdown', true],
    ['text/markdown;q=0, */*', false],
    ['*/*', false],
    ['text/markdown;q=0.9, */*;q=0.8', true],
  ])('Accept %j prefers Markdown: %s', (accept, expected) => {
    expect(prefersMarkdown(accept)).toBe(expected);
  });

  it('matches If-None-Match by value, strong or weak, in lists, and *', () => {
    const revision = 'sha256:abc';
    expect(ifNoneMatchHits(`"${revision}"`, revision)).toBe(true);
    expect(ifNoneMatchHits(`W/"${revision}"`, revision)).toBe(true);
    expect(ifNoneMatchHits(`"sha256:old", "${revision}"`, revision)).toBe(true);
    expect(ifNoneMatchHits('*', revision)).toBe(true);
    expect(ifNoneMatchHits('"sha256:old"', revision)).toBe(false);
    expect(ifNoneMatchHits(undefined, revision)).toBe(false);
  });
});

describe('request fingerprints', () => {
  it('ignore key order and undefined fields, and differ for different requests or operations', () => {
    const a = requestFingerprint('writeNote', { path: 'a.md', content: 'x', dryRun: false, expectedHash: undefined });
    const b = requestFingerprint('writeNote', { dryRun: false, content: 'x', path: 'a.md' });
    expect(a).toBe(b);
    expect(requestFingerprint('writeNote', { path: 'a.md', content: 'y', dryRun: false })).not.toBe(a);
    expect(requestFingerprint('deleteNote', { path: 'a.md', content: 'x', dryRun: false })).not.toBe(a);
  });
});
