/**
 * The score of one (source, target) pair: a weighted sum of its signals, each 0 to 1, with floors when the slices
 * themselves say the items correspond. Signals that are unknown on either side (no code, no grades) count half,
 * as no evidence either way. The weights and floors are the method (docs/education.md).
 */
import { compareCodes } from './codes.ts';
import type { CrosswalkSignals } from './contract.ts';
import type { Declared, DomainAnchor, PreparedItem } from './framework.ts';
import { compareGrades, compareSubjects } from './levels.ts';
import { cosine, vectorOf, type TermVector, type Vocabulary } from './terms.ts';

/** The weight of each signal; they sum to 1. */
export const WEIGHTS = { statement: 0.4, code: 0.25, grades: 0.15, subjects: 0.1, domain: 0.1 } as const;

/** What every signal but the statement and the code can add at most: the bound used to skip hopeless pairs. */
const OTHER_SIGNALS = WEIGHTS.grades + WEIGHTS.subjects + WEIGHTS.domain;

/** Confidence floors when a slice already declares the pair, or the same item is in both. */
export const FLOORS = { sameItemIdentifier: 0.95, declaredMatch: 0.9 } as const;

/** Declared association types that floor the confidence (the others are reported, not floored). */
const MATCH_TYPES: ReadonlySet<string> = new Set(['exactMatchOf', 'replacedBy']);

/** Domain anchors' statements at least this similar are `similar` domains. */
const SIMILAR_DOMAIN = 0.5;

/** Rounds a score to four decimals, as every number of the answer is. */
export function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

/** What the scorer needs besides the two items. */
export interface PairContext {
  vocabulary: Vocabulary;
  /** Both slices' declared correspondences, merged. */
  declared: Declared;
  /** Domain anchors' statement vectors, made once each. */
  anchorVectors: Map<DomainAnchor, TermVector>;
}

type DomainMatch = CrosswalkSignals['domain']['match'];

function anchorVector(anchor: DomainAnchor, terms: readonly string[], context: PairContext): TermVector {
  let vector = context.anchorVectors.get(anchor);
  if (!vector) {
    vector = vectorOf(terms, context.vocabulary);
    context.anchorVectors.set(anchor, vector);
  }
  return vector;
}

function compareDomains(a: DomainAnchor | null, b: DomainAnchor | null, context: PairContext): { match: DomainMatch; score: number } {
  if (a === null || b === null) return { match: 'unknown', score: 0.5 };
  if ((a.code !== null && a.code === b.code) || (a.identifier !== null && a.identifier === b.identifier)) return { match: 'same', score: 1 };
  if (a.terms !== null && b.terms !== null) {
    const similarity = cosine(anchorVector(a, a.terms, context), anchorVector(b, b.terms, context), context.vocabulary.weight2).similarity;
    if (similarity >= SIMILAR_DOMAIN) return { match: 'similar', score: round4(similarity) };
  }
  return { match: 'different', score: 0 };
}

function declaredBetween(source: PreparedItem, target: PreparedItem, context: PairContext): string | null {
  return context.declared.get(source.identifier)?.get(target.identifier) ?? null;
}

/** The confidence of a pair, or undefined when it cannot reach `minConfidence` (checked cheaply first). */
export function pairConfidence(
  source: PreparedItem,
  sourceVector: TermVector,
  target: PreparedItem,
  targetVector: TermVector,
  context: PairContext,
  minConfidence: number,
): number | undefined {
  const sameItem = source.identifier === target.identifier;
  const declared = declaredBetween(source, target, context);
  const floor = sameItem ? FLOORS.sameItemIdentifier : declared !== null && MATCH_TYPES.has(declared) ? FLOORS.declaredMatch : 0;
  const code = compareCodes(source.segments, target.segments).score;
  const statement = cosine(sourceVector, targetVector, context.vocabulary.weight2).similarity;
  const partial = WEIGHTS.statement * statement + WEIGHTS.code * code;
  if (floor < minConfidence && partial + OTHER_SIGNALS < minConfidence) return undefined;
  const rest =
    WEIGHTS.grades * compareGrades(source.grades, target.grades).score +
    WEIGHTS.subjects * compareSubjects(source.subjects, target.subjects).score +
    WEIGHTS.domain * compareDomains(source.domain, target.domain, context).score;
  const confidence = round4(Math.max(floor, partial + rest));
  return confidence >= minConfidence ? confidence : undefined;
}

/** Every signal of a pair, for the answer. */
export function pairSignals(source: PreparedItem, sourceVector: TermVector, target: PreparedItem, targetVector: TermVector, context: PairContext): CrosswalkSignals {
  const code = compareCodes(source.segments, target.segments);
  const statement = cosine(sourceVector, targetVector, context.vocabulary.weight2);
  const grades = compareGrades(source.grades, target.grades);
  const subjects = compareSubjects(source.subjects, target.subjects);
  const domain = compareDomains(source.domain, target.domain, context);
  const anchor = (a: DomainAnchor | null) => (a === null ? null : { via: a.via, identifier: a.identifier, code: a.code });
  return {
    framework: { sameItemIdentifier: source.identifier === target.identifier, declared: declaredBetween(source, target, context) },
    code: { match: code.match, score: code.score, normalizedSource: source.normalizedCode, normalizedTarget: target.normalizedCode },
    statement: { similarity: round4(statement.similarity), sharedTerms: statement.shared },
    grades: { ...grades, source: [...source.grades.all], target: [...target.grades.all] },
    subjects: { ...subjects, source: [...source.subjects], target: [...target.subjects] },
    domain: { ...domain, source: anchor(source.domain), target: anchor(target.domain) },
  };
}
