import type { Slices } from '../../kernel/slices.ts';
import type { IndexState, IndexStateDoc } from './vault-index.ts';

/**
 * The binary form of a vault's search index (docs/search.md, "The index on disk"): a fixed header, a text part of
 * JSON lines (vault id and content version, then the notes and the words in chunks) padded to four bytes, then four arrays of 32-bit integers (word offsets,
 * document numbers, packed weights and fields, first body offsets) in the machine's byte order. Loading it is a
 * JSON parse and four array views: no text is tokenized again.
 */

/** Changes whenever the layout or the meaning of a posting changes; other formats are ignored, then rebuilt. */
export const SNAPSHOT_FORMAT = 2;
const MAGIC = 0x4b475349; // "KGSI"
const HEADER_WORDS = 6;
const HEADER_BYTES = 4 * HEADER_WORDS;

/** Where the snapshots of vault indexes are kept (a folder of the data directory, see app/search-snapshots.ts). */
export interface SearchIndexSnapshots {
  /** The stored snapshot of a vault, or undefined when there is none. */
  read(vaultId: string): Promise<Uint8Array | undefined>;
  /** Replaces the vault's snapshot whole with the concatenation of `parts` (never leaves half a file behind). */
  write(vaultId: string, parts: readonly Uint8Array[]): Promise<void>;
}

type DocTuple = [noteId: string, path: string, title: string, tagKeys: readonly string[], length: number];

// The text part is JSON lines, so that loading parses it a slice at a time: the meta line, then the notes in chunks,
// then the words in chunks.
const DOCS_PER_LINE = 2000;
const WORDS_PER_LINE = 20_000;

/**
 * Encodes an index state of `vaultId`, built under index rules `rulesVersion` (INDEX_RULES_VERSION), in slices, as
 * the parts of one snapshot in order. The postings are not copied: the last parts are views of the state's arrays,
 * so storing a 20,000-note index needs no second copy of its 40 MB of postings.
 */
export async function encodeSnapshot(vaultId: string, rulesVersion: number, state: IndexState, slices: Slices): Promise<Uint8Array[]> {
  const lines: string[] = [];
  const docLines = Math.ceil(state.docs.length / DOCS_PER_LINE);
  const wordLines = Math.ceil(state.words.length / WORDS_PER_LINE);
  lines.push(JSON.stringify({ vaultId, version: state.version, docs: state.docs.length, docLines, wordLines }));
  for (let k = 0; k < docLines; k++) {
    const chunk: DocTuple[] = state.docs.slice(k * DOCS_PER_LINE, (k + 1) * DOCS_PER_LINE).map((d) => [d.noteId, d.path, d.title, d.tagKeys, d.length]);
    lines.push(JSON.stringify(chunk));
    if (slices.due()) await slices.pause();
  }
  for (let k = 0; k < wordLines; k++) {
    lines.push(JSON.stringify(state.words.slice(k * WORDS_PER_LINE, (k + 1) * WORDS_PER_LINE)));
    if (slices.due()) await slices.pause();
  }
  const text = Buffer.from(lines.join('\n'), 'utf8');
  const textPadded = (text.length + 3) & ~3;
  const head = new Uint8Array(HEADER_BYTES + textPadded);
  new Uint32Array(head.buffer, 0, HEADER_WORDS).set([MAGIC, SNAPSHOT_FORMAT, rulesVersion, text.length, state.words.length, state.docNumbers.length]);
  head.set(text, HEADER_BYTES);
  return [head, ...[state.offsets, state.docNumbers, state.packed, state.firstBody].map((array) => new Uint8Array(array.buffer, array.byteOffset, array.byteLength))];
}

/**
 * Decodes a snapshot of `vaultId` built under index rules `rulesVersion`, in slices; undefined when it is of another
 * vault, rules or format, or not whole and consistent (a cut or damaged file is rebuilt, never trusted).
 */
