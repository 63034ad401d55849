import type { MarkdownLink } from './markdown-model.ts';
import { closingBackticks, isSpace, runLength } from './scan-text.ts';

/*
 * CommonMark inline links on one line: `[text](destination "title")`, the destination either `<...>` (spaces
 * allowed) or a run without spaces and with balanced parentheses. Reference links (`[text][ref]`) are not read.
 */

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]+:/;
const ESCAPED = /\\([!-/:-@[-`{-~])/g;

/** Whether a link destination points outside the vault: a URL scheme of two or more letters, or `//host`. */
export function isExternalHref(href: string): boolean {
  return SCHEME.test(href) || href.startsWith('//');
}

/** Percent-decodes a destination part; a malformed escape leaves the text as written. */
export function decodeHrefPart(part: string): string {
  const unescaped = part.includes('\\') ? part.replace(ESCAPED, '$1') : part;
  if (!unescaped.includes('%')) return unescaped;
  try {
    return decodeURIComponent(unescaped);
  } catch {
    return unescaped;
  }
}

/** The end of the link text starting at the `[` at `open`: the matching `]`, or -1. Code spans are skipped. */
function linkTextEnd(c: string, open: number, to: number): number {
  let depth = 0;
  for (let k = open; k < to; k += 1) {
    const ch = c.charCodeAt(k);
    if (ch === 92) k += 1;
    else if (ch === 91) depth += 1;
    else if (ch === 93 && --depth === 0) return k;
    else if (ch === 96) {
      const run = runLength(c, k, to, 96);
      const close = closingBackticks(c, k + run, to, run);
      k = (close === -1 ? k : close) + run - 1;
    }
  }
  return -1;
}

/**
 * Reads a Markdown link (or, with `embed`, an image) whose `!` or `[` is at `at`, within `[at, to)`. When the
 * text there is not a complete inline link, gives instead how far it read, so callers can bound their work.
 */
export function parseMarkdownLinkAt(c: string, at: number, to: number, embed: boolean, line: number): MarkdownLink | number {
  const open = embed ? at + 1 : at;
  const textEnd = linkTextEnd(c, open, to);
  if (textEnd === -1) return to;
  if (c.charCodeAt(textEnd + 1) !== 40 || textEnd + 1 >= to) return textEnd + 1;
  let p = textEnd + 2;
  while (p < to && isSpace(c.charCodeAt(p))) p += 1;
  let hrefStart = p;
  let hrefEnd: number;
  const angle = c.charCodeAt(p) === 60;
  if (angle) {
    hrefStart = p + 1;
    let q = hrefStart;
    for (; q < to; q += 1) {
      const ch = c.charCodeAt(q);
      if (ch === 92) q += 1;
      else if (ch === 62) break;
      else if (ch === 60) return q;
    }
    if (q >= to) return to;
    hrefEnd = q;
    p = q + 1;
  } else {
    let parens = 0;
    for (; p < to; p += 1) {
      const ch = c.charCodeAt(p);
      if (ch <= 32) break;
      if (ch === 92) p += 1;
      else if (ch === 40) parens += 1;
      else if (ch === 41 && parens-- === 0) break;
    }
    hrefEnd = Math.min(p, to);
  }
  const afterHref = p;
  while (p < to && isSpace(c.charCodeAt(p))) p += 1;
  let title: string | undefined;
  const quote = c.charCodeAt(p);
  // A title needs space before it; `[a](b"c")` has the destination `b"c"`.
  if (p > afterHref && (quote === 34 || quote === 39 || quote === 40)) {
    const closer = quote === 40 ? 41 : quote;
    let q = p + 1;
    for (; q < to && c.charCodeAt(q) !== closer; q += 1) if (c.charCodeAt(q) === 92) q += 1;
    if (q >= to) return to;
    title = c.slice(p + 1, q);
    p = q + 1;
    while (p < to && isSpace(c.charCodeAt(p))) p += 1;
  }
  if (p >= to || c.charCodeAt(p) !== 41) return p;
  const end = p + 1;
  const href = c.slice(hrefStart, hrefEnd);
  const external = isExternalHref(href);
  const link: MarkdownLink = {
    kind: 'markdown',
    line,
    start: at,
    end,
    embed,
    text: c.slice(open + 1, textEnd),
    href,
    ...(title !== undefined ? { title } : {}),
    external,
    raw: c.slice(at, end),
    hrefStart,
    hrefEnd,
    angle,
  };
  if (!external) {
    const hash = href.indexOf('#');
    link.path = decodeHrefPart(hash === -1 ? href : href.slice(0, hash));
    const fragment = hash === -1 ? '' : decodeHrefPart(href.slice(hash + 1));
    if (fragment.startsWith('^')) link.blockId = fragment.slice(1);
    else if (fragment) link.heading = fragment;
  }
  return link;
}
