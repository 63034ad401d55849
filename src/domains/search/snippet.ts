import { containsPhrase } from './query.ts';
import { forEachWord } from './tokenizer.ts';

/** Length of a snippet, in characters, before ellipses. */
export const SNIPPET_CHARS = 200;
// The match sits a little after the start of the window, so the reader sees what leads up to it.
const LEAD_CHARS = 60;

/** A passage of a note's body around the first match, with the offsets of matched words in it. */
export interface Snippet {
  snippet: string;
  highlights: Array<[number, number]>;
}

interface Located {
  word: string;
  start: number;
  end: number;
}

/** Where the passage starts: the first phrase occurrence if the query has phrases, else the first query word. */
function firstMatch(located: readonly Located[], words: ReadonlySet<string>, phrases: readonly string[][]): number | undefined {
  for (const phrase of phrases) {
    const tokens = located.map((l) => l.word);
    for (let i = tokens.indexOf(phrase[0]!); i !== -1; i = tokens.indexOf(phrase[0]!, i + 1)) {
      if (containsPhrase(tokens.slice(i, i + phrase.length), phrase)) return located[i]!.start;
    }
  }
  return located.find((l) => words.has(l.word))?.start;
}

/** Where the first match of the query's words or phrases starts in `text`, by reading its words. */
function locateFirstMatch(text: string, words: ReadonlySet<string>, phrases: readonly string[][]): number | undefined {
  const located: Located[] = [];
  forEachWord(text, (word, start, end) => located.push({ word, start, end }));
  return firstMatch(located, words, phrases);
}

// The longest word the check below reads at a known offset; a longer one is looked for the slow way.
const KNOWN_MATCH_CHARS = 64;

/**
 * Whether a query word starts at `at`: a known offset comes from the index, and the text may be of a newer version
 * of the note (read after the index was brought up to date), so it is checked before it is trusted.
 */
function startsWithQueryWord(text: string, at: number, words: ReadonlySet<string>): boolean {
  if (at < 0 || at >= text.length) return false;
  let found = false;
  let first = true;
  forEachWord(text.slice(at, at + KNOWN_MATCH_CHARS), (word, start) => {
    if (first) found = start === 0 && words.has(word);
    first = false;
  });
  return found;
}

/**
 * The snippet of `text` for a query; empty when the body does not match (the title or path did). `text` may be a
 * window of the body; `more` says whether the body goes on before or after it (for the ellipses). `matchAt`, when
 * the caller knows it (the index keeps each word's first offset in the body), is where the first match starts in
 * `text`: the text is then not read word by word to find it, only the passage to mark its matches.
 */
export function snippetOf(
  text: string,
  words: ReadonlySet<string>,
  phrases: readonly string[][],
  more: { before: boolean; after: boolean } = { before: false, after: false },
  matchAt?: number,
): Snippet {
  const at = matchAt !== undefined && startsWithQueryWord(text, matchAt, words) ? matchAt : locateFirstMatch(text, words, phrases);
  if (at === undefined) return { snippet: '', highlights: [] };
  let start = Math.max(0, at - LEAD_CHARS);
  let end = Math.min(text.length, start + SNIPPET_CHARS);
  // Cut at spaces, not inside words.
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < at) start = space + 1;
  }
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > at) end = space;
  }
  const prefix = start > 0 || more.before ? '… ' : '';
  const suffix = end < text.length || more.after ? ' …' : '';
  const body = text.slice(start, end).replace(/\s+/g, ' ').trim();
  const snippet = `${prefix}${body}${suffix}`;
  const highlights: Array<[number, number]> = [];
  forEachWord(body, (word, s, e) => {
    if (words.has(word)) highlights.push([s + prefix.length, e + prefix.length]);
  });
  return { snippet, highlights };
}
