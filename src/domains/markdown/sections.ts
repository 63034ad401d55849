import { atxHeadingAt, fenceOpenAt, isFenceClose, isThematicBreak, listContentAt, quotePrefix, type QuotePrefix } from './block-syntax.ts';
import { isMap, isNode, isScalar, parseDocument } from 'yaml';
import { locateFrontmatter } from './frontmatter.ts';
import { isSpace } from './scan-text.ts';

/*
 * Where the parts of a note that a section-level write can target lie in its text: a heading's section, a block
 * marked `^id`, the frontmatter. Pure functions over offsets, so that a caller replaces exactly those characters
 * and every other byte of the note (line endings, trailing newline, frontmatter formatting) stays as it was.
 * Lines inside fenced code blocks and inside the frontmatter are never headings nor blocks.
 */

/** One line of a note: `[start, end)` without its line break; `next` is where the following line starts. */
export interface TextLine {
  start: number;
  end: number;
  next: number;
  /** True inside a fenced code block (its fence lines included) or inside the frontmatter. */
  code: boolean;
}

/** An ATX heading of the note's body. */
export interface SectionHeading {
  /** Its 0-based line. */
  line: number;
  level: number;
  /** Its text, trimmed, without closing `#`s. */
  text: string;
  /** Where its line starts, and where its body starts (after its line break; the note's length when it has none). */
  start: number;
  bodyStart: number;
  /** The end of its section: where the next heading of the same or a higher level starts, or the note's end. */
  sectionEnd: number;
  /** Whether the heading's line has a line break. */
  hasBreak: boolean;
  /** The texts of the headings that enclose it, outermost first. */
  parents: string[];
}

/** The line break the note uses: that of its first line, `\n` when it has none. */
export function lineBreakOf(content: string): '\n' | '\r\n' {
  const first = content.indexOf('\n');
  return first > 0 && content.charCodeAt(first - 1) === 13 ? '\r\n' : '\n';
}

/** Splits the note into lines and marks the code (fenced) and frontmatter ones. */
export function noteLines(content: string): TextLine[] {
  const lines: TextLine[] = [];
  const frontmatter = locateFrontmatter(content);
  const bodyStart = frontmatter?.bodyStart ?? 0;
  let fence: { code: number; length: number } | undefined;
  let pos = 0;
  while (pos < content.length) {
    const lineBreak = content.indexOf('\n', pos);
    const next = lineBreak === -1 ? content.length : lineBreak + 1;
    const end = lineBreak === -1 ? content.length : content.charCodeAt(lineBreak - 1) === 13 && lineBreak > pos ? lineBreak - 1 : lineBreak;
    let code = pos < bodyStart;
    if (!code) {
      let q = pos;
      while (q < end && isSpace(content.charCodeAt(q))) q += 1;
      if (fence) {
        code = true;
        if (isFenceClose(content, pos, end, fence.code, fence.length)) fence = undefined;
      } else {
        const length = fenceOpenAt(content, q, end);
        if (length > 0) {
          fence = { code: content.charCodeAt(q), length };
          code = true;
        }
      }
    }
    lines.push({ start: pos, end, next, code });
    pos = next;
  }
  return lines;
}

/** The first non-space position of a line from `start`, if at most 3 spaces indent it; -1 otherwise. */
function indentedStart(content: string, start: number, end: number): number {
  // A byte-order mark before the note's first line is not part of it.
  const from = start === 0 && content.charCodeAt(0) === 0xfeff ? 1 : start;
  let q = from;
  while (q < end && content.charCodeAt(q) === 32 && q - from < 4) q += 1;
  return q - from > 3 ? -1 : q;
}

/** Every ATX heading of the note's body (not in code, not in the frontmatter), with its section's extent. */
export function listHeadings(content: string, lines: readonly TextLine[] = noteLines(content)): SectionHeading[] {
  const found: SectionHeading[] = [];
  lines.forEach((line, index) => {
    if (line.code) return;
    const q = indentedStart(content, line.start, line.end);
    if (q === -1) return;
    const atx = atxHeadingAt(content, q, line.end);
    if (!atx) return;
    found.push({
      line: index,
      level: atx.level,
      text: content.slice(atx.textStart, atx.textEnd),
      start: line.start,
      bodyStart: line.next,
      sectionEnd: content.length,
      hasBreak: line.next > line.end,
      parents: [],
    });
  });
  const open: SectionHeading[] = [];
  for (const heading of found) {
    while (open.length > 0 && open[open.length - 1]!.level >= heading.level) open.pop()!.sectionEnd = heading.start;
    heading.parents = open.map((h) => h.text);
    open.push(heading);
  }
  return found;
}

/** Splits `Parent > Child` into its trimmed parts. */
export function headingPath(target: string): string[] {
  return target.split('>').map((part) => part.trim());
}

/**
 * The headings a path names: those whose text is its last part, with the other parts among their enclosing headings,
 * in order (not necessarily directly: `A > C` names `C` under `B` under `A`). Texts compare exactly.
 */
export function findHeadings(headings: readonly SectionHeading[], path: readonly string[]): SectionHeading[] {
  const last = path[path.length - 1];
  const ancestors = path.slice(0, -1);
  return headings.filter((h) => {
    if (h.text !== last) return false;
    let at = 0;
    for (const parent of h.parents) if (at < ancestors.length && parent === ancestors[at]) at += 1;
    return at === ancestors.length;
  });
}

/**
 * Where appending to a heading's section goes: after its last non-blank line (so blank lines before the next heading
 * stay between them), or at its body's start when the body is blank. `needsBreak`: that line has no line break (the
 * note's last line), so one must come first.
 */
