/** Markdown: pure transformations of vault files (no I/O): JSON Canvas outlines and frontmatter schemas. */
export { MAX_CANVAS_EDGES, MAX_CANVAS_NODES, canvasToOutline } from './canvas.ts';
export type { CanvasOutline } from './canvas.ts';
export {
  FRONTMATTER_TYPES,
  MAX_EXAMPLE_CHARS,
  MAX_SCHEMA_EXAMPLES,
  MAX_SCHEMA_KEYS,
  frontmatterType,
  parseFrontmatter,
  summarizeSchema,
} from './frontmatter.ts';
export type { FrontmatterType, ParsedFrontmatter, SchemaKey, SchemaSummary } from './frontmatter.ts';
