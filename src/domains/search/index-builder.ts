import type { Slices } from '../../kernel/slices.ts';
import { countNoteWords, MAX_KEPT_TEXT_CHARS, type IndexedNote, type IndexState, type IndexStateDoc } from './vault-index.ts';

/**
 * Entries of the largest block (2^23: 128 MiB for its four columns). A block is a resizable ArrayBuffer: V8 maps it
 * from the system, not from the C library's heap, pages count as resident only once written, and shrinking it to
 * nothing gives them back at once, without waiting for a garbage collection to find the buffer unreachable.
 */
const MAX_BLOCK = 1 << 23;
const MIN_BLOCK = 1 << 12;
/**
 * Bytes a block gives back per step. V8 clears what a resizable buffer gives back: 128 MB in one step took 43 ms
 * on the development machine, one task too long for the event loop.
 */
const SHRINK_STEP = 1 << 23;
/** Postings expected per note when sizing the first block: about 180 distinct words per 2 KB note. */
const POSTINGS_PER_NOTE = 256;

/** One block of postings in arrival order: word number, document, packed weight and fields, first body offset. */
interface Block {
  buffer: ArrayBuffer;
  word: Int32Array;
  doc: Int32Array;
  packed: Int32Array;
  firstBody: Int32Array;
  length: number;
}

/**
 * Builds a vault's index from scratch, straight into the compact form a stored index has (IndexState): every note's
 * postings are appended to a few large blocks, then sorted by word once into arrays of exact size. Building word
 * lists that double as they grow instead (VaultSearchIndex.upsert) leaves the garbage of hundreds of thousands of
 * small buffers: a 20,000-note gateway held 444 MB after building its index that way (with pages of 2,000 notes,
 * whose texts lingered in the old generation too), 285-296 MB now, against 254-265 MB with the same index loaded
 * (docs/operations.md, "Memory").
 */
export class IndexBuilder {
  private readonly docs: IndexStateDoc[] = [];
  /** The notes' search texts while they fit the budget (MAX_KEPT_TEXT_CHARS), then undefined. */
  private texts: string[] | undefined = [];
  private textChars = 0;
  private readonly wordNumbers = new Map<string, number>();
  private readonly words: string[] = [];
  private wordCounts = new Int32Array(1024);
  private readonly blocks: Block[] = [];
  private nextBlock: number;

  /** `expectedNotes` sizes the first block (a small vault then reserves little). */
  constructor(
    expectedNotes: number,
    private readonly maxKeptTextChars: number = MAX_KEPT_TEXT_CHARS,
  ) {
    this.nextBlock = Math.min(MAX_BLOCK, Math.max(MIN_BLOCK, 2 ** Math.ceil(Math.log2(Math.max(1, expectedNotes) * POSTINGS_PER_NOTE))));
  }

  /** Notes added so far. */
  get size(): number {
    return this.docs.length;
  }

  /** Adds a note as the next document; each note is added once. */
  add(note: IndexedNote): void {
    const doc = this.docs.length;
    const { counts, length } = countNoteWords(note);
    for (const [word, { weight, fields, firstBody }] of counts) {
      let number = this.wordNumbers.get(word);
      if (number === undefined) {
        number = this.words.length;
        this.wordNumbers.set(word, number);
        this.words.push(word);
        if (number === this.wordCounts.length) {
          const grown = new Int32Array(number * 2);
          grown.set(this.wordCounts);
          this.wordCounts = grown;
        }
      }
      this.wordCounts[number]! += 1;
      const block = this.blockWithRoom();
      const at = block.length++;
      block.word[at] = number;
      block.doc[at] = doc;
      block.packed[at] = (weight << 3) | fields;
      block.firstBody[at] = firstBody;
    }
    this.docs.push({ noteId: note.noteId, path: note.path, title: note.title, tagKeys: note.tagKeys, length });
    this.textChars += note.searchText.length;
    if (this.textChars > this.maxKeptTextChars) this.texts = undefined;
    else this.texts?.push(note.searchText);
  }

  /** The notes' search texts in document order, for an index to keep, or undefined when they are over its budget. */
  searchTexts(): readonly string[] | undefined {
    return this.texts;
  }

  /**
   * The built index as plain data at `version`, in slices. Each word's postings come out in document order, as
   * they went in. The builder is spent afterwards: its blocks are freed.
   */
  async finish(version: number, slices: Slices): Promise<IndexState> {
    const wordCount = this.words.length;
    const offsets = new Int32Array(wordCount + 1);
    for (let k = 0; k < wordCount; k++) offsets[k + 1] = offsets[k]! + this.wordCounts[k]!;
    const total = offsets[wordCount]!;
    const docNumbers = new Int32Array(total);
    const packed = new Int32Array(total);
    const firstBody = new Int32Array(total);
    const next = offsets.slice(0, wordCount);
    while (this.blocks.length > 0) {
      const block = this.blocks.shift()!;
      for (let i = 0; i < block.length; i++) {
        const at = next[block.word[i]!]!++;
        docNumbers[at] = block.doc[i]!;
        packed[at] = block.packed[i]!;
        firstBody[at] = block.firstBody[i]!;
        if ((i & 0xffff) === 0 && slices.due()) await slices.pause();
      }
      await shrinkToNothing(block.buffer, slices);
    }
    return { version, docs: this.docs, words: this.words, offsets, docNumbers, packed, firstBody };
  }

  private blockWithRoom(): Block {
    const last = this.blocks[this.blocks.length - 1];
    if (last && last.length < last.word.length) return last;
    const size = this.nextBlock;
    this.nextBlock = MAX_BLOCK;
    const buffer = new ArrayBuffer(16 * size, { maxByteLength: 16 * size });
    const column = (k: number) => new Int32Array(buffer, 4 * k * size, size);
    const block = { buffer, word: column(0), doc: column(1), packed: column(2), firstBody: column(3), length: 0 };
    this.blocks.push(block);
    return block;
  }
}

/** Gives a block's pages back to the system in steps of SHRINK_STEP bytes, pausing between slices. */
async function shrinkToNothing(buffer: ArrayBuffer, slices: Slices): Promise<void> {
  while (buffer.byteLength > 0) {
    if (slices.due()) await slices.pause();
    buffer.resize(Math.max(0, buffer.byteLength - SHRINK_STEP));
  }
}
