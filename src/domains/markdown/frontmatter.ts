import { parseDocument } from 'yaml';
import type { FrontmatterBlock } from './markdown-model.ts';

/** The frontmatter of a note: its data, null when it has none or it cannot be read, and why not. */
export interface ParsedFrontmatter {
  data: Record<string, unknown> | null;
  error?: string;
}

/**
 * Finds the frontmatter block: a first line `---` (after an optional byte-order mark) up to the next line that is
 * `---` or `...` (trailing spaces and tabs allowed, CRLF or LF). Undefined without one, or when it is not closed.
 * Reads no YAML, so it is cheap enough for every parse.
 */
export function locateFrontmatter(content: string): FrontmatterBlock | undefined {
  const start = content.charCodeAt(0) === 0xfeff ? 1 : 0;
  const firstBreak = content.indexOf('\n', start);
  if (firstBreak === -1 || !isDelimiter(content, start, firstBreak, false)) return undefined;
  const yamlStart = firstBreak + 1;
  let pos = yamlStart;
  for (let line = 1; ; line += 1) {
    const lineBreak = content.indexOf('\n', pos);
    const lineEnd = lineBreak === -1 ? content.length : lineBreak;
    if (isDelimiter(content, pos, lineEnd, true)) {
      const previousBreak = content.charCodeAt(pos - 2) === 13 ? 2 : 1;
      return {
        line: 0,
        start,
        end: content.charCodeAt(lineEnd - 1) === 13 ? lineEnd - 1 : lineEnd,
        endLine: line,
        yamlStart,
        yamlEnd: Math.max(yamlStart, pos - previousBreak),
        bodyStart: lineBreak === -1 ? content.length : lineBreak + 1,
      };
    }
    if (lineBreak === -1) return undefined;
    pos = lineBreak + 1;
  }
}

/** `---` (or `...` when closing) followed only by spaces and tabs, before an optional CR. */
function isDelimiter(content: string, from: number, to: number, closing: boolean): boolean {
  const end = content.charCodeAt(to - 1) === 13 ? to - 1 : to;
  if (end - from < 3) return false;
  const c = content.charCodeAt(from);
  if (!(c === 45 || (closing && c === 46)) || content.charCodeAt(from + 1) !== c || content.charCodeAt(from + 2) !== c) return false;
  for (let i = from + 3; i < end; i += 1) {
    const t = content.charCodeAt(i);
    if (t !== 32 && t !== 9) return false;
  }
  return true;
}

/**
 * Reads the YAML frontmatter of a note: the lines between a leading `---` line and the next `---` or `...` line.
 * A note without frontmatter gives `{ data: null }`; unreadable YAML, or YAML that is not a mapping, gives
 * `{ data: null, error }`. Never throws.
 */
export function parseFrontmatter(content: string): ParsedFrontmatter {
  const block = locateFrontmatter(content);
  if (!block) {
    const opened = isDelimiter(content, content.charCodeAt(0) === 0xfeff ? 1 : 0, lineEndOf(content), false);
    return opened ? { data: null, error: 'The frontmatter has no closing --- line.' } : { data: null };
  }
  const raw = content.slice(block.yamlStart, block.yamlEnd);
  const yamlText = raw.includes('\r') ? raw.replace(/\r\n/g, '\n') : raw;
  try {
    const doc = parseDocument(yamlText, { prettyErrors: false, uniqueKeys: true });
    const first = doc.errors[0];
    if (first) return { data: null, error: `Invalid YAML: ${first.message.split('\n')[0]}` };
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return { data: {} };
    if (typeof value !== 'object' || Array.isArray(value) || value instanceof Date) {
      return { data: null, error: 'The frontmatter is not a mapping of keys to values.' };
    }
    return { data: value as Record<string, unknown> };
  } catch (error) {
    return { data: null, error: `Invalid YAML: ${error instanceof Error ? error.message.split('\n')[0] : 'unreadable'}` };
  }
}

function lineEndOf(content: string): number {
  const lineBreak = content.indexOf('\n');
  return lineBreak === -1 ? content.length : lineBreak;
}

/** The kinds of frontmatter values a schema reports, in the order they are listed. */
export const FRONTMATTER_TYPES = ['string', 'number', 'boolean', 'date', 'list', 'object', 'null'] as const;
export type FrontmatterType = (typeof FRONTMATTER_TYPES)[number];

/** One key of a vault's frontmatter schema. */
export interface SchemaKey {
  key: string;
  /** The kinds of value seen, in FRONTMATTER_TYPES order. */
  types: FrontmatterType[];
  /** How many documents have the key. */
  count: number;
  /** Up to 3 distinct example values, stringified and cut at 80 characters. */
  examples: string[];
}

/** Most keys a schema summary tracks; further keys are counted as truncation. */
export const MAX_SCHEMA_KEYS = 1000;
/** Most examples per key. */
export const MAX_SCHEMA_EXAMPLES = 3;
/** Longest example value, in characters. */
export const MAX_EXAMPLE_CHARS = 80;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The kind of one frontmatter value; `YYYY-MM-DD` strings count as dates. */
export function frontmatterType(value: unknown): FrontmatterType {
  if (value === null || value === undefined) return 'null';
  if (value instanceof Date) return 'date';
  if (Array.isArray(value)) return 'list';
  switch (typeof value) {
    case 'string':
      return DATE.test(value) ? 'date' : 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      return 'object';
    default:
      return 'string';
  }
}

function shorten(text: string): string {
  return text.length > MAX_EXAMPLE_CHARS ? `${text.slice(0, MAX_EXAMPLE_CHARS - 1)}…` : text;
}

function example(value: unknown): string {
  if (typeof value === 'string') return shorten(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString().slice(0, 10);
  if (typeof value === 'bigint') return value.toString();
  if (value === undefined) return 'null';
  try {
    return shorten(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? `(${typeof value})`);
  } catch {
    return `(${typeof value})`; // for example a cyclic value
  }
}

/** The schema of many frontmatter documents, key by key. */
export interface SchemaSummary {
  /** Most common keys first, then by key. */
  keys: SchemaKey[];
  /** True when more than MAX_SCHEMA_KEYS distinct keys were seen; only the first ones are described. */
  keysTruncated: boolean;
}

/** Summarizes the top-level keys of frontmatter documents: value kinds, how many documents have each, examples. */
export function summarizeSchema(docs: Iterable<Record<string, unknown>>): SchemaSummary {
  const keys = new Map<string, { types: Set<FrontmatterType>; count: number; examples: string[] }>();
  let keysTruncated = false;
  for (const doc of docs) {
    for (const [key, value] of Object.entries(doc)) {
      let entry = keys.get(key);
      if (!entry) {
        if (keys.size >= MAX_SCHEMA_KEYS) {
          keysTruncated = true;
          continue;
        }
        entry = { types: new Set(), count: 0, examples: [] };
        keys.set(key, entry);
      }
      entry.count += 1;
      entry.types.add(frontmatterType(value));
      if (entry.examples.length < MAX_SCHEMA_EXAMPLES) {
        const shown = example(value);
        if (!entry.examples.includes(shown)) entry.examples.push(shown);
      }
    }
  }
  const list = [...keys].map(([key, e]) => ({
    key,
    types: FRONTMATTER_TYPES.filter((t) => e.types.has(t)),
    count: e.count,
    examples: e.examples,
  }));
  list.sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { keys: list, keysTruncated };
}
