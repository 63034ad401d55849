/**
 * Which target items are worth scoring for a source item (blocking), so that two slices of 2,000 items do not cost
 * 4,000,000 full comparisons. A target item is scored when any of these holds:
 * - it has the same item identifier (two versions of one framework), or a CFAssociation already relates the two;
 * - its normalized code equals the source's, or one ends with the other (a publisher prefix);
 * - it is among the TERM_CANDIDATES target items whose statements share the most term weight with the source's,
 *   found through the target's term postings (an inverted index), so that only items sharing a term are touched.
 *   Terms held by more than a quarter of the target are skipped there: they tell items apart least, and touching
 *   most items for them is what blocking avoids. Ties go to the item that comes first in identifier order.
 * Everything is keyed by values, never by input order, so the candidate sets are the same for any order.
 * docs/benchmarks.md ("Education analysis") measures what blocking saves and what it misses against every pair.
 */
import { codeSuffixes } from './codes.ts';
import type { Declared, PreparedFramework, PreparedItem } from './framework.ts';
import type { TermVector } from './terms.ts';

/** Target items kept per source item by shared term weight. */
export const TERM_CANDIDATES = 32;

/** The target indexed for blocking, with a scratch accumulator reused across source items. */
export interface TargetIndex {
  byIdentifier: ReadonlyMap<string, number>;
  /** Target items by normalized code. */
  byCode: ReadonlyMap<string, number[]>;
  /** Target items by every suffix of at least two segments of their normalized code. */
  bySuffix: ReadonlyMap<string, number[]>;
  /** Target items holding each term id (ascending item index), for terms held by at most a quarter of the target. */
  postings: ReadonlyMap<number, number[]>;
  /** Shared term weight per target item, for the source item at hand (zeroed after each). */
  accumulator: Float64Array;
}

function push<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Indexes the target's items (in their prepared order, so lists come out ascending). */
export function indexTarget(target: PreparedFramework, vectors: readonly TermVector[]): TargetIndex {
  const byIdentifier = new Map<string, number>();
  const byCode = new Map<string, number[]>();
  const bySuffix = new Map<string, number[]>();
  const postings = new Map<number, number[]>();
  target.items.forEach((item, k) => {
    byIdentifier.set(item.identifier, k);
    if (item.normalizedCode !== null) push(byCode, item.normalizedCode, k);
    if (item.segments !== null) for (const suffix of codeSuffixes(item.segments)) push(bySuffix, suffix, k);
    for (const id of vectors[k]!.ids) push(postings, id, k);
  });
  const common = Math.max(8, Math.floor(target.items.length / 4));
  for (const [id, list] of postings) if (list.length > common) postings.delete(id);
  return { byIdentifier, byCode, bySuffix, postings, accumulator: new Float64Array(target.items.length) };
}

/** The `limit` touched items with the most shared weight (then the smaller index), through a small min-heap. */
function topByWeight(touched: readonly number[], weight: Float64Array, limit: number): number[] {
  const heap: number[] = [];
  // "Worse" is less weight, or equal weight and a larger index: the heap's root is the worst kept item.
  const worse = (a: number, b: number) => weight[a]! < weight[b]! || (weight[a] === weight[b] && a > b);
  const siftDown = (at: number) => {
    for (;;) {
      const [l, r] = [2 * at + 1, 2 * at + 2];
      let worst = at;
      if (l < heap.length && worse(heap[l]!, heap[worst]!)) worst = l;
      if (r < heap.length && worse(heap[r]!, heap[worst]!)) worst = r;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  };
  for (const k of touched) {
    if (heap.length < limit) {
      heap.push(k);
      for (let at = heap.length - 1; at > 0 && worse(heap[at]!, heap[(at - 1) >> 1]!); at = (at - 1) >> 1) {
        [heap[at], heap[(at - 1) >> 1]] = [heap[(at - 1) >> 1]!, heap[at]!];
      }
    } else if (worse(heap[0]!, k)) {
      heap[0] = k;
      siftDown(0);
    }
  }
  return heap;
}

/** The target items to score for one source item, ascending. */
export function blockCandidates(item: PreparedItem, vector: TermVector, index: TargetIndex, declared: Declared, weight2: Float64Array): number[] {
  const found = new Set<number>();
  const same = index.byIdentifier.get(item.identifier);
  if (same !== undefined) found.add(same);
  for (const related of declared.get(item.identifier)?.keys() ?? []) {
    const k = index.byIdentifier.get(related);
    if (k !== undefined) found.add(k);
  }
  if (item.segments !== null) {
    // The target's code ends with the source's (or equals it)...
    for (const k of index.bySuffix.get(item.normalizedCode!) ?? []) found.add(k);
    // ...or the source's ends with the target's.
    for (const suffix of codeSuffixes(item.segments)) for (const k of index.byCode.get(suffix) ?? []) found.add(k);
  }
  const { accumulator } = index;
  const touched: number[] = [];
  for (const id of vector.ids) {
    for (const k of index.postings.get(id) ?? []) {
      if (accumulator[k] === 0) touched.push(k);
      accumulator[k] = accumulator[k]! + weight2[id]!;
    }
  }
  for (const k of topByWeight(touched, accumulator, TERM_CANDIDATES)) found.add(k);
  for (const k of touched) accumulator[k] = 0;
  return [...found].sort((a, b) => a - b);
}
