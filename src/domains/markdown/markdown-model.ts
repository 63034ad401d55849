/**
 * The structure of one Markdown note as `parseMarkdown` reads it. Every item carries its 0-based line and the
 * character offsets `[start, end)` into the note content (UTF-16 code units, as JavaScript strings index), so
 * callers can quote evidence or rewrite a span without parsing again.
 */

/** Most items of one kind (links, tags, tasks, ...) kept per note; more set `truncated`. */
export const MAX_ITEMS_PER_KIND = 10_000;

/** Where an item sits in the note: its 0-based line and its character offsets `[start, end)`. */
export interface SourceSpan {
  line: number;
  start: number;
  end: number;
}

/** The frontmatter block: from the opening `---` through the closing `---` or `...` line. */
export interface FrontmatterBlock extends SourceSpan {
  /** Line of the closing delimiter. */
  endLine: number;
  /** Offsets of the YAML text between the delimiter lines (without the last line break). */
  yamlStart: number;
  yamlEnd: number;
  /** Where the body starts: after the closing delimiter's line break. */
  bodyStart: number;
}

/** An ATX (`## Text`) or setext (`Text` over `===` / `---`) heading. */
export interface MarkdownHeading extends SourceSpan {
  level: 1 | 2 | 3 | 4 | 5 | 6;
  /** Trimmed, without the leading and closing `#`s. */
  text: string;
}

/** An Obsidian block id: `^id` at the end of a line; the span covers `^id`. */
export interface BlockId extends SourceSpan {
  id: string;
}

/** `[[target#heading|alias]]`, `[[target#^block]]`, `[[#heading]]`, or an embed `![[...]]`. */
export interface WikiLink extends SourceSpan {
  kind: 'wikilink';
  embed: boolean;
  /** The path part, trimmed; '' for a link into the same note. */
  target: string;
  heading?: string;
  blockId?: string;
  alias?: string;
  /** The link as written, `!` and brackets included. */
  raw: string;
  /** Offsets of `target` in the content; equal (an insertion point) when the target is empty. */
  targetStart: number;
  targetEnd: number;
}

/** `[text](href "title")`, or an image `![alt](src)` (embed: true). */
export interface MarkdownLink extends SourceSpan {
  kind: 'markdown';
  embed: boolean;
  /** The link text (or image alt text) as written. */
  text: string;
  /** The destination as written, without `<...>`. */
  href: string;
  title?: string;
  /** True when the destination has a URL scheme (`https:`, `mailto:`, `obsidian:`) or starts with `//`. */
  external: boolean;
  /** For internal links: the path part of the destination, percent-decoded; '' for `#heading` in the same note. */
  path?: string;
  heading?: string;
  blockId?: string;
  raw: string;
  /** Offsets of `href` in the content (inside the angle brackets when `angle`). */
  hrefStart: number;
  hrefEnd: number;
  /** The destination was written as `<...>`. */
  angle: boolean;
}

/** Any link a note makes. */
export type NoteLink = WikiLink | MarkdownLink;

/** A tag without its `#`, with the lowercased key tags are compared by. */
export interface TagName {
  name: string;
  key: string;
}

/** A `#tag` in the body; the span covers `#tag`. */
export interface InlineTag extends SourceSpan, TagName {}

/** A task list item: `- [ ] text`, `* [x] text`, `1. [/] text`. */
export interface MarkdownTask extends SourceSpan {
  /** Columns of indentation before the list marker (a tab counts to the next multiple of 4). */
  indent: number;
  /** Nesting level among the list items around it, 0 for a top-level item. */
  level: number;
  /** The character between the brackets. */
  status: string;
  /** True for `x` or `X`. */
  checked: boolean;
  /** The text after the checkbox, trimmed, without a trailing block id. */
  text: string;
}

/** An Obsidian callout: a blockquote whose first line is `[!type]`, `[!type]+ Title` or `[!type]- Title`. */
export interface Callout extends SourceSpan {
  /** The last line of the callout; the span runs to its end. */
  endLine: number;
  /** Lowercased. */
  type: string;
  title: string;
  fold?: '+' | '-';
  /** Blockquote nesting: 1 for `> [!note]`, 2 for `> > [!note]`. */
  depth: number;
}

/** Everything `parseMarkdown` reads from one note. */
export interface MarkdownModel {
  frontmatter?: FrontmatterBlock;
  headings: MarkdownHeading[];
  blockIds: BlockId[];
  wikiLinks: WikiLink[];
  links: MarkdownLink[];
  /** Inline `#tags` of the body, in order, repeats included. */
  tags: InlineTag[];
  /** Tags of the frontmatter `tags` / `tag` key, when the frontmatter data was given or parsed; else empty. */
  frontmatterTags: TagName[];
  tasks: MarkdownTask[];
  callouts: Callout[];
  /** The body as plain text for full-text search (see docs/markdown.md). */
  searchText: string;
  /** True when some kind hit MAX_ITEMS_PER_KIND and later items were dropped. */
  truncated: boolean;
}
