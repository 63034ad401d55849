import { MAX_ITEMS_PER_KIND } from './markdown-model.ts';
import type { MarkdownModel } from './markdown-model.ts';
import { parseMarkdownLinkAt } from './markdown-link-syntax.ts';
import { closingBackticks, indexOfCode, isSpace, runLength } from './scan-text.ts';
import { blocksTagBefore, tagLengthAt } from './tags.ts';

/** The closing marker of a comment or math span that continues past the end of a line. */
type SpanCloser = '%%' | '-->' | '$$';

// Characters that can start something the inline scan cares about; everything else is copied as text.
const SPECIAL = new Uint8Array(128);
for (const ch of '!#$%:<[\\^`') SPECIAL[ch.charCodeAt(0)] = 1;

const HTML_TAG = /<\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?\/?>/y;
const IMAGE_SIZE = /^\d+(?:x\d+)?$/;

const isBlockIdChar = (code: number) => (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 45;

/**
 * Reads the inline syntax of a note line by line: WikiLinks, Markdown links, tags and block ids, while skipping
 * code spans, comments (`%%`, `<!-- -->`), math (`$$`), HTML tags and bare URLs. Records items into the model and
 * builds the search text. Comments and math may span lines: the scanner remembers the open span, and where it
 * closes (found once, so a long comment costs one search, not one per line).
 */
export class InlineScanner {
  /** The search text so far. */
  text = '';
  /** The line being scanned (0-based). */
  line = 0;
  private openCloser: SpanCloser | undefined;
  private openCloseAt = -1;
  /**
   * Characters the current line may still spend on searches for closing brackets and backticks. A normal line
   * spends about its own length; one built of unclosed `[[`, `[` or backtick runs would spend its length for each
   * of them (quadratic), so once the budget is gone the rest of the line's brackets and backticks are plain text.
   */
  private budget = 0;
  /** The search text of the last link or math span recognised. */
  private lastText = '';

  constructor(
    private readonly content: string,
    private readonly model: MarkdownModel,
  ) {}

  /** Whether a comment or math span from an earlier line is still open. */
  get inOpenSpan(): boolean {
    return this.openCloser !== undefined;
  }

  /**
   * Continues an open span on the line `[from, to)`: returns where ordinary text resumes after its closer, or -1
   * when the span covers the whole line.
   */
  resume(from: number, to: number): number {
    const closer = this.openCloser!;
    const close = this.openCloseAt;
    if (close !== -1 && close < from) {
      this.openCloser = undefined; // closed in a part of an earlier line that was not scanned
      return from;
    }
    if (close === -1 || close + closer.length > to) {
      if (closer === '$$') this.text += this.content.slice(from, to);
      return -1;
    }
    if (closer === '$$') this.text += this.content.slice(from, close);
    this.openCloser = undefined;
    return close + closer.length;
  }

  /** Adds an item unless its kind is full, which marks the model truncated. */
  add<T>(list: T[], item: T): void {
    if (list.length < MAX_ITEMS_PER_KIND) list.push(item);
    else this.model.truncated = true;
  }

  /** Scans `[from, to)`, part of one line. */
  scan(from: number, to: number): void {
    const c = this.content;
    let i = from;
    let plain = from; // start of text not yet copied into the search text
    this.budget = 16 * (to - from) + 4096;
    while (i < to) {
      const ch = c.charCodeAt(i);
      if (ch >= 128 || SPECIAL[ch] === 0) {
        i += 1;
        continue;
      }
      let next = -1; // where scanning continues after a recognised construct
      let keep: string | undefined; // what the construct contributes to the search text
      switch (ch) {
        case 92: // backslash escape: the next character is literal
          i += 2;
          continue;
        case 96: {
          const run = runLength(c, i, to, 96);
          const close = this.budget > 0 ? closingBackticks(c, i + run, to, run) : -1;
          this.budget -= (close === -1 ? to : close) - i;
          if (close === -1) {
            i += run;
            continue;
          }
          keep = c.slice(i + run, close);
          next = close + run;
          break;
        }
        case 33: // !
          if (c.charCodeAt(i + 1) !== 91 || this.budget <= 0) break;
          next = c.charCodeAt(i + 2) === 91 ? this.wikiLink(i, to, true) : this.markdownLink(i, to, true);
          if (next !== -1) keep = this.lastText;
          break;
        case 91: // [
          if (this.budget <= 0) break;
          next = c.charCodeAt(i + 1) === 91 ? this.wikiLink(i, to, false) : this.markdownLink(i, to, false);
          if (next !== -1) keep = this.lastText;
          break;
        case 35: // #
          next = this.tag(i, to);
          if (next !== -1) keep = c.slice(i, next);
          break;
        case 37: // %%
          if (c.charCodeAt(i + 1) === 37) next = this.span(i, to, '%%');
          break;
        case 36: // $$
          if (c.charCodeAt(i + 1) === 36) {
            next = this.span(i, to, '$$');
            keep = this.lastText;
          }
          break;
        case 60: // <!-- or an HTML tag
          if (c.startsWith('<!--', i)) {
            next = this.span(i, to, '-->');
          } else {
            HTML_TAG.lastIndex = i;
            if (HTML_TAG.test(c) && HTML_TAG.lastIndex <= to) next = HTML_TAG.lastIndex;
          }
          break;
        case 58: // a bare URL: nothing up to the next space is a tag or a link
          if (c.charCodeAt(i + 1) === 47 && c.charCodeAt(i + 2) === 47) {
            while (i < to && !isSpace(c.charCodeAt(i))) i += 1;
            continue;
          }
          break;
        case 94: // ^block-id at the end of the line
          next = this.blockId(i, from, to);
          if (next !== -1) keep = '';
          break;
      }
      if (next === -1) {
        i += 1;
        continue;
      }
      this.text += c.slice(plain, i);
      if (keep !== undefined) this.text += keep;
      i = plain = next;
    }
    this.text += c.slice(plain, to);
  }

  private wikiLink(at: number, to: number, embed: boolean): number {
    const c = this.content;
    const open = embed ? at + 1 : at;
    const inner = open + 2;
    let close = indexOfCode(c, 93, inner, to - 1);
    while (close !== -1 && c.charCodeAt(close + 1) !== 93) close = indexOfCode(c, 93, close + 1, to - 1);
    this.budget -= (close === -1 ? to : close) - at;
    if (close === -1) return -1;
    // `[[a [[b]]`: the link is the innermost one, as Obsidian reads it.
    const innermost = c.lastIndexOf('[[', close - 1);
    this.budget -= close - innermost;
    if (innermost > open) return -1;
    const pipe = indexOfCode(c, 124, inner, close);
    // In a table the alias separator is written `\|`; it separates all the same.
    const targetPartEnd = pipe === -1 ? close : c.charCodeAt(pipe - 1) === 92 ? pipe - 1 : pipe;
    const hash = indexOfCode(c, 35, inner, targetPartEnd);
    let targetStart = inner;
    let targetEnd = hash === -1 ? targetPartEnd : hash;
    while (targetStart < targetEnd && isSpace(c.charCodeAt(targetStart))) targetStart += 1;
    while (targetEnd > targetStart && isSpace(c.charCodeAt(targetEnd - 1))) targetEnd -= 1;
    if (targetStart === targetEnd && hash === -1) return -1;
    if (targetStart === targetEnd) targetStart = targetEnd = inner;
    const target = c.slice(targetStart, targetEnd);
    const subpath = hash === -1 ? '' : c.slice(hash + 1, targetPartEnd).trim();
    const alias = pipe === -1 ? '' : c.slice(pipe + 1, close).trim();
    this.add(this.model.wikiLinks, {
      kind: 'wikilink',
      line: this.line,
      start: at,
      end: close + 2,
      embed,
      target,
      ...(subpath.startsWith('^') ? { blockId: subpath.slice(1) } : subpath ? { heading: subpath } : {}),
      ...(alias ? { alias } : {}),
      raw: c.slice(at, close + 2),
      targetStart,
      targetEnd,
    });
    // Search finds a link by what the reader sees: the alias, else the target and heading. An embed's `|300` is a size.
    const heading = subpath.startsWith('^') ? '' : subpath;
    const shownAlias = embed && IMAGE_SIZE.test(alias) ? '' : alias;
    this.lastText = shownAlias || (target && heading ? `${target} ${heading}` : target || heading);
    return close + 2;
  }

  private markdownLink(at: number, to: number, embed: boolean): number {
    const link = parseMarkdownLinkAt(this.content, at, to, embed, this.line);
    this.budget -= (typeof link === 'number' ? link : link.end) - at;
    if (typeof link === 'number') return -1;
    this.add(this.model.links, link);
    this.lastText = link.text;
    return link.end;
  }

  private tag(at: number, to: number): number {
    const c = this.content;
    if (at > 0) {
      let before = c.charCodeAt(at - 1);
      if (before >= 0xdc00 && before <= 0xdfff && at > 1) before = c.codePointAt(at - 2)!;
      if (blocksTagBefore(before)) return -1;
    }
    const length = tagLengthAt(c, at + 1, to);
    if (length === 0) return -1;
    const name = c.slice(at + 1, at + 1 + length);
    this.add(this.model.tags, { line: this.line, start: at, end: at + 1 + length, name, key: name.toLowerCase() });
    return at + 1 + length;
  }

  /** A comment or math span opening at `at`: where the line continues (`to` when it stays open), -1 for none. */
  private span(at: number, to: number, closer: SpanCloser): number {
    const c = this.content;
    const opener = closer === '-->' ? 4 : 2;
    const close = c.indexOf(closer, at + opener);
    // An unclosed comment hides the rest of the note (as in Obsidian); a lone `$$` is just two dollar signs.
    if (close === -1 && closer === '$$') return -1;
    if (close !== -1 && close + closer.length <= to) {
      this.lastText = closer === '$$' ? c.slice(at + opener, close) : '';
      return close + closer.length;
    }
    this.openCloser = closer;
    this.openCloseAt = close;
    this.lastText = closer === '$$' ? c.slice(at + opener, to) : '';
    return to;
  }

  private blockId(at: number, from: number, to: number): number {
    const c = this.content;
    if (at !== from && !isSpace(c.charCodeAt(at - 1))) return -1;
    let end = at + 1;
    while (end < to && isBlockIdChar(c.charCodeAt(end))) end += 1;
    if (end === at + 1) return -1;
    for (let rest = end; rest < to; rest += 1) if (!isSpace(c.charCodeAt(rest))) return -1;
    this.add(this.model.blockIds, { line: this.line, start: at, end, id: c.slice(at + 1, end) });
    return to;
  }
}
