/**
 * Markdown: pure transformations of vault files (no I/O): the note model (links, tags, tasks, callouts, search
 * text), WikiLink resolution and link rewriting, JSON Canvas outlines and frontmatter schemas.
 */
export { MAX_CANVAS_EDGES, MAX_CANVAS_NODES, canvasToOutline } from './canvas.ts';
export type { CanvasOutline } from './canvas.ts';
export {
  FRONTMATTER_TYPES,
  MAX_EXAMPLE_CHARS,
  MAX_SCHEMA_EXAMPLES,
  MAX_SCHEMA_KEYS,
  frontmatterType,
  locateFrontmatter,
  parseFrontmatter,
  summarizeSchema,
} from './frontmatter.ts';
export type { FrontmatterType, ParsedFrontmatter, SchemaKey, SchemaSummary } from './frontmatter.ts';
export { retargetLinks, rewriteWikiLinks } from './link-rewrite.ts';
export {
  findHeadings,
  headingPath,
  lineBreakOf,
  listHeadings,
  listMarkedBlocks,
  locateFrontmatterKey,
  noteLines,
  sectionAppendPoint,
} from './sections.ts';
export type { FrontmatterKeySpot, MarkedBlock, SectionHeading, TextLine } from './sections.ts';
export type { LinkMove, LinkRewrite, LinkTargetReplacer } from './link-rewrite.ts';
export { isExternalHref } from './markdown-link-syntax.ts';
export { MAX_ITEMS_PER_KIND } from './markdown-model.ts';
export type {
  BlockId,
  Callout,
  FrontmatterBlock,
  InlineTag,
  MarkdownHeading,
  MarkdownLink,
  MarkdownModel,
  MarkdownTask,
  NoteLink,
  SourceSpan,
  TagName,
  WikiLink,
} from './markdown-model.ts';
export { parseMarkdown } from './parse.ts';
export type { ParseMarkdownOptions } from './parse.ts';
export { frontmatterTags, noteTags, tagName } from './tags.ts';
export { createLinkResolver, joinRelative } from './wikilink-resolution.ts';
export type { LinkResolver } from './wikilink-resolution.ts';
