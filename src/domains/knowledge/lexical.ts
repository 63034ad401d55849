/**
 * Lexical similarity of note titles: what `semantic` relations are while no embedding model is configured, and
 * labelled `method: "lexical"` wherever they are answered (docs/knowledge.md, "Relations and contradictions").
 * Pure: no I/O. The score is pg_trgm's `similarity()`, computed here so that both engines answer alike without the
 * extension.
 */

/** Least trigram similarity of two titles for a lexical relation (pg_trgm's default `similarity_threshold`). */
export const LEXICAL_THRESHOLD = 0.3;
/** Most terms of a title searched for. */
export const MAX_TITLE_TERMS = 8;

// Words too common to relate two notes by.
const STOPWORDS = new Set(
  'the and for with from into onto over under about after before this that these those what when where which who whom why how are was were been being not but all any can our ours its per via only has have had will shall should would could may might must than then them they their there here your you yes also just more most much many such each other some same own out off too very use used'.split(
    ' ',
  ),
);

/** The lowercased words of a text: runs of letters and digits. */
function words(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '');
}

/** The distinctive terms of a title, in order: words of three or more characters, not all digits, not stopwords. */
export function titleTerms(title: string): string[] {
  const terms = words(title).filter((w) => [...w].length >= 3 && !/^\p{N}+$/u.test(w) && !STOPWORDS.has(w));
  return [...new Set(terms)].slice(0, MAX_TITLE_TERMS);
}

/** The trigrams of a text as pg_trgm makes them: each word, lowercased, padded with two spaces before and one after. */
export function trigrams(text: string): Set<string> {
  const set = new Set<string>();
  for (const word of words(text)) {
    const chars = [' ', ' ', ...word, ' '];
    for (let i = 0; i + 3 <= chars.length; i += 1) set.add(chars.slice(i, i + 3).join(''));
  }
  return set;
}

/** pg_trgm's `similarity(a, b)`: shared trigrams over all trigrams of either, 0 to 1. */
export function trigramSimilarity(a: string, b: string): number {
  const left = trigrams(a);
  const right = trigrams(b);
  let shared = 0;
  for (const t of left) if (right.has(t)) shared += 1;
  const union = left.size + right.size - shared;
  return union === 0 ? 0 : shared / union;
}

/** How two titles compare: the terms of the first that the second shares as words, and their similarity. */
export interface LexicalMatch {
  sharedTerms: string[];
  /** Rounded to three decimals. */
  score: number;
  /** At least one shared term and a score of at least LEXICAL_THRESHOLD. */
  holds: boolean;
}

/** Compares the title of a note with another's (see LexicalMatch). */
export function compareTitles(title: string, other: string): LexicalMatch {
  const theirs = new Set(words(other));
  const sharedTerms = titleTerms(title).filter((t) => theirs.has(t));
  const score = Math.round(trigramSimilarity(title, other) * 1000) / 1000;
  return { sharedTerms, score, holds: sharedTerms.length > 0 && score >= LEXICAL_THRESHOLD };
}