export async function decodeSnapshot(input: Uint8Array, vaultId: string, rulesVersion: number, slices: Slices): Promise<IndexState | undefined> {
  // Typed array views need 4-byte alignment: copy the rare buffer that is not aligned.
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  if (bytes.byteLength < HEADER_BYTES) return undefined;
  const header = Array.from(new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS));
  const [magic, format, rules, textBytes, wordCount, postings] = header as [number, number, number, number, number, number];
  if (magic !== MAGIC || format !== SNAPSHOT_FORMAT || rules !== rulesVersion) return undefined;
  const arraysAt = HEADER_BYTES + ((textBytes + 3) & ~3);
  if (bytes.byteLength !== arraysAt + 4 * (wordCount + 1 + 3 * postings)) return undefined;
  const lines = Buffer.from(bytes.buffer, bytes.byteOffset + HEADER_BYTES, textBytes).toString('utf8').split('\n');
  const parse = (line: string | undefined): unknown => {
    try {
      return line === undefined ? undefined : JSON.parse(line);
    } catch {
      return undefined;
    }
  };
  const meta = parse(lines[0]) as { vaultId?: unknown; version?: unknown; docs?: unknown; docLines?: unknown; wordLines?: unknown } | undefined;
  if (!meta || meta.vaultId !== vaultId || !Number.isInteger(meta.version) || !Number.isInteger(meta.docLines) || !Number.isInteger(meta.wordLines)) return undefined;
  const docLines = meta.docLines as number;
  if (lines.length !== 1 + docLines + (meta.wordLines as number)) return undefined;
  const docs: IndexStateDoc[] = [];
  const words: string[] = [];
  for (let k = 1; k < lines.length; k++) {
    const chunk = parse(lines[k]);
    if (!Array.isArray(chunk)) return undefined;
    if (k <= docLines) {
      for (const value of chunk) {
        const doc = docOf(value);
        if (!doc) return undefined;
        docs.push(doc);
      }
    } else {
      for (const word of chunk) {
        if (typeof word !== 'string') return undefined;
        words.push(word);
      }
    }
    if (slices.due()) await slices.pause();
  }
  if (docs.length !== meta.docs || words.length !== wordCount) return undefined;
  const view = (from: number, count: number) => new Int32Array(bytes.buffer, bytes.byteOffset + from, count);
  const offsets = view(arraysAt, wordCount + 1);
  const docNumbers = view(arraysAt + 4 * (wordCount + 1), postings);
  const packed = view(arraysAt + 4 * (wordCount + 1 + postings), postings);
  const firstBody = view(arraysAt + 4 * (wordCount + 1 + 2 * postings), postings);
  const state: IndexState = { version: meta.version as number, docs, words, offsets, docNumbers, packed, firstBody };
  return (await consistent(state, slices)) ? state : undefined;
}

function docOf(value: unknown): IndexStateDoc | undefined {
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [noteId, path, title, tagKeys, length] = value as unknown[];
  if (typeof noteId !== 'string' || typeof path !== 'string' || typeof title !== 'string' || !Number.isInteger(length)) return undefined;
  if (!Array.isArray(tagKeys) || tagKeys.some((t) => typeof t !== 'string')) return undefined;
  return { noteId, path, title, tagKeys: tagKeys as string[], length: length as number };
}

/** Offsets rise from 0 to the end, and every list names existing notes in increasing order. */
async function consistent(state: IndexState, slices: Slices): Promise<boolean> {
  const { offsets, docNumbers } = state;
  if (offsets[0] !== 0 || offsets[offsets.length - 1] !== docNumbers.length) return false;
  for (let k = 0; k + 1 < offsets.length; k++) {
    const from = offsets[k]!;
    const to = offsets[k + 1]!;
    if (to <= from) return false;
    for (let i = from; i < to; i++) {
      const doc = docNumbers[i]!;
      if (doc < 0 || doc >= state.docs.length || (i > from && doc <= docNumbers[i - 1]!)) return false;
    }
    if (slices.due()) await slices.pause();
  }
  return true;
}
