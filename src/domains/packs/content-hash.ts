import { createHash } from 'node:crypto';
import type { ParsedPack } from './format/index.ts';

// The content hash of a pack (intelligence_pack_versions.content_hash): SHA-256 of the pack's canonical JSON, so
// that publishing the same content again is recognized whatever order the YAML wrote its keys in. The JSON is fed to
// the hash in pieces rather than built whole: a pack's texts may be hundreds of megabytes.

/** Pieces are gathered up to this many characters before they go to the hash: one update call per piece is slow. */
const FLUSH_CHARS = 256 * 1024;

/** Gathers written pieces and hands them to `sink` in large ones. */
class PieceWriter {
  #parts: string[] = [];
  #length = 0;

  constructor(private readonly sink: (text: string) => void) {}

  write(text: string): void {
    this.#parts.push(text);
    this.#length += text.length;
    if (this.#length >= FLUSH_CHARS) this.flush();
  }

  flush(): void {
    if (this.#parts.length > 0) this.sink(this.#parts.join(''));
    this.#parts = [];
    this.#length = 0;
  }
}

/**
 * Writes `value` as canonical JSON: object keys in code-unit order, properties whose value is undefined left out (as
 * JSON.stringify does), arrays in their order, strings and numbers as JSON.stringify writes them.
 */
function writeCanonical(value: unknown, writer: PieceWriter): void {
  if (Array.isArray(value)) {
    writer.write('[');
    value.forEach((item: unknown, index) => {
      if (index > 0) writer.write(',');
      // JSON.stringify writes an undefined array element as null; so do we.
      writeCanonical(item === undefined ? null : item, writer);
    });
    writer.write(']');
    return;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    writer.write('{');
    keys.forEach((key, index) => {
      writer.write(index > 0 ? ',' : '');
      writer.write(JSON.stringify(key));
      writer.write(':');
      writeCanonical(record[key], writer);
    });
    writer.write('}');
    return;
  }
  writer.write(JSON.stringify(value ?? null));
}

/** The canonical JSON of a value as one string (for tests and small values; packContentHash streams it instead). */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  const writer = new PieceWriter((text) => parts.push(text));
  writeCanonical(value, writer);
  writer.flush();
  return parts.join('');
}

/** The SHA-256 (lowercase hex) of the pack's canonical JSON, texts included. */
export function packContentHash(pack: ParsedPack): string {
  const hash = createHash('sha256');
  const writer = new PieceWriter((text) => hash.update(text, 'utf8'));
  writeCanonical(pack, writer);
  writer.flush();
  return hash.digest('hex');
}
