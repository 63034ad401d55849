import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits, prefersMarkdown } from './bind.ts';

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
