import { locateFrontmatter } from './frontmatter.ts';
import { InlineScanner } from './inline-scan.ts';
import type { Callout, MarkdownModel } from './markdown-model.ts';
import { atxHeadingAt, calloutAt, fenceOpenAt, isFenceClose, isThematicBreak, listContentAt, quotePrefix, setextLevelAt, taskStatusAt, trimEnd } from './block-syntax.ts';
import type { QuotePrefix } from './block-syntax.ts';
import { isSpace } from './scan-text.ts';
import { frontmatterTags } from './tags.ts';

/** Options of {@link parseMarkdown}. */
export interface ParseMarkdownOptions {
  /**
   * The note's frontmatter data when the caller has it (from `parseFrontmatter`): its `tags` / `tag` fill
   * `frontmatterTags`. The parse itself reads no YAML, so a caller never pays for parsing it twice.
   */
  frontmatterData?: Record<string, unknown> | null;
}

/**
 * Reads the structure of a note in one pass over its lines: frontmatter block, headings, block ids, WikiLinks and
 * embeds, Markdown links and images, tags, tasks, callouts and the search text. Nothing inside code (fenced,
 * indented, inline), comments (`%%`, `<!-- -->`) or math (`$$`) counts as structure. Pure and never throws.
 */
export function parseMarkdown(content: string, options: ParseMarkdownOptions = {}): MarkdownModel {
  const model: MarkdownModel = {
    headings: [],
    blockIds: [],
    wikiLinks: [],
    links: [],
    tags: [],
    frontmatterTags: frontmatterTags(options.frontmatterData),
    tasks: [],
    callouts: [],
    searchText: '',
    truncated: false,
  };
  const frontmatter = locateFrontmatter(content);
  if (frontmatter) model.frontmatter = frontmatter;
  const bodyStart = frontmatter ? frontmatter.bodyStart : content.charCodeAt(0) === 0xfeff ? 1 : 0;
  const scanner = new BlockScanner(content, model);
  scanner.run(bodyStart, frontmatter ? frontmatter.endLine + 1 : 0);
  model.searchText = scanner.inline.text.trim();
  return model;
}

const TASK_BLOCK_ID = /(?:^|[ \t]+)\^[A-Za-z0-9-]+$/;

/** An open fenced code block: its fence character and length, and the blockquote depth it opened at. */
interface Fence {
  code: number;
  length: number;
  depth: number;
}

/** The paragraph the previous line belonged to, which a setext underline turns into a heading. */
interface Paragraph {
  line: number;
  start: number;
  lastEnd: number;
  depth: number;
  inList: boolean;
}

/** The line-level pass: decides what each line is, and hands the inline parts to the InlineScanner. */
class BlockScanner {
  readonly inline: InlineScanner;
  private fence: Fence | undefined;
  private indentedCode = false;
  private paragraph: Paragraph | undefined;
  private inList = false;
  private listDepth = 0;
  private readonly listIndents: number[] = [];
  private readonly openCallouts: Callout[] = [];
  private previousDepth = 0;
  private readonly quote: QuotePrefix = { contentStart: 0, depth: 0 };

  constructor(
    private readonly c: string,
    private readonly model: MarkdownModel,
  ) {
    this.inline = new InlineScanner(c, model);
  }

  run(from: number, firstLine: number): void {
    const c = this.c;
    let blankRun = 0;
    for (let pos = from, line = firstLine; pos < c.length; line += 1) {
      let lineBreak = c.indexOf('\n', pos);
      if (lineBreak === -1) lineBreak = c.length;
      const end = lineBreak > pos && c.charCodeAt(lineBreak - 1) === 13 ? lineBreak - 1 : lineBreak;
      const before = this.inline.text.length;
      this.inline.line = line;
      this.readLine(pos, end, line);
      // One line of search text per line of text; runs of empty lines collapse to one.
      if (this.inline.text.length > before) {
        this.inline.text += '\n';
        blankRun = 0;
      } else if (blankRun++ === 0) {
        this.inline.text += '\n';
      }
      pos = lineBreak + 1;
    }
  }

