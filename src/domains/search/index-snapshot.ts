import type { IndexState, IndexStateDoc } from './vault-index.ts';

/**
 * The binary form of a vault's search index (docs/search.md, "The index on disk"): a fixed header, a JSON part
 * (vault id, content version, notes, words) padded to four bytes, then four arrays of 32-bit integers (word offsets,
 * document numbers, packed weights and fields, first body offsets) in the machine's byte order. Loading it is a
 * JSON parse and four array views: no text is tokenized again.
 */

/** Changes whenever the layout or the meaning of a posting changes; other formats are ignored, then rebuilt. */
export const SNAPSHOT_FORMAT = 1;
const MAGIC = 0x4b475349; // "KGSI"
const HEADER_WORDS = 6;
const HEADER_BYTES = 4 * HEADER_WORDS;

/** Where the snapshots of vault indexes are kept (a folder of the data directory, see app/search-snapshots.ts). */
export interface SearchIndexSnapshots {
  /** The stored snapshot of a vault, or undefined when there is none. */
  read(vaultId: string): Promise<Uint8Array | undefined>;
  /** Replaces the vault's snapshot whole (never leaves half a file behind). */
  write(vaultId: string, bytes: Uint8Array): Promise<void>;
}

type DocTuple = [noteId: string, path: string, title: string, tagKeys: readonly string[], length: number];

/** Encodes an index state of `vaultId`, built under index rules `modelVersion` (INDEX_RULES_VERSION). */
export function encodeSnapshot(vaultId: string, modelVersion: number, state: IndexState): Uint8Array {
  const docs: DocTuple[] = state.docs.map((d) => [d.noteId, d.path, d.title, d.tagKeys, d.length]);
  const json = Buffer.from(JSON.stringify({ vaultId, version: state.version, docs, words: state.words }), 'utf8');
  const jsonPadded = (json.length + 3) & ~3;
  const postings = state.docNumbers.length;
  const bytes = new Uint8Array(HEADER_BYTES + jsonPadded + 4 * (state.offsets.length + 3 * postings));
  const header = new Uint32Array(bytes.buffer, 0, HEADER_WORDS);
  header.set([MAGIC, SNAPSHOT_FORMAT, modelVersion, json.length, state.words.length, postings]);
  bytes.set(json, HEADER_BYTES);
  let at = HEADER_BYTES + jsonPadded;
  for (const array of [state.offsets, state.docNumbers, state.packed, state.firstBody]) {
    bytes.set(new Uint8Array(array.buffer, array.byteOffset, array.byteLength), at);
    at += array.byteLength;
  }
  return bytes;
}

/**
 * Decodes a snapshot of `vaultId` built under index rules `modelVersion`; undefined when it is of another vault,
 * model or format, or not whole and consistent (a cut or damaged file is rebuilt, never trusted).
 */
export function decodeSnapshot(input: Uint8Array, vaultId: string, modelVersion: number): IndexState | undefined {
  // Typed array views need 4-byte alignment: copy the rare buffer that is not aligned.
  const bytes = input.byteOffset % 4 === 0 ? input : input.slice();
  if (bytes.byteLength < HEADER_BYTES) return undefined;
  const [magic, format, model, jsonBytes, wordCount, postings] = new Uint32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
  if (magic !== MAGIC || format !== SNAPSHOT_FORMAT || model !== modelVersion) return undefined;
  const arraysAt = HEADER_BYTES + ((jsonBytes! + 3) & ~3);
  if (bytes.byteLength !== arraysAt + 4 * (wordCount! + 1 + 3 * postings!)) return undefined;
  let head: { vaultId?: unknown; version?: unknown; docs?: unknown; words?: unknown };
  try {
    head = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + HEADER_BYTES, jsonBytes).toString('utf8')) as typeof head;
  } catch {
    return undefined;
  }
  if (head.vaultId !== vaultId || !Number.isInteger(head.version) || !Array.isArray(head.docs) || !Array.isArray(head.words)) return undefined;
  if (head.words.length !== wordCount) return undefined;
  const view = (from: number, count: number) => new Int32Array(bytes.buffer, bytes.byteOffset + from, count);
  const offsets = view(arraysAt, wordCount + 1);
  const docNumbers = view(arraysAt + 4 * (wordCount + 1), postings!);
  const packed = view(arraysAt + 4 * (wordCount + 1 + postings!), postings!);
  const firstBody = view(arraysAt + 4 * (wordCount + 1 + 2 * postings!), postings!);
  const docs = (head.docs as unknown[]).map(docOf);
  if (docs.some((d) => d === undefined)) return undefined;
  const state: IndexState = { version: head.version as number, docs: docs as IndexStateDoc[], words: head.words as string[], offsets, docNumbers, packed, firstBody };
  return consistent(state) ? state : undefined;
}

function docOf(value: unknown): IndexStateDoc | undefined {
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [noteId, path, title, tagKeys, length] = value as unknown[];
  if (typeof noteId !== 'string' || typeof path !== 'string' || typeof title !== 'string' || !Number.isInteger(length)) return undefined;
  if (!Array.isArray(tagKeys) || tagKeys.some((t) => typeof t !== 'string')) return undefined;
  return { noteId, path, title, tagKeys: tagKeys as string[], length: length as number };
}

/** Offsets rise from 0 to the end, every list names existing notes in increasing order, words are strings. */
function consistent(state: IndexState): boolean {
  const { offsets, docNumbers } = state;
  if (offsets[0] !== 0 || offsets[offsets.length - 1] !== docNumbers.length) return false;
  if (state.words.some((w) => typeof w !== 'string')) return false;
  for (let k = 0; k + 1 < offsets.length; k++) {
    const from = offsets[k]!;
    const to = offsets[k + 1]!;
    if (to <= from) return false;
    for (let i = from; i < to; i++) {
      const doc = docNumbers[i]!;
      if (doc < 0 || doc >= state.docs.length || (i > from && doc <= docNumbers[i - 1]!)) return false;
    }
  }
  return true;
}
