import { notePathKey } from '../../kernel/vault-path.ts';
import type { Slices } from '../../kernel/slices.ts';
import { forEachWord } from './tokenizer.ts';

/** What the index keeps of one note (its body text stays in the database). */
export interface IndexedNote {
  noteId: string;
  path: string;
  title: string;
  tagKeys: readonly string[];
  searchText: string;
}

/**
 * The version of what an index holds for a note: bump it when the tokenizer, the field weights or the packing of a
 * posting change, so that stored snapshots of older indexes are rebuilt instead of loaded.
 */
export const INDEX_RULES_VERSION = 1;

/** Field bits of a posting: where in the note the word occurs. */
export const FIELD = { title: 1, path: 2, body: 4 } as const;

// Occurrences in the title count five times, in the path twice: a note named after the query outranks a note
// that mentions it in passing.
const WEIGHT = { title: 5, path: 2, body: 1 } as const;
/**
 * Up to this many characters of search text per vault are kept with the index, so that snippets and phrase checks
 * need no database read (about the text of 4,000 notes of 2 KB). A vault with more keeps none: its snippets read
 * the texts of the page's results from the database, as an index loaded from a snapshot always does. Larger
 * vaults kept up to 64 M characters once, which put a 20,000-note gateway at 510 MB resident after its first
 * search; without them it holds about 260 MB, and a search reads ten texts more (docs/operations.md, "Memory").
 */
export const MAX_KEPT_TEXT_CHARS = 8 * 1024 * 1024;

// BM25's usual constants: term-frequency saturation and length normalization.
const K1 = 1.2;
const B = 0.75;

interface Doc {
  /** The search text, while the index keeps texts (see MAX_KEPT_TEXT_CHARS). */
  text: string | undefined;
  noteId: string;
  path: string;
  pathKey: string;
  title: string;
  tagKeys: readonly string[];
  /** Weighted length: words in the body, plus weighted title and path words. */
  length: number;
  alive: boolean;
}

/**
 * Documents containing one word, in increasing document order: the weighted frequency and field bits packed in one
 * integer (`weight << 3 | fields`), and the offset of the word's first occurrence in the body (-1: not in the
 * body). Typed arrays that double as they grow: about 12 bytes per (word, note) pair.
 */
class Postings {
  docs: Int32Array = new Int32Array(4);
  packed: Int32Array = new Int32Array(4);
  firstBody: Int32Array = new Int32Array(4);
  length = 0;

  /** Postings over existing arrays (views of a loaded snapshot); `push` copies them once they must grow. */
  static over(docs: Int32Array, packed: Int32Array, firstBody: Int32Array): Postings {
    const list = new Postings();
    list.docs = docs;
    list.packed = packed;
    list.firstBody = firstBody;
    list.length = docs.length;
    return list;
  }

  push(doc: number, weight: number, fields: number, firstBody: number): void {
    if (this.length === this.docs.length) {
      const grow = (from: Int32Array) => {
        const to = new Int32Array(from.length * 2);
        to.set(from);
        return to;
      };
      this.docs = grow(this.docs);
      this.packed = grow(this.packed);
      this.firstBody = grow(this.firstBody);
    }
    this.docs[this.length] = doc;
    this.packed[this.length] = (weight << 3) | fields;
    this.firstBody[this.length] = firstBody;
    this.length += 1;
  }
}

/** A note of an index's state: what the index keeps of it besides its postings. */
export interface IndexStateDoc {
  noteId: string;
  path: string;
  title: string;
  tagKeys: readonly string[];
  length: number;
}

/**
 * Everything an index holds but texts, as plain data that a snapshot can store: the live notes in document order,
 * the words, and each word's postings as one slice of three arrays (`offsets[k]` to `offsets[k + 1]`).
 */
export interface IndexState {
  version: number;
  docs: IndexStateDoc[];
  words: string[];
  offsets: Int32Array;
  docNumbers: Int32Array;
  packed: Int32Array;
  firstBody: Int32Array;
}

/** One scored candidate. */
export interface Scored {
  doc: number;
  score: number;
  fields: number;
}

/** What a match must satisfy besides its words. */
export interface MatchFilter {
  tagKeys?: readonly string[];
  /** Lower-cased folder path without trailing '/'. */
  folderKey?: string;
}

/**
 * The in-memory inverted index of one vault's notes: BM25 over title, path and body with field weights. Built from
 * the search text stored at apply time, and brought up to date from `content_version` (see search service).
 * Removing a note marks it dead (its document number stays valid for searches under way); the postings are
 * compacted once dead notes are a fifth of the index and no search is under way.
 */
