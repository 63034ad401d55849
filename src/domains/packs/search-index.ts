/**
 * The in-memory BM25 index of one pack version's assertions, built once per version: each assertion is a document
 * made of its statement (weighted higher), its evidence quotes and the titles of the sources it cites.
 *
 * Scoring at a cutoff depends only on the assertions available at that cutoff: the number of documents, each word's
 * document frequency and the average length are those of the available assertions, so the ranking and the scores at
 * a cutoff are exactly those of a pack holding only what was available then. Nothing later leaks through a
 * statistic. To keep a query cheap on large packs, the work follows the query words' postings: document frequencies
 * are counted on them, and the count and total length of the available documents come from a precomputed, sorted
 * list of availability events with prefix sums (a binary search per query).
 */
import { KgateError } from '../../kernel/errors.ts';
import type { Slices } from '../../kernel/slices.ts';
import { forEachWord } from '../search/index.ts';
import type { CalendarDate } from './contract.ts';
import { dayNumber, NEVER, type IntervalTable } from './interval-table.ts';

/** Longest question accepted, in characters. */
export const MAX_QUESTION_CHARS = 500;

// BM25's usual constants (those of the notes search): term-frequency saturation and length normalization.
const K1 = 1.2;
const B = 0.75;
/** Occurrences in the statement count three times: the statement is what the assertion says; quotes support it. */
const STATEMENT_WEIGHT = 3;

/** What the index reads of one assertion, in pack order. */
export interface PackSearchDocument {
  statement: string;
  quotes: readonly string[];
  /** Titles of the sources its evidence cites, each once. */
  sourceTitles: readonly string[];
}

/** One ranked result: the document's position in pack order and its score, rounded to 4 decimals. */
export interface PackSearchHit {
  doc: number;
  score: number;
}

/**
 * The distinct folded words of a question, in order of first occurrence. A question is 1 to MAX_QUESTION_CHARS
 * characters holding at least one word; anything else is `invalid_request` naming the field `question`.
 */
export function questionWords(question: string): string[] {
  if (question.length === 0 || question.length > MAX_QUESTION_CHARS) {
    throw new KgateError('invalid_request', `A question has 1 to ${MAX_QUESTION_CHARS} characters.`, { field: 'question' });
  }
  const seen = new Set<string>();
  forEachWord(question, (word) => seen.add(word));
  if (seen.size === 0) throw new KgateError('invalid_request', 'The question has no words to search for.', { field: 'question' });
  return [...seen];
}

/** The postings of a set of documents, as the index keeps them (see PackSearchIndex). */
interface Postings {
  wordIds: Map<string, number>;
  offsets: Int32Array;
  docs: Int32Array;
  weights: Int32Array;
  /** By document: its weighted length. */
  lengths: Int32Array;
}

/**
 * Reads documents one at a time (so that a build can pause between them) into (word, document, weight) triples in
 * document order, then groups them by word with a counting sort. One visitor serves every text (no closure per
 * document): `weight` is the weight of the text being read, `weightOf` the weights of the current document's words
 * by word id, and `docWords` the ids it holds.
 */
class PostingsBuilder {
  private readonly wordIds = new Map<string, number>();
  private readonly tripleWords: number[] = [];
  private readonly tripleDocs: number[] = [];
  private readonly tripleWeights: number[] = [];
  private readonly lengths: number[] = [];
  private readonly weightOf: number[] = [];
  private readonly docWords: number[] = [];
  private weight = 0;
  private length = 0;
  private readonly visit = (word: string): void => {
    let id = this.wordIds.get(word);
    if (id === undefined) {
      id = this.wordIds.size;
      this.wordIds.set(word, id);
      this.weightOf.push(0);
    }
    if (this.weightOf[id] === 0) this.docWords.push(id);
    this.weightOf[id]! += this.weight;
    this.length += this.weight;
  };

  add(document: PackSearchDocument): void {
    const doc = this.lengths.length;
    this.length = 0;
    this.weight = STATEMENT_WEIGHT;
    forEachWord(document.statement, this.visit);
    this.weight = 1;
    for (const quote of document.quotes) forEachWord(quote, this.visit);
    for (const title of document.sourceTitles) forEachWord(title, this.visit);
    for (const id of this.docWords) {
      this.tripleWords.push(id);
      this.tripleDocs.push(doc);
      this.tripleWeights.push(this.weightOf[id]!);
      this.weightOf[id] = 0;
    }
    this.docWords.length = 0;
    this.lengths.push(this.length);
  }

