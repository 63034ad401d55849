/** Small bounded string searches shared by the Markdown scanners; bounded so one line never scans the whole note. */

/** The first position of the UTF-16 `code` in `[from, to)`, or -1. */
export function indexOfCode(text: string, code: number, from: number, to: number): number {
  for (let i = from; i < to; i += 1) if (text.charCodeAt(i) === code) return i;
  return -1;
}

/** How many `code` characters repeat from `at`, up to `to`. */
export function runLength(text: string, at: number, to: number, code: number): number {
  let end = at;
  while (end < to && text.charCodeAt(end) === code) end += 1;
  return end - at;
}

/** The start of the next run of exactly `run` backticks in `[from, to)`, or -1: the end of a code span. */
export function closingBackticks(text: string, from: number, to: number, run: number): number {
  let at = from;
  for (;;) {
    const found = indexOfCode(text, 96, at, to);
    if (found === -1) return -1;
    const length = runLength(text, found, to, 96);
    if (length === run) return found;
    at = found + length;
  }
}

/** Spaces and tabs: the whitespace inside a Markdown line. */
export const isSpace = (code: number): boolean => code === 32 || code === 9;