export class VaultSearchIndex {
  private docs: Doc[] = [];
  private postings = new Map<string, Postings>();
  private byNoteId = new Map<string, number>();
  private liveCount = 0;
  private totalLength = 0;
  private keptTextChars = 0;
  private keepTexts = true;

  constructor(
    public version: number,
    private readonly maxKeptTextChars: number = MAX_KEPT_TEXT_CHARS,
  ) {}

  /**
   * The index as plain data (see IndexState), compacted: only live notes, renumbered. Texts are not part of it; an
   * index made from it reads snippet texts from the database. Runs in slices (about 12 bytes of postings per word
   * and note make millions of entries): the caller keeps the index still meanwhile, no upsert, no compaction.
   */
  async exportState(slices: Slices): Promise<IndexState> {
    const renumber = new Int32Array(this.docs.length).fill(-1);
    const docs: IndexStateDoc[] = [];
    this.docs.forEach((entry, doc) => {
      if (!entry.alive) return;
      renumber[doc] = docs.length;
      docs.push({ noteId: entry.noteId, path: entry.path, title: entry.title, tagKeys: entry.tagKeys, length: entry.length });
    });
    let total = 0;
    for (const list of this.postings.values()) total += list.length;
    const words: string[] = [];
    const offsets = new Int32Array(this.postings.size + 1);
    const docNumbers = new Int32Array(total);
    const packed = new Int32Array(total);
    const firstBody = new Int32Array(total);
    let at = 0;
    for (const [word, list] of this.postings) {
      const start = at;
      for (let i = 0; i < list.length; i++) {
        const to = renumber[list.docs[i]!]!;
        if (to < 0) continue;
        docNumbers[at] = to;
        packed[at] = list.packed[i]!;
        firstBody[at] = list.firstBody[i]!;
        at += 1;
      }
      if (at > start) {
        words.push(word);
        offsets[words.length] = at;
      }
      if (slices.due()) await slices.pause();
    }
    const end = words.length + 1;
    return {
      version: this.version,
      docs,
      words,
      offsets: offsets.slice(0, end),
      docNumbers: docNumbers.slice(0, at),
      packed: packed.slice(0, at),
      firstBody: firstBody.slice(0, at),
    };
  }

  /**
   * An index made from a state (see exportState), in slices. It keeps no texts, unless `texts` gives each note's
   * search text (in document order) and they fit the index's budget, as a new build has them.
   */
  static async fromState(state: IndexState, slices: Slices, maxKeptTextChars?: number, texts?: readonly string[]): Promise<VaultSearchIndex> {
    const index = new VaultSearchIndex(state.version, maxKeptTextChars);
    const kept = texts !== undefined && texts.length === state.docs.length && texts.reduce((sum, text) => sum + text.length, 0) <= index.maxKeptTextChars;
    index.keepTexts = kept;
    for (let k = 0; k < state.docs.length; k++) {
      const doc = state.docs[k]!;
      const text = kept ? texts[k] : undefined;
      if (text !== undefined) index.keptTextChars += text.length;
      index.byNoteId.set(doc.noteId, index.docs.length);
      index.docs.push({ text, noteId: doc.noteId, path: doc.path, pathKey: notePathKey(doc.path), title: doc.title, tagKeys: doc.tagKeys, length: doc.length, alive: true });
      index.totalLength += doc.length;
      if (slices.due()) await slices.pause();
    }
    index.liveCount = state.docs.length;
    for (let k = 0; k < state.words.length; k++) {
      const from = state.offsets[k]!;
      const to = state.offsets[k + 1]!;
      index.postings.set(state.words[k]!, Postings.over(state.docNumbers.subarray(from, to), state.packed.subarray(from, to), state.firstBody.subarray(from, to)));
      if (slices.due()) await slices.pause();
    }
    return index;
  }

  /** Live notes. */
  get size(): number {
    return this.liveCount;
  }

  /** Postings entries, a measure of memory use. */
  get weight(): number {
    return this.docs.length;
  }

  /** The note behind a document number. */
  note(doc: number): { noteId: string; path: string; title: string; tagKeys: readonly string[] } {
    return this.docs[doc]!;
  }

  has(noteId: string): boolean {
    return this.byNoteId.has(noteId);
  }

  /** The ids of every live note. */
  noteIds(): IterableIterator<string> {
    return this.byNoteId.keys();
  }

