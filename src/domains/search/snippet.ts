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

/**
 * The snippet of `text` for a query; empty when the body does not match (the title or path did). `text` may be a
 * window of the body; `more` says whether the body goes on before or after it (for the ellipses).
 */
export function snippetOf(
  text: string,
  words: ReadonlySet<string>,
  phrases: readonly string[][],
  more: { before: boolean; after: boolean } = { before: false, after: false },
): Snippet {
  const located: Located[] = [];
  forEachWord(text, (word, start, end) => located.push({ word, start, end }));
  const at = firstMatch(located, words, phrases);
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
