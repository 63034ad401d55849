/**
 * Near-duplicate artifacts, found without their content:
 * - `content-fingerprint`: the partner sends each artifact's bottom-k sketch of shingle hashes (docs/education.md);
 *   two sketches estimate the Jaccard similarity of the two contents as |S ∩ A ∩ B| / |S|, where S is the k smallest
 *   hashes of A ∪ B and k the smaller sketch's size. At NEAR_DUPLICATE_SIMILARITY or above they are near-duplicates.
 * - `same-title-format-language`: same normalized title, format and language (a copy saved twice).
 * Pairs join into groups (connected components); each group names its preferred artifact. Pure and order-free:
 * pairs are found through hash postings and reported sorted.
 */
import type { NearDuplicateGroup } from './contract.ts';
import { byCodeUnit, normalizeTag, primaryLanguage } from './signals.ts';

/** Estimated Jaccard similarity from which two fingerprints are near-duplicates. */
export const NEAR_DUPLICATE_SIMILARITY = 0.8;

/** What near-duplicate detection reads of an artifact. */
export interface DuplicateFacts {
  id: string;
  title: string;
  format: string;
  language: string;
  /** Sorted unique hashes (16 hex digits sort as their numbers). */
  sketch: readonly string[];
  accepted: boolean;
  score: number;
  updatedAtMs: number;
}

/** A title as compared: NFKD without marks, lower case, words only. */
function titleKey(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .join(' ');
}

/** The bottom-k estimate of the Jaccard similarity of two sorted sketches. */
export function sketchSimilarity(a: readonly string[], b: readonly string[]): number {
  const k = Math.min(a.length, b.length);
  if (k === 0) return 0;
  let i = 0;
  let j = 0;
  let taken = 0;
  let both = 0;
  while (taken < k && (i < a.length || j < b.length)) {
    const x = a[i];
    const y = b[j];
    if (x !== undefined && x === y) {
      both += 1;
      i += 1;
      j += 1;
    } else if (y === undefined || (x !== undefined && x < y)) i += 1;
    else j += 1;
    taken += 1;
  }
  return Math.round((both / k) * 10_000) / 10_000;
}

type Pair = NearDuplicateGroup['pairs'][number];

/**
 * Pairs (i < j) sharing enough hashes to possibly reach the threshold, counted through hash postings in an n x n
 * table (at most 250 x 250), then estimated.
 */
function fingerprintPairs(items: readonly DuplicateFacts[]): Pair[] {
  const n = items.length;
  const postings = new Map<string, number[]>();
  items.forEach((item, k) => item.sketch.forEach((hash) => (postings.get(hash) ?? postings.set(hash, []).get(hash)!).push(k)));
  const shared = new Int32Array(n * n);
  for (const list of postings.values()) {
    for (let x = 0; x < list.length; x++) for (let y = x + 1; y < list.length; y++) shared[list[x]! * n + list[y]!]! += 1;
  }
  const pairs: Pair[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const count = shared[i * n + j]!;
      const a = items[i]!;
      const b = items[j]!;
      // The estimate's numerator is at most the hashes they share: below the threshold share of k it cannot qualify.
      if (count === 0 || count < NEAR_DUPLICATE_SIMILARITY * Math.min(a.sketch.length, b.sketch.length)) continue;
      const similarity = sketchSimilarity(a.sketch, b.sketch);
      if (similarity >= NEAR_DUPLICATE_SIMILARITY) pairs.push(orderedPair(a.id, b.id, 'content-fingerprint', similarity));
    }
  }
  return pairs;
}

function orderedPair(x: string, y: string, reason: Pair['reason'], similarity: number): Pair {
  return byCodeUnit(x, y) < 0 ? { a: x, b: y, reason, similarity } : { a: y, b: x, reason, similarity };
}

/** Same normalized title, format and language. */
function metadataPairs(items: readonly DuplicateFacts[]): Pair[] {
  const byKey = new Map<string, string[]>();
  for (const item of items) {
    const key = `${titleKey(item.title)}\u0000${normalizeTag(item.format)}\u0000${primaryLanguage(item.language)}`;
    (byKey.get(key) ?? byKey.set(key, []).get(key)!).push(item.id);
  }
  const pairs: Pair[] = [];
  for (const ids of byKey.values()) {
    for (let x = 0; x < ids.length; x++) for (let y = x + 1; y < ids.length; y++) pairs.push(orderedPair(ids[x]!, ids[y]!, 'same-title-format-language', 1));
  }
  return pairs;
}

/** The preferred artifact of a group: accepted first, then the higher score, then the most recent, then the smaller id. */
function preferred(members: readonly DuplicateFacts[]): string {
  return [...members].sort(
    (a, b) => Number(b.accepted) - Number(a.accepted) || b.score - a.score || b.updatedAtMs - a.updatedAtMs || byCodeUnit(a.id, b.id),
  )[0]!.id;
}

/** The near-duplicate groups of some artifacts, sorted by their smallest id; groups are named dup-1, dup-2... in that order. */
export function nearDuplicateGroups(items: readonly DuplicateFacts[]): NearDuplicateGroup[] {
  const pairs = [...fingerprintPairs(items), ...metadataPairs(items)].sort(
    (p, q) => byCodeUnit(p.a, q.a) || byCodeUnit(p.b, q.b) || byCodeUnit(p.reason, q.reason),
  );
  const parent = new Map<string, string>();
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== undefined && parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const { a, b } of pairs) {
    const [ra, rb] = [root(a), root(b)];
    // The smaller id becomes the root, so components come out the same whatever the pairs' order.
    if (ra !== rb) parent.set(byCodeUnit(ra, rb) < 0 ? rb : ra, byCodeUnit(ra, rb) < 0 ? ra : rb);
  }
  const byId = new Map(items.map((item) => [item.id, item]));
  const components = new Map<string, string[]>();
  for (const id of new Set(pairs.flatMap((p) => [p.a, p.b]))) (components.get(root(id)) ?? components.set(root(id), []).get(root(id))!).push(id);
  return [...components.values()]
    .map((ids) => ids.sort())
    .sort((x, y) => byCodeUnit(x[0]!, y[0]!))
    .map((ids, k) => ({
      group: `dup-${k + 1}`,
      ids,
      preferred: preferred(ids.map((id) => byId.get(id)!)),
      pairs: pairs.filter((p) => ids.includes(p.a)),
    }));
}
