import { describe, expect, it } from 'vitest';
import { forEachWord, foldWord, words } from './tokenizer.ts';

describe('search words', () => {
  it('splits on anything but letters and digits, in lower case', () => {
    expect(words('Offline-first SYNC, v2.1 (draft)')).toEqual(['offline', 'first', 'sync', 'v2', '1', 'draft']);
  });

  it('folds accents and reads any script, with the same offsets as the text', () => {
    const text = 'Café Ünïcode 東京 naïve';
    const seen: Array<[string, string]> = [];
    forEachWord(text, (word, start, end) => seen.push([word, text.slice(start, end)]));
    expect(seen).toEqual([
      ['cafe', 'Café'],
      ['unicode', 'Ünïcode'],
      ['東京', '東京'],
      ['naive', 'naïve'],
    ]);
    expect(foldWord('ÉCOLE')).toBe('ecole');
  });

  it('gives the same words for ASCII text on its fast path as the general rule would', () => {
    const ascii = 'Alpha_beta gamma42 DELTA-epsilon';
    // The same text with one non-ASCII character appended takes the general path.
    expect(words(`${ascii} é`).slice(0, -1)).toEqual(words(ascii));
  });

  it('cuts very long words', () => {
    expect(words('x'.repeat(100))[0]).toHaveLength(64);
  });
});