  finish(): Postings {
    const { wordIds, tripleWords, tripleDocs, tripleWeights } = this;
    const offsets = new Int32Array(wordIds.size + 1);
    for (const id of tripleWords) offsets[id + 1]! += 1;
    for (let k = 0; k < wordIds.size; k++) offsets[k + 1]! += offsets[k]!;
    const next = offsets.slice(0, wordIds.size);
    const docs = new Int32Array(tripleWords.length);
    const weights = new Int32Array(tripleWords.length);
    for (let t = 0; t < tripleWords.length; t++) {
      const at = next[tripleWords[t]!]!++;
      docs[at] = tripleDocs[t]!;
      weights[at] = tripleWeights[t]!;
    }
    return { wordIds, offsets, docs, weights, lengths: Int32Array.from(this.lengths) };
  }
}

/**
 * The BM25 index of a pack version's assertions. Postings are typed arrays (compressed sparse rows): the postings
 * of word k are entries `offsets[k]` to `offsets[k + 1]`, in increasing document order.
 */
export class PackSearchIndex {
  private readonly wordIds: Map<string, number>;
  private readonly offsets: Int32Array;
  private readonly postingDocs: Int32Array;
  private readonly postingWeights: Int32Array;
  private readonly lengths: Int32Array;
  /** By document: the first day it is available and the day it stops (the assertions' IntervalTable). */
  private readonly from: Int32Array;
  private readonly ends: Int32Array;
  /** Days on which the set of available documents changes, ascending, and the count and total length from each on. */
  private readonly eventDays: Int32Array;
  private readonly availableCounts: Int32Array;
  private readonly availableLengths: Float64Array;
  // Scratch space of one query (queries run synchronously, one at a time).
  private readonly scores: Float64Array;
  private readonly touched: Int32Array;
  private readonly availableDocs: Int32Array;
  private readonly availableWeights: Int32Array;

  /** Indexes `documents`, available on the intervals of `intervals` (one per document, in the same order). */
  static build(documents: readonly PackSearchDocument[], intervals: IntervalTable): PackSearchIndex {
    const builder = new PostingsBuilder();
    for (const document of documents) builder.add(document);
    return new PackSearchIndex(builder.finish(), intervals);
  }

  /** The same index, built in slices: the event loop serves others between slices (a large pack takes a while). */
  static async buildInSlices(documents: readonly PackSearchDocument[], intervals: IntervalTable, slices: Slices): Promise<PackSearchIndex> {
    const builder = new PostingsBuilder();
    for (const document of documents) {
      builder.add(document);
      if (slices.due()) await slices.pause();
    }
    return new PackSearchIndex(builder.finish(), intervals);
  }

  private constructor(postings: Postings, intervals: IntervalTable) {
    if (intervals.size !== postings.lengths.length) throw new Error('the search index needs one availability interval per document');
    this.wordIds = postings.wordIds;
    this.offsets = postings.offsets;
    this.postingDocs = postings.docs;
    this.postingWeights = postings.weights;
    this.lengths = postings.lengths;
    this.from = intervals.starts;
    this.ends = intervals.ends;
    this.scores = new Float64Array(intervals.size);
    this.touched = new Int32Array(intervals.size);
    // A word has at most one posting per document.
    this.availableDocs = new Int32Array(intervals.size);
    this.availableWeights = new Int32Array(intervals.size);
    ({ days: this.eventDays, counts: this.availableCounts, lengths: this.availableLengths } = availabilityEvents(this.from, this.ends, this.lengths));
  }

  /** How many documents are available at `asOf`. */
  availableCount(asOf: CalendarDate): number {
    const at = this.eventAt(dayNumber(asOf));
    return at < 0 ? 0 : this.availableCounts[at]!;
  }