  /** Adds a note, replacing its earlier version. */
  upsert(note: IndexedNote): void {
    this.remove(note.noteId);
    const doc = this.docs.length;
    const { counts, length } = countNoteWords(note);
    for (const [word, { weight, fields, firstBody }] of counts) {
      let list = this.postings.get(word);
      if (!list) {
        list = new Postings();
        this.postings.set(word, list);
      }
      list.push(doc, weight, fields, firstBody);
    }
    if (this.keepTexts && this.keptTextChars + note.searchText.length > this.maxKeptTextChars) this.dropTexts();
    const text = this.keepTexts ? note.searchText : undefined;
    if (text !== undefined) this.keptTextChars += text.length;
    this.docs.push({ text, noteId: note.noteId, path: note.path, pathKey: notePathKey(note.path), title: note.title, tagKeys: note.tagKeys, length, alive: true });
    this.byNoteId.set(note.noteId, doc);
    this.liveCount += 1;
    this.totalLength += length;
  }

  /** Removes a note (no-op when absent). */
  remove(noteId: string): void {
    const doc = this.byNoteId.get(noteId);
    if (doc === undefined) return;
    const entry = this.docs[doc]!;
    entry.alive = false;
    if (entry.text !== undefined) this.keptTextChars -= entry.text.length;
    entry.text = undefined;
    this.byNoteId.delete(noteId);
    this.liveCount -= 1;
    this.totalLength -= entry.length;
  }

  /**
   * Searches under way hold document numbers across awaits; compaction renumbers documents, so it runs only when
   * none is (see `reading`), once dead notes are a fifth of the index.
   */
  private readers = 0;

  /** Runs `work` as a reader: compaction waits until no reader holds document numbers. */
  async reading<T>(work: () => Promise<T>): Promise<T> {
    this.readers += 1;
    try {
      return await work();
    } finally {
      this.readers -= 1;
      this.compactIfIdle();
    }
  }

  /** Compacts when dead notes are a fifth of the index (at least 1,000) and no search holds document numbers. */
  compactIfIdle(): void {
    if (this.readers === 0 && this.docs.length - this.liveCount > Math.max(1000, this.docs.length / 5)) this.compact();
  }

  /**
   * Notes holding every word (and passing the filter), scored with BM25 summed over the words. Unordered: the
   * caller picks the best (see `best`).
   */
  match(words: readonly string[], filter: MatchFilter = {}): Scored[] {
    const lists: Postings[] = [];
    for (const word of words) {
      const list = this.postings.get(word);
      if (!list) return [];
      lists.push(list);
    }
    // Walk the shortest list and look the others up: the cost follows the rarest word.
    const order = lists.map((_, k) => k).sort((a, b) => lists[a]!.length - lists[b]!.length);
    const driver = lists[order[0]!]!;
    const others = order.slice(1).map((k) => lists[k]!);
    const cursors = others.map(() => 0);
    const idf = lists.map((list) => Math.log(1 + (this.liveCount - list.length + 0.5) / (list.length + 0.5)));
    const driverIdf = idf[order[0]!]!;
    const otherIdf = order.slice(1).map((k) => idf[k]!);
    const averageLength = this.liveCount > 0 ? this.totalLength / this.liveCount : 1;
    const out: Scored[] = [];
    for (let i = 0; i < driver.length; i++) {
      const doc = driver.docs[i]!;
      const entry = this.docs[doc]!;
      if (!entry.alive || !passes(entry, filter)) continue;
      const norm = K1 * (1 - B + (B * entry.length) / averageLength);
      let score = bm25(driverIdf, driver.packed[i]! >> 3, norm);
      let fields = driver.packed[i]! & 7;
      let all = true;
      for (let k = 0; k < others.length; k++) {
        const list = others[k]!;
        const at = seek(list.docs, list.length, doc, cursors[k]!);
        cursors[k] = at;
        if (at >= list.length || list.docs[at] !== doc) {
          all = false;
          break;
        }
        score += bm25(otherIdf[k]!, list.packed[at]! >> 3, norm);
        fields |= list.packed[at]! & 7;
      }
      if (all) out.push({ doc, score, fields });
    }
    return out;
  }

  /** A note's search text when the index keeps texts, else undefined (read it from the database). */
  text(doc: number): string | undefined {
    return this.docs[doc]!.text;
  }

  private dropTexts(): void {
    this.keepTexts = false;
    this.keptTextChars = 0;
    for (const entry of this.docs) entry.text = undefined;
  }

  /** Where in a note's body the first of these words occurs (-1 when none is in the body). */
  firstBodyOffset(doc: number, words: readonly string[]): number {
    let first = -1;
    for (const word of words) {
      const list = this.postings.get(word);
      if (!list) continue;
      const at = seek(list.docs, list.length, doc, 0);
      if (at >= list.length || list.docs[at] !== doc) continue;
      const offset = list.firstBody[at]!;
      if (offset >= 0 && (first < 0 || offset < first)) first = offset;
    }
    return first;
  }