export function sectionAppendPoint(content: string, lines: readonly TextLine[], heading: SectionHeading): { at: number; needsBreak: boolean } {
  let last = heading.line;
  for (let i = heading.line + 1; i < lines.length && lines[i]!.start < heading.sectionEnd; i += 1) {
    const line = lines[i]!;
    if (content.slice(line.start, line.end).trim() !== '') last = i;
  }
  const line = lines[last]!;
  return { at: line.next, needsBreak: line.next === line.end };
}

/** A block marked with `^id` at the end of its last line. */
export interface MarkedBlock {
  id: string;
  /** The 0-based line of the marker. */
  line: number;
  /** The block's text: from after a list item's marker (or the paragraph's indentation and quote markers) ... */
  start: number;
  /** ... up to the whitespace before `^id`, which stays. */
  end: number;
}

const BLOCK_ID = /[ \t]+\^([A-Za-z0-9-]+)[ \t]*$/;

function isBlank(content: string, line: TextLine): boolean {
  for (let i = line.start; i < line.end; i += 1) if (!isSpace(content.charCodeAt(i))) return false;
  return true;
}

/** Where a line's content starts after indentation and quote markers, and after a list marker when it has one. */
function lineContent(content: string, line: TextLine, into: QuotePrefix): { at: number; listItem: boolean; breaksParagraph: boolean } {
  quotePrefix(content, line.start, line.end, Infinity, into);
  let q = into.contentStart;
  while (q < line.end && isSpace(content.charCodeAt(q))) q += 1;
  const list = listContentAt(content, q, line.end);
  const breaksParagraph = atxHeadingAt(content, q, line.end) !== undefined || isThematicBreak(content, q, line.end);
  return list === -1 ? { at: q, listItem: false, breaksParagraph } : { at: list, listItem: true, breaksParagraph };
}

/**
 * Every block that ends in `^id` (a paragraph or a list item; a marker alone on its line is not read). A list item's
 * block is its text after the marker; a paragraph's runs back to the blank line, heading, list item or fence before it.
 */
export function listMarkedBlocks(content: string, lines: readonly TextLine[] = noteLines(content)): MarkedBlock[] {
  const blocks: MarkedBlock[] = [];
  const into: QuotePrefix = { contentStart: 0, depth: 0 };
  lines.forEach((line, index) => {
    if (line.code) return;
    const marker = BLOCK_ID.exec(content.slice(line.start, line.end));
    if (!marker) return;
    const own = lineContent(content, line, into);
    const markerStart = line.start + marker.index;
    if (own.breaksParagraph || markerStart <= own.at) return;
    let start = own.at;
    if (!own.listItem) {
      for (let i = index - 1; i >= 0; i -= 1) {
        const before = lines[i]!;
        if (before.code || isBlank(content, before)) break;
        const read = lineContent(content, before, into);
        if (read.breaksParagraph) break;
        start = read.at;
        if (read.listItem) break;
      }
    }
    blocks.push({ id: marker[1]!, line: index, start, end: markerStart });
  });
  return blocks;
}

/** Where a frontmatter key is, or where it would go. */
export type FrontmatterKeySpot =
  /** The key's lines: from its key to the end of the line where its value ends (a comment there goes with it). */
  | { kind: 'found'; start: number; end: number; keyText: string }
  /** The block holds no such key: insert `text` at `at`, with a line break before it (`breakBefore`) or after it. */
  | { kind: 'missing'; at: number; breakBefore: boolean }
  /** The note has no frontmatter block: one would start at `at` (after a byte-order mark). */
  | { kind: 'none'; at: number }
  /** The block is not a YAML mapping with block layout, or not valid YAML: `reason` says which. */
  | { kind: 'unreadable'; reason: string };

/** Finds a top-level key of the note's frontmatter (keys compare as their string values). */
export function locateFrontmatterKey(content: string, key: string): FrontmatterKeySpot {
  const block = locateFrontmatter(content);
  if (!block) return { kind: 'none', at: content.charCodeAt(0) === 0xfeff ? 1 : 0 };
  const yaml = content.slice(block.yamlStart, block.yamlEnd);
  const doc = parseDocument(yaml);
  if (doc.errors.length > 0) return { kind: 'unreadable', reason: `The frontmatter is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}` };
  const contents = doc.contents;
  const empty = block.yamlEnd === block.yamlStart;
  if (contents === null || contents === undefined) return empty ? { kind: 'missing', at: block.yamlStart, breakBefore: false } : { kind: 'missing', at: block.yamlEnd, breakBefore: true };
  if (!isMap(contents) || contents.flow) return { kind: 'unreadable', reason: 'The frontmatter is not a YAML mapping in block layout.' };
  for (const pair of contents.items) {
    if (!isScalar(pair.key) || String(pair.key.value) !== key || !pair.key.range) continue;
    const keyStart = pair.key.range[0];
    const valueNode = isNode(pair.value) && pair.value.range ? pair.value : pair.key;
    let valueEnd = valueNode.range[1];
    while (valueEnd > keyStart && /[\s]/.test(yaml[valueEnd - 1]!)) valueEnd -= 1;
    const lineBreak = yaml.indexOf('\n', valueEnd);
    let lineEnd = lineBreak === -1 ? yaml.length : lineBreak;
    if (lineEnd > valueEnd && yaml.charCodeAt(lineEnd - 1) === 13) lineEnd -= 1;
    return {
      kind: 'found',
      start: block.yamlStart + keyStart,
      end: block.yamlStart + lineEnd,
      keyText: yaml.slice(keyStart, pair.key.range[1]),
    };
  }
  return { kind: 'missing', at: block.yamlEnd, breakBefore: true };
}
