/**
 * Statement similarity over both slices' terms: every term gets an id in code-unit order and a weight by its rarity
 * across both slices (inverse document frequency), and two statements compare by the cosine of their weighted term
 * sets. Sums run in term-id order, so the same statements give the same float whatever order they came in.
 */

/** The shared vocabulary of both slices. */
export interface Vocabulary {
  /** Term id by term. */
  ids: ReadonlyMap<string, number>;
  /** Squared weight (idf squared) by term id. */
  weight2: Float64Array;
}

/** A statement as sorted term ids and its vector norm. */
export interface TermVector {
  ids: Int32Array;
  norm: number;
}

/**
 * The vocabulary of some term sets (one per item of both slices): idf(t) = ln(1 + N / df(t)), N the number of sets,
 * df(t) how many contain t.
 */
export function vocabularyOf(termSets: ReadonlyArray<readonly string[]>): Vocabulary {
  const df = new Map<string, number>();
  for (const terms of termSets) for (const term of terms) df.set(term, (df.get(term) ?? 0) + 1);
  const sorted = [...df.keys()].sort();
  const ids = new Map<string, number>();
  const weight2 = new Float64Array(sorted.length);
  const n = Math.max(1, termSets.length);
  sorted.forEach((term, id) => {
    ids.set(term, id);
    const idf = Math.log(1 + n / df.get(term)!);
    weight2[id] = idf * idf;
  });
  return { ids, weight2 };
}

/** A term set as a vector of the vocabulary (terms are sorted by code unit, so ids come out ascending). */
export function vectorOf(terms: readonly string[], vocabulary: Vocabulary): TermVector {
  const ids = new Int32Array(terms.length);
  let sum = 0;
  terms.forEach((term, k) => {
    const id = vocabulary.ids.get(term)!;
    ids[k] = id;
    sum += vocabulary.weight2[id]!;
  });
  return { ids, norm: Math.sqrt(sum) };
}

/** The weighted cosine of two vectors and how many terms they share. */
export function cosine(a: TermVector, b: TermVector, weight2: Float64Array): { similarity: number; shared: number } {
  if (a.norm === 0 || b.norm === 0) return { similarity: 0, shared: 0 };
  let i = 0;
  let j = 0;
  let dot = 0;
  let shared = 0;
  while (i < a.ids.length && j < b.ids.length) {
    const x = a.ids[i]!;
    const y = b.ids[j]!;
    if (x === y) {
      dot += weight2[x]!;
      shared += 1;
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return { similarity: Math.min(1, dot / (a.norm * b.norm)), shared };
}
