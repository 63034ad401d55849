import { isSpace, runLength } from './scan-text.ts';

/*
 * What a single line is, read at position `q` (its first character after blockquote markers and indentation) up
 * to `end` (the end of the line, without its line break). Pure functions; the state across lines (fences, lists,
 * paragraphs, callouts) lives in parse.ts.
 */

/** A blockquote prefix: where the content starts after the `>` markers, and how many there were. */
export interface QuotePrefix {
  contentStart: number;
  depth: number;
}

/** Strips up to `levels` blockquote markers (`>` with up to 3 spaces before it and one space or tab after it). */
export function quotePrefix(c: string, start: number, end: number, levels: number, into: QuotePrefix): void {
  let p = start;
  let depth = 0;
  while (depth < levels) {
    let q = p;
    while (q < end && q - p < 3 && c.charCodeAt(q) === 32) q += 1;
    if (q >= end || c.charCodeAt(q) !== 62) break;
    depth += 1;
    p = q + 1;
    if (p < end && isSpace(c.charCodeAt(p))) p += 1;
  }
  into.contentStart = p;
  into.depth = depth;
}

/** The length of a fence opening at `q` (3 or more backticks or tildes), or 0. */
export function fenceOpenAt(c: string, q: number, end: number): number {
  const code = c.charCodeAt(q);
  if (code !== 96 && code !== 126) return 0;
  const length = runLength(c, q, end, code);
  if (length < 3) return 0;
  // A backtick fence's info string cannot hold a backtick: such a line is inline code.
  if (code === 96) for (let i = q + length; i < end; i += 1) if (c.charCodeAt(i) === 96) return 0;
  return length;
}

/** Whether the line from `p` closes a fence of `code` and `length`: the same character, as long or longer, alone. */
export function isFenceClose(c: string, p: number, end: number, code: number, length: number): boolean {
  let q = p;
  while (q < end && isSpace(c.charCodeAt(q))) q += 1;
  const run = runLength(c, q, end, code);
  if (run < length) return false;
  for (let rest = q + run; rest < end; rest += 1) if (!isSpace(c.charCodeAt(rest))) return false;
  return true;
}

/** An ATX heading line: its level and the offsets of its text (trimmed, closing `#`s removed). */
export interface AtxHeading {
  level: 1 | 2 | 3 | 4 | 5 | 6;
  textStart: number;
  textEnd: number;
}

/** Reads `#`..`######` followed by a space, a tab or the line end. */
export function atxHeadingAt(c: string, q: number, end: number): AtxHeading | undefined {
  const level = runLength(c, q, end, 35);
  if (level === 0 || level > 6 || (q + level < end && !isSpace(c.charCodeAt(q + level)))) return undefined;
  let textStart = q + level;
  while (textStart < end && isSpace(c.charCodeAt(textStart))) textStart += 1;
  let textEnd = trimEnd(c, textStart, end);
  let closing = textEnd;
  while (closing > textStart && c.charCodeAt(closing - 1) === 35) closing -= 1;
  if (closing === textStart || isSpace(c.charCodeAt(closing - 1))) textEnd = trimEnd(c, textStart, closing);
  return { level: level as AtxHeading['level'], textStart, textEnd };
}

/** The level a setext underline gives (`===` 1, `---` 2), or 0 when the line is not one. */
export function setextLevelAt(c: string, q: number, end: number): 0 | 1 | 2 {
  const code = c.charCodeAt(q);
  if (code !== 61 && code !== 45) return 0;
  let rest = q + runLength(c, q, end, code);
  while (rest < end && isSpace(c.charCodeAt(rest))) rest += 1;
  return rest !== end ? 0 : code === 61 ? 1 : 2;
}

/** `---`, `***` or `___`: three or more of one of them, spaces allowed between. */
export function isThematicBreak(c: string, q: number, end: number): boolean {
  const code = c.charCodeAt(q);
  if (code !== 45 && code !== 42 && code !== 95) return false;
  let count = 0;
  for (let i = q; i < end; i += 1) {
    const ch = c.charCodeAt(i);
    if (ch === code) count += 1;
    else if (!isSpace(ch)) return false;
  }
  return count >= 3;
}

/** A callout's first line: `[!type]`, an optional fold sign and a title. */
export interface CalloutLine {
  type: string;
  fold?: '+' | '-';
  titleStart: number;
  titleEnd: number;
}

/** Reads `[!type]`, `[!type]+ Title` or `[!type]- Title`; the type has no spaces and is lowercased. */
export function calloutAt(c: string, q: number, end: number): CalloutLine | undefined {
  if (c.charCodeAt(q) !== 91 || c.charCodeAt(q + 1) !== 33) return undefined;
  let close = q + 2;
  while (close < end && c.charCodeAt(close) !== 93 && !isSpace(c.charCodeAt(close))) close += 1;
  if (close === q + 2 || close >= end || c.charCodeAt(close) !== 93) return undefined;
  let p = close + 1;
  const foldCode = c.charCodeAt(p);
  const fold = p < end && foldCode === 43 ? '+' : p < end && foldCode === 45 ? '-' : undefined;
  if (fold) p += 1;
  while (p < end && isSpace(c.charCodeAt(p))) p += 1;
  return { type: c.slice(q + 2, close).toLowerCase(), ...(fold ? { fold } : {}), titleStart: p, titleEnd: trimEnd(c, p, end) };
}

/** Where a list item's content starts after its marker (`-`, `*`, `+`, `1.` or `1)` and spaces), or -1. */
export function listContentAt(c: string, q: number, end: number): number {
  const code = c.charCodeAt(q);
  let marker: number;
  if (code === 45 || code === 42 || code === 43) {
    marker = q + 1;
  } else {
    let digits = q;
    while (digits < end && c.charCodeAt(digits) >= 48 && c.charCodeAt(digits) <= 57) digits += 1;
    const after = c.charCodeAt(digits);
    if (digits === q || digits - q > 9 || digits >= end || (after !== 46 && after !== 41)) return -1;
    marker = digits + 1;
  }
  if (marker < end && !isSpace(c.charCodeAt(marker))) return -1;
  while (marker < end && isSpace(c.charCodeAt(marker))) marker += 1;
  return marker;
}

/** A task checkbox at the start of a list item's content: `[c]` then a space or the line end. */
export function taskStatusAt(c: string, text: number, end: number): string | undefined {
  if (text + 2 >= end || c.charCodeAt(text) !== 91 || c.charCodeAt(text + 2) !== 93) return undefined;
  if (text + 3 < end && !isSpace(c.charCodeAt(text + 3))) return undefined;
  return c[text + 1];
}

/** The end of `[from, to)` without trailing spaces and tabs. */
export function trimEnd(c: string, from: number, to: number): number {
  let end = to;
  while (end > from && isSpace(c.charCodeAt(end - 1))) end -= 1;
  return end;
}
