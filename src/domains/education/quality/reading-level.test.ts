import { describe, expect, it } from 'vitest';
import { measureReadingLevel } from './reading-level.ts';
import { countSyllables } from './syllables.ts';

describe('syllable counter (Lingua::EN::Syllable heuristic)', () => {
  it('counts known words', () => {
    const known: Record<string, number> = {
      the: 1,
      cat: 1,
      a: 1,
      be: 1,
      australian: 4,
      platypus: 3,
      seemingly: 3,
      hybrid: 2,
      mammal: 2,
      reptilian: 4,
      creature: 2,
      table: 2,
      agreeable: 4,
      special: 2,
      nation: 2,
      absolutely: 4,
      jumped: 1,
      wanted: 2,
      "don't": 1,
      ratio: 3,
      "42": 1,
    };
    const counted = Object.fromEntries(Object.keys(known).map((word) => [word, countSyllables(word)]));
    expect(counted).toEqual(known);
  });
});

describe('reading level', () => {
  it('measures the Flesch-Kincaid example sentence (grade 13.1)', () => {
    // The example of the Flesch-Kincaid article: 13 words, 26 syllables, one sentence.
    const level = measureReadingLevel('The Australian platypus is seemingly a hybrid of a mammal and reptilian creature.');
    expect(level).toMatchObject({ sentences: 1, words: 13, syllables: 26, fleschKincaidGrade: 13.1, fleschReadingEase: 24.4 });
  });

  it('measures a very easy text', () => {
    // 6 words, 6 syllables, 1 sentence: grade 0.39*6 + 11.8 - 15.59 = -1.45, ease 206.835 - 6.09 - 84.6 = 116.145.
    expect(measureReadingLevel('The cat sat on the mat.')).toMatchObject({ sentences: 1, words: 6, syllables: 6, fleschKincaidGrade: -1.4, fleschReadingEase: 116.1 });
  });

  it('splits sentences at terminal points, blank lines, headings and list items, not at abbreviations or decimals', () => {
    const text = '# Ratios\n\nMr. Lee uses 3.5 cups. Is that a ratio? Yes!\n- Compare the cups\n- Compare the bowls\nwith a table';
    const level = measureReadingLevel(text);
    expect(level.sentences).toBe(6);
    expect(level.longestSentences.map((s) => text.slice(s.start, s.end))).toEqual([
      // A line without a list marker continues the list item above it.
      '- Compare the bowls\nwith a table',
      'Mr. Lee uses 3.5 cups.',
      'Is that a ratio?',
    ]);
  });

  it('does not count web addresses as words, and answers null grades for a text without words', () => {
    expect(measureReadingLevel('See https://example.com/a-long-path-of-words for more.').words).toBe(3);
    expect(measureReadingLevel('### ---')).toMatchObject({ words: 0, sentences: 0, fleschKincaidGrade: null, fleschReadingEase: null });
  });

  it('answers the same measures for the same text every time', () => {
    const text = 'Photosynthesis converts light energy into chemical energy. Plants store it as glucose.';
    expect(measureReadingLevel(text)).toEqual(measureReadingLevel(text));
  });
});
