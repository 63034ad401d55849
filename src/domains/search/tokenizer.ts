// Words are runs of letters and digits in any script. Anything else separates words, so "offline-first" is two
// words and "v2.1" is "v2" and "1": the same rule for notes and queries is what makes them meet.
const WORD = /[\p{L}\p{N}]+/gu;
const NON_ASCII = /[\u0080-\uffff]/;
const COMBINING_MARKS = /\p{M}+/gu;
/** Words longer than this are cut: nobody searches for them, and they would bloat the index. */
export const MAX_WORD_CHARS = 64;

/** The form a word is indexed and searched under: lower case, accents removed ("Café" and "cafe" meet). */
export function foldWord(word: string): string {
  const lower = word.toLowerCase();
  const folded = NON_ASCII.test(lower) ? lower.normalize('NFKD').replace(COMBINING_MARKS, '') : lower;
  return folded.length > MAX_WORD_CHARS ? folded.slice(0, MAX_WORD_CHARS) : folded;
}

// For ASCII text (most notes) the same rule is a much cheaper pattern over the text lowered once.
const ASCII_WORD = /[a-z0-9]+/g;

/** Calls `visit` for every word of `text` in order, with its folded form and its offsets in `text`. */
export function forEachWord(text: string, visit: (word: string, start: number, end: number) => void): void {
  if (!NON_ASCII.test(text)) {
    const lower = text.toLowerCase();
    ASCII_WORD.lastIndex = 0;
    for (let match = ASCII_WORD.exec(lower); match !== null; match = ASCII_WORD.exec(lower)) {
      const word = match[0].length > MAX_WORD_CHARS ? match[0].slice(0, MAX_WORD_CHARS) : match[0];
      visit(word, match.index, match.index + match[0].length);
    }
    return;
  }
  WORD.lastIndex = 0;
  for (let match = WORD.exec(text); match !== null; match = WORD.exec(text)) {
    visit(foldWord(match[0]), match.index, match.index + match[0].length);
  }
}

/** The folded words of `text`, in order. */
export function words(text: string): string[] {
  const out: string[] = [];
  forEachWord(text, (word) => out.push(word));
  return out;
}