  private readLine(start: number, end: number, line: number): void {
    const c = this.c;
    quotePrefix(c, start, end, Infinity, this.quote);
    const depth = this.quote.depth;
    let q = this.quote.contentStart;
    let indent = 0;
    for (; q < end; q += 1) {
      const ch = c.charCodeAt(q);
      if (ch === 32) indent += 1;
      else if (ch === 9) indent += 4 - (indent % 4);
      else break;
    }
    this.trackCallouts(depth, end, line);
    const previousDepth = this.previousDepth;
    this.previousDepth = depth;

    if (this.inline.inOpenSpan) {
      const resume = this.inline.resume(start, end);
      if (resume !== -1) this.inline.scan(resume, end);
      return;
    }
    if (this.fence) {
      if (depth >= this.fence.depth) {
        this.codeLine(start, end);
        return;
      }
      this.fence = undefined; // its blockquote ended, so did the fence
    }
    if (q === end) {
      this.paragraph = undefined; // a blank line
      return;
    }
    if (depth === 0 && indent >= 4 && !this.inList && (this.indentedCode || !this.paragraph)) {
      this.indentedCode = true;
      this.inline.text += c.slice(q, end);
      return;
    }
    this.indentedCode = false;
    if (depth !== this.listDepth) this.endList();

    if (indent <= 3 || this.inList) {
      const fence = fenceOpenAt(c, q, end);
      if (fence > 0) {
        this.fence = { code: c.charCodeAt(q), length: fence, depth };
        this.paragraph = undefined;
        return;
      }
    }
    if (indent <= 3) {
      if (depth === 0 && this.atxHeading(q, end, line)) return;
      if (depth === 0 && this.setextHeading(q, end)) return;
      if (isThematicBreak(c, q, end)) {
        this.paragraph = undefined;
        this.endList();
        return;
      }
    }
    if (depth > previousDepth && this.callout(start, q, end, line, depth)) return;
    if (this.listItem(q, end, line, indent, depth)) return;

    // Paragraph text. A line at the margin after a blank line ends any list.
    if (indent === 0 && !this.paragraph) this.endList();
    if (this.paragraph && this.paragraph.depth === depth) this.paragraph.lastEnd = end;
    else this.paragraph = { line, start: q, lastEnd: end, depth, inList: this.inList };
    this.inline.scan(q, end);
  }

  /** Extends the open callouts over this line, closing those nested deeper than its blockquote depth. */
  private trackCallouts(depth: number, end: number, line: number): void {
    const open = this.openCallouts;
    while (open.length > 0 && open[open.length - 1]!.depth > depth) open.pop();
    for (const callout of open) {
      callout.end = end;
      callout.endLine = line;
    }
  }

  private endList(): void {
    this.inList = false;
    this.listIndents.length = 0;
  }

  /** A line inside a fenced code block: its closing fence, or code kept for search. */
  private codeLine(start: number, end: number): void {
    const fence = this.fence!;
    let p = start;
    if (fence.depth > 0) {
      quotePrefix(this.c, start, end, fence.depth, this.quote);
      p = this.quote.contentStart;
    }
    if (isFenceClose(this.c, p, end, fence.code, fence.length)) this.fence = undefined;
    else this.inline.text += this.c.slice(p, end);
  }

  private atxHeading(q: number, end: number, line: number): boolean {
    const heading = atxHeadingAt(this.c, q, end);
    if (!heading) return false;
    const text = this.c.slice(heading.textStart, heading.textEnd);
    this.inline.add(this.model.headings, { line, start: q, end, level: heading.level, text });
    this.inline.scan(heading.textStart, heading.textEnd);
    this.paragraph = undefined;
    this.endList();
    return true;
  }

  /** An underline under a plain paragraph (not a list item, not in a blockquote) makes it a heading. */
  private setextHeading(q: number, end: number): boolean {
    const paragraph = this.paragraph;
    if (!paragraph || paragraph.inList || paragraph.depth !== 0) return false;
    const level = setextLevelAt(this.c, q, end);
    if (level === 0) return false;
    const text = this.c
      .slice(paragraph.start, paragraph.lastEnd)
      .split('\n')
      .map((part) => part.trim())
      .join(' ');
    this.inline.add(this.model.headings, { line: paragraph.line, start: paragraph.start, end, level, text });
    this.paragraph = undefined;
    return true;
  }

  private callout(lineStart: number, q: number, end: number, line: number, depth: number): boolean {
    const found = calloutAt(this.c, q, end);
    if (!found) return false;
    const { type, fold, titleStart, titleEnd } = found;
    const callout: Callout = { line, start: lineStart, end, endLine: line, type, title: this.c.slice(titleStart, titleEnd), ...(fold ? { fold } : {}), depth };
    this.inline.add(this.model.callouts, callout);
    this.openCallouts.push(callout);
    this.inline.scan(titleStart, titleEnd);
    this.paragraph = undefined;
    return true;
  }

  private listItem(q: number, end: number, line: number, indent: number, depth: number): boolean {
    const c = this.c;
    const text = listContentAt(c, q, end);
    if (text === -1) return false;
    if (!this.inList) this.listIndents.length = 0;
    const indents = this.listIndents;
    while (indents.length > 0 && indents[indents.length - 1]! >= indent) indents.pop();
    const level = indents.length;
    indents.push(indent);
    this.inList = true;
    this.listDepth = depth;
    this.paragraph = { line, start: q, lastEnd: end, depth, inList: true };

    const status = taskStatusAt(c, text, end);
    if (status === undefined) {
      this.inline.scan(text, end);
      return true;
    }
    let taskStart = text + 3;
    while (taskStart < end && isSpace(c.charCodeAt(taskStart))) taskStart += 1;
    const taskText = c.slice(taskStart, trimEnd(c, taskStart, end)).replace(TASK_BLOCK_ID, '');
    this.inline.add(this.model.tasks, { line, start: q, end, indent, level, status, checked: status === 'x' || status === 'X', text: taskText });
    this.inline.scan(taskStart, end);
    return true;
  }
}