  /**
   * The `limit` best documents available at `asOf` holding any of `words` (folded, distinct), by rounded score,
   * then pack order. Each word adds its BM25 term, in the order of `words`, so equal inputs sum equally.
   */
  search(words: readonly string[], asOf: CalendarDate, limit: number): PackSearchHit[] {
    const day = dayNumber(asOf);
    const at = this.eventAt(day);
    const total = at < 0 ? 0 : this.availableCounts[at]!;
    if (total === 0 || limit <= 0) return [];
    const averageLength = this.availableLengths[at]! / total;
    const { from, ends, scores, touched, availableDocs, availableWeights, postingDocs, postingWeights, lengths } = this;
    let touchedCount = 0;
    for (const word of words) {
      const id = this.wordIds.get(word);
      if (id === undefined) continue;
      // The word's postings available at the cutoff: their count is its document frequency there.
      let frequency = 0;
      for (let i = this.offsets[id]!, end = this.offsets[id + 1]!; i < end; i++) {
        const doc = postingDocs[i]!;
        if (from[doc]! <= day && ends[doc]! > day) {
          availableDocs[frequency] = doc;
          availableWeights[frequency] = postingWeights[i]!;
          frequency += 1;
        }
      }
      if (frequency === 0) continue;
      const idf = Math.log(1 + (total - frequency + 0.5) / (frequency + 0.5));
      for (let k = 0; k < frequency; k++) {
        const doc = availableDocs[k]!;
        const weight = availableWeights[k]!;
        const norm = K1 * (1 - B + (B * lengths[doc]!) / averageLength);
        // idf > 0 always, so a touched document's score is never 0.
        if (scores[doc] === 0) touched[touchedCount++] = doc;
        scores[doc]! += (idf * weight * (K1 + 1)) / (weight + norm);
      }
    }
    const best = bestOf(scores, touched, touchedCount, limit);
    for (let k = 0; k < touchedCount; k++) scores[touched[k]!] = 0;
    return best;
  }

  /** The index of the last availability event on or before `day`, -1 when none. */
  private eventAt(day: number): number {
    let low = 0;
    let high = this.eventDays.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.eventDays[mid]! <= day) low = mid + 1;
      else high = mid;
    }
    return low - 1;
  }
}

/**
 * The days the available set changes, ascending, with the count and total length of the available documents from
 * each day on. A document whose interval is empty is never available and adds no event.
 */
function availabilityEvents(from: Int32Array, ends: Int32Array, lengths: Int32Array): { days: Int32Array; counts: Int32Array; lengths: Float64Array } {
  const changes = new Map<number, { count: number; length: number }>();
  const change = (day: number, count: number, length: number) => {
    const entry = changes.get(day) ?? { count: 0, length: 0 };
    entry.count += count;
    entry.length += length;
    changes.set(day, entry);
  };
  for (let doc = 0; doc < from.length; doc++) {
    if (ends[doc]! <= from[doc]!) continue;
    change(from[doc]!, 1, lengths[doc]!);
    if (ends[doc]! !== NEVER) change(ends[doc]!, -1, -lengths[doc]!);
  }
  const days = Int32Array.from([...changes.keys()].sort((a, b) => a - b));
  const counts = new Int32Array(days.length);
  const totals = new Float64Array(days.length);
  let count = 0;
  let length = 0;
  days.forEach((day, k) => {
    const entry = changes.get(day)!;
    count += entry.count;
    length += entry.length;
    counts[k] = count;
    totals[k] = length;
  });
  return { days, counts, lengths: totals };
}

/** The `limit` best touched documents by rounded score, then document (pack) order: a small sorted insertion list. */
function bestOf(scores: Float64Array, touched: Int32Array, count: number, limit: number): PackSearchHit[] {
  const best: PackSearchHit[] = [];
  const before = (score: number, doc: number, other: PackSearchHit) => score > other.score || (score === other.score && doc < other.doc);
  for (let k = 0; k < count; k++) {
    const doc = touched[k]!;
    const score = Math.round(scores[doc]! * 10_000) / 10_000;
    if (best.length === limit) {
      if (!before(score, doc, best[limit - 1]!)) continue;
      best.pop();
    }
    let at = best.length;
    while (at > 0 && before(score, doc, best[at - 1]!)) at -= 1;
    best.splice(at, 0, { doc, score });
  }
  return best;
}