  private compact(): void {
    const renumber = new Map<number, number>();
    const docs: Doc[] = [];
    this.docs.forEach((entry, doc) => {
      if (!entry.alive) return;
      renumber.set(doc, docs.length);
      docs.push(entry);
    });
    for (const [word, list] of this.postings) {
      const next = new Postings();
      for (let i = 0; i < list.length; i++) {
        const to = renumber.get(list.docs[i]!);
        if (to !== undefined) next.push(to, list.packed[i]! >> 3, list.packed[i]! & 7, list.firstBody[i]!);
      }
      if (next.length === 0) this.postings.delete(word);
      else this.postings.set(word, next);
    }
    this.docs = docs;
    this.byNoteId = new Map(docs.map((entry, doc) => [entry.noteId, doc]));
  }
}

/** How often and where each word of a note occurs, as one posting of it will hold. */
export interface WordCount {
  /** Weighted occurrences (title five times, path twice, body once), at most 2^27 so that it packs. */
  weight: number;
  fields: number;
  /** Offset of the first occurrence in the body, -1 when the word is not in the body. */
  firstBody: number;
}

/** The words of a note with their counts, and its weighted length: what one note adds to an index. */
export function countNoteWords(note: IndexedNote): { counts: Map<string, WordCount>; length: number } {
  const counts = new Map<string, WordCount>();
  let length = 0;
  const count = (field: keyof typeof FIELD) => (word: string, start: number) => {
    const entry = counts.get(word);
    const bodyAt = field === 'body' ? start : -1;
    if (entry) {
      // Weights beyond 2^27 would overflow the packing; no real note repeats a word that often.
      entry.weight = Math.min(entry.weight + WEIGHT[field], 1 << 27);
      entry.fields |= FIELD[field];
      if (entry.firstBody < 0) entry.firstBody = bodyAt;
    } else counts.set(word, { weight: WEIGHT[field], fields: FIELD[field], firstBody: bodyAt });
    length += WEIGHT[field];
  };
  forEachWord(note.title, count('title'));
  forEachWord(note.path.endsWith('.md') ? note.path.slice(0, -3) : note.path, count('path'));
  forEachWord(note.searchText, count('body'));
  return { counts, length };
}

function bm25(idf: number, weight: number, norm: number): number {
  return (idf * weight * (K1 + 1)) / (weight + norm);
}

function passes(entry: Doc, filter: MatchFilter): boolean {
  if (filter.folderKey !== undefined && filter.folderKey !== '' && !entry.pathKey.startsWith(`${filter.folderKey}/`)) return false;
  if (filter.tagKeys) {
    // A nested tag counts for its parents: #project/alpha matches the filter "project".
    for (const wanted of filter.tagKeys) {
      if (!entry.tagKeys.some((tag) => tag === wanted || tag.startsWith(`${wanted}/`))) return false;
    }
  }
  return true;
}

/** The first index at or after `from` whose doc is >= `doc` (galloping, then binary search). */
function seek(docs: Int32Array, length: number, doc: number, from: number): number {
  let step = 1;
  let low = from;
  let high = from;
  while (high < length && docs[high]! < doc) {
    low = high + 1;
    high += step;
    step *= 2;
  }
  high = Math.min(high, length);
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (docs[mid]! < doc) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * The `count` best candidates, best first: by score, then by path so that equal scores give one stable order.
 * A bounded heap, so a common word's thousands of matches cost O(n log count), not a full sort.
 */
export function best(index: VaultSearchIndex, candidates: readonly Scored[], count: number): Scored[] {
  const before = (a: Scored, b: Scored) => b.score - a.score || compareText(index.note(a.doc).path, index.note(b.doc).path);
  if (count <= 0) return [];
  if (candidates.length <= count) return [...candidates].sort(before);
  // A heap whose root is the worst of the best so far.
  const heap: Scored[] = [];
  const worse = (i: number, j: number) => before(heap[i]!, heap[j]!) > 0;
  const swap = (i: number, j: number) => {
    const t = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = t;
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let top = i;
      if (l < heap.length && worse(l, top)) top = l;
      if (r < heap.length && worse(r, top)) top = r;
      if (top === i) return;
      swap(i, top);
      i = top;
    }
  };
  for (const candidate of candidates) {
    if (heap.length < count) {
      heap.push(candidate);
      for (let i = heap.length - 1; i > 0 && worse(i, (i - 1) >> 1); i = (i - 1) >> 1) swap(i, (i - 1) >> 1);
    } else if (before(candidate, heap[0]!) < 0) {
      heap[0] = candidate;
      down(0);
    }
  }
  return heap.sort(before);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
