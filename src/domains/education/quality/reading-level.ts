/**
 * Reading level, computed by kgate and never by the model (docs/education.md, "Quality review"): the same text gives
 * the same numbers whatever the model says. Pure and linear in the length of the text.
 *
 * - Words: runs of letters (apostrophes inside allowed: "don't") and numbers ("3.5" is one word). Web addresses are
 *   not words. Markdown marks (#, *, _, >, list bullets) are not words.
 * - Sentences: a run of text ends at . ! or ? (repeated, then closing quotes or brackets) followed by white space or
 *   the end, unless the word before the point is a common abbreviation ("Mr.", "e.g.") or a single capital (an
 *   initial); and at a blank line, and before a heading or list item line. A sentence has at least one word.
 * - Syllables: syllables.ts (the Lingua::EN::Syllable heuristic).
 * - Flesch-Kincaid grade = 0.39 * words/sentences + 11.8 * syllables/words - 15.59.
 * - Flesch reading ease = 206.835 - 1.015 * words/sentences - 84.6 * syllables/words.
 *   Both rounded to one decimal, the averages to two. English prose only: say so where it is shown.
 */
import { countSyllables } from './syllables.ts';

/** A sentence's place in the text: UTF-16 offsets [start, end) of the original text, and its word count. */
export interface SentenceSpan {
  start: number;
  end: number;
  words: number;
}

/** The reading-level measures of a text. */
export interface ReadingLevel {
  method: 'flesch-kincaid';
  syllableCounter: 'lingua-en-syllable';
  sentences: number;
  words: number;
  syllables: number;
  /** Words of three syllables or more. */
  polysyllabicWords: number;
  averageWordsPerSentence: number;
  averageSyllablesPerWord: number;
  /** null for a text without words. */
  fleschKincaidGrade: number | null;
  fleschReadingEase: number | null;
  /** The three longest sentences by words (ties: the earlier first), in the text's order of length. */
  longestSentences: SentenceSpan[];
}

const WORD = /[A-Za-z\u00C0-\u024F]+(?:['\u2019][A-Za-z\u00C0-\u024F]+)*|\d+(?:[.,]\d+)*/g;
const URL = /\b(?:https?:\/\/|www\.)[^\s)>\]]+/g;
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'st', 'vs', 'etc', 'eg', 'ie', 'no', 'fig', 'approx', 'p', 'pp']);
/** A line that starts a block of its own: a heading, a list item, a quote. */
const BLOCK_START = /^[ \t]*(?:#{1,6}\s|[-*+]\s|\d{1,3}[.)]\s|>)/;

function round(value: number, places: number): number {
  const factor = 10 ** places;
  return Math.round(value * factor) / factor;
}

/** The text with web addresses blanked out (same length, so offsets stay those of the original). */
function withoutAddresses(text: string): string {
  return text.replace(URL, (match) => ' '.repeat(match.length));
}

/** True when the point at `index` closes an abbreviation or an initial rather than a sentence. */
function isAbbreviation(text: string, index: number): boolean {
  const before = /([A-Za-z.]+)$/.exec(text.slice(Math.max(0, index - 12), index));
  if (!before) return false;
  const token = before[1]!;
  if (/^[A-Z]$/.test(token)) return true;
  return ABBREVIATIONS.has(token.replace(/\./g, '').toLowerCase());
}

/** Offsets where sentences end (exclusive), in order, the text's length last. */
function sentenceBoundaries(text: string): number[] {
  const ends: number[] = [];
  const terminal = /[.!?]+["'\u2019\u201d)\]]*(?=\s|$)/g;
  for (let match = terminal.exec(text); match; match = terminal.exec(text)) {
    if (match[0].startsWith('.') && match[0].length === 1 && isAbbreviation(text, match.index)) continue;
    ends.push(match.index + match[0].length);
  }
  // Blank lines end a paragraph; a heading, list item or quote line starts a block of its own.
  const line = /\n/g;
  for (let match = line.exec(text); match; match = line.exec(text)) {
    const next = text.indexOf('\n', match.index + 1);
    const following = text.slice(match.index + 1, next === -1 ? text.length : next);
    if (following.trim() === '' || BLOCK_START.test(following)) ends.push(match.index);
  }
  ends.push(text.length);
  return [...new Set(ends)].sort((a, b) => a - b);
}

/** The reading-level measures of `text` (docs/education.md). */
export function measureReadingLevel(text: string): ReadingLevel {
  const plain = withoutAddresses(text);
  const sentences: SentenceSpan[] = [];
  let words = 0;
  let syllables = 0;
  let polysyllabic = 0;
  let start = 0;
  for (const end of sentenceBoundaries(plain)) {
    const found = plain.slice(start, end).match(WORD) ?? [];
    if (found.length > 0) {
      for (const word of found) {
        const count = countSyllables(word);
        syllables += count;
        if (count >= 3) polysyllabic += 1;
      }
      words += found.length;
      const lead = plain.slice(start, end).search(/\S/);
      const trimmedEnd = start + plain.slice(start, end).trimEnd().length;
      sentences.push({ start: start + Math.max(0, lead), end: trimmedEnd, words: found.length });
    }
    start = end;
  }
  const longest = [...sentences].sort((a, b) => b.words - a.words || a.start - b.start).slice(0, 3);
  if (words === 0) {
    return {
      method: 'flesch-kincaid',
      syllableCounter: 'lingua-en-syllable',
      sentences: 0,
      words: 0,
      syllables: 0,
      polysyllabicWords: 0,
      averageWordsPerSentence: 0,
      averageSyllablesPerWord: 0,
      fleschKincaidGrade: null,
      fleschReadingEase: null,
      longestSentences: [],
    };
  }
  const wordsPerSentence = words / sentences.length;
  const syllablesPerWord = syllables / words;
  return {
    method: 'flesch-kincaid',
    syllableCounter: 'lingua-en-syllable',
    sentences: sentences.length,
    words,
    syllables,
    polysyllabicWords: polysyllabic,
    averageWordsPerSentence: round(wordsPerSentence, 2),
    averageSyllablesPerWord: round(syllablesPerWord, 2),
    fleschKincaidGrade: round(0.39 * wordsPerSentence + 11.8 * syllablesPerWord - 15.59, 1),
    fleschReadingEase: round(206.835 - 1.015 * wordsPerSentence - 84.6 * syllablesPerWord, 1),
    longestSentences: longest,
  };
}
