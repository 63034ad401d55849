import { describe, expect, it } from 'vitest';
import { snippetOf } from './snippet.ts';

const text =
  'Planning notes for the quarter. We talked about many things, most of them minor, before we came to the point: ' +
  'offline sync must survive a flaky network, and conflicts must never lose a change. Later we discussed sync again.';
const words = new Set(['offline', 'sync']);

describe('a snippet', () => {
  const slow = snippetOf(text, words, []);

  it('is cut around the first match, with its matched words marked', () => {
    expect(slow.snippet).toContain('offline sync must survive');
    expect(slow.snippet.startsWith('… ')).toBe(true);
    const marked = slow.highlights.map(([s, e]) => slow.snippet.slice(s, e).toLowerCase());
    expect(marked).toEqual(['offline', 'sync', 'sync']);
  });

  it('is the same when the first match is known from the index', () => {
    expect(snippetOf(text, words, [], undefined, text.indexOf('offline'))).toEqual(slow);
  });

  it('is the same when a known offset no longer points at a query word (the text is of a newer version)', () => {
    for (const wrong of [0, text.indexOf('flaky'), text.indexOf('ffline'), -5, text.length + 3]) {
      expect(snippetOf(text, words, [], undefined, wrong)).toEqual(slow);
    }
  });

  it('is empty when the body does not match, whatever offset was given', () => {
    expect(snippetOf(text, new Set(['absent']), [], undefined, 10)).toEqual({ snippet: '', highlights: [] });
  });
});
