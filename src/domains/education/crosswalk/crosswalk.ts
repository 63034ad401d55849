/**
 * The standards crosswalk (spec 4.7, docs/education.md): candidate mappings from each item of a source framework
 * slice to items of a target slice, with confidence, signals and a review rationale. Pure and deterministic: the
 * same slices give the same answer byte for byte, whatever the order of their lists; ties go to the smaller
 * identifier. The answer holds identifiers and codes only, never statement text, and every mapping is a proposal.
 */
import type { Slices } from '../../../kernel/slices.ts';
import { blockCandidates, indexTarget } from './blocking.ts';
import { DEFAULT_CANDIDATES_PER_ITEM, DEFAULT_MIN_CONFIDENCE, type CrosswalkCandidate, type CrosswalkInput, type CrosswalkResult } from './contract.ts';
import { mergeDeclared, prepareFramework, type PreparedFramework } from './framework.ts';
import { rationaleOf } from './rationale.ts';
import { FLOORS, WEIGHTS, pairConfidence, pairSignals, type PairContext } from './score.ts';
import { vectorOf, vocabularyOf } from './terms.ts';
import { byCodeUnit } from './text.ts';

/** The method's version, in every answer: a change of weights, terms or rules is a new version. */
export const CROSSWALK_METHOD = 'crosswalk-1';

/** Confidence bands. */
export const BANDS = { high: 0.8, medium: 0.6 } as const;

/** What every answer says about review. */
const REVIEW_NOTE =
  'Every mapping is a machine proposal from identifiers, codes, grades, subjects, domains and statement terms. ' +
  'A person must read both statements and decide before any association is recorded; nothing was recorded.';

/** How candidates are searched: `blocked` (the service) or `exhaustive` (every pair; the benchmark's reference). */
export type CandidateSearch = 'blocked' | 'exhaustive';

function relationOf(source: PreparedFramework['document'], target: PreparedFramework['document']): CrosswalkResult['frameworks']['relation'] {
  if (source.identifier === target.identifier || (source.uri !== null && source.uri === target.uri)) return 'same-document';
  if (source.creator !== null && source.creator === target.creator) return 'same-creator';
  return 'different';
}

function bandOf(confidence: number): CrosswalkCandidate['band'] {
  return confidence >= BANDS.high ? 'high' : confidence >= BANDS.medium ? 'medium' : 'low';
}

/** Keeps the best `k` (confidence descending, then target identifier ascending) in a short sorted array. */
function keepBest(best: Array<{ k: number; confidence: number; id: string }>, entry: { k: number; confidence: number; id: string }, limit: number): void {
  const before = (a: typeof entry, b: typeof entry) => a.confidence > b.confidence || (a.confidence === b.confidence && byCodeUnit(a.id, b.id) < 0);
  let at = best.length;
  while (at > 0 && before(entry, best[at - 1]!)) at -= 1;
  if (at >= limit) return;
  best.splice(at, 0, entry);
  if (best.length > limit) best.pop();
}

/**
 * The crosswalk as steps: it yields between its phases and after each source item, so that a caller may let the event
 * loop serve others meanwhile (crosswalkInSlices). What it computes does not depend on where it pauses.
 */
function* crosswalkSteps(input: CrosswalkInput, search: CandidateSearch): Generator<void, CrosswalkResult> {
  const minConfidence = input.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const limit = input.maxCandidatesPerItem ?? DEFAULT_CANDIDATES_PER_ITEM;
  const source = yield* prepareFramework(input.source, 'source');
  yield;
  const target = yield* prepareFramework(input.target, 'target');
  yield;
  const vocabulary = vocabularyOf([...source.items.map((i) => i.terms), ...target.items.map((i) => i.terms)]);
  const sourceVectors = source.items.map((i) => vectorOf(i.terms, vocabulary));
  const targetVectors = target.items.map((i) => vectorOf(i.terms, vocabulary));
  const context: PairContext = { vocabulary, declared: mergeDeclared(source.declared, target.declared), anchorVectors: new Map() };
  const index = search === 'blocked' ? indexTarget(target, targetVectors) : undefined;
  const everyTarget = target.items.map((_, k) => k);
  const mappings: CrosswalkResult['mappings'] = [];
  const unmappedSource: string[] = [];
  const proposedTargets = new Set<number>();
  let comparedPairs = 0;
  let candidates = 0;
  for (const [s, item] of source.items.entries()) {
    yield;
    const pool = index ? blockCandidates(item, sourceVectors[s]!, index, context.declared, vocabulary.weight2) : everyTarget;
    comparedPairs += pool.length;
    const best: Array<{ k: number; confidence: number; id: string }> = [];
    for (const k of pool) {
      const confidence = pairConfidence(item, sourceVectors[s]!, target.items[k]!, targetVectors[k]!, context, minConfidence);
      if (confidence !== undefined) keepBest(best, { k, confidence, id: target.items[k]!.identifier }, limit);
    }
    if (best.length === 0) {
      unmappedSource.push(item.identifier);
      continue;
    }
    candidates += best.length;
    mappings.push({
      sourceIdentifier: item.identifier,
      sourceCode: item.code,
      candidates: best.map(({ k, confidence }) => {
        proposedTargets.add(k);
        const signals = pairSignals(item, sourceVectors[s]!, target.items[k]!, targetVectors[k]!, context);
        return {
          targetIdentifier: target.items[k]!.identifier,
          targetCode: target.items[k]!.code,
          confidence,
          band: bandOf(confidence),
          proposedAssociationType: confidence >= BANDS.high ? ('exactMatchOf' as const) : ('isRelatedTo' as const),
          status: 'proposed' as const,
          signals,
          rationale: rationaleOf(signals),
        };
      }),
    });
  }
  return {
    status: 'proposed',
    review: { required: true, note: REVIEW_NOTE },
    method: { version: CROSSWALK_METHOD, weights: { ...WEIGHTS }, bands: { ...BANDS }, minConfidence, maxCandidatesPerItem: limit },
    frameworks: {
      relation: relationOf(source.document, target.document),
      source: { identifier: source.document.identifier, version: source.document.version, items: source.items.length },
      target: { identifier: target.document.identifier, version: target.document.version, items: target.items.length },
    },
    mappings,
    unmapped: { source: unmappedSource, target: target.items.filter((_, k) => !proposedTargets.has(k)).map((i) => i.identifier) },
    counts: { sourceItems: source.items.length, targetItems: target.items.length, mappedSourceItems: mappings.length, candidates, comparedPairs },
  };
}

/** Runs the crosswalk at once; `search` is for the benchmark's comparison only. */
export function crosswalkFrameworks(input: CrosswalkInput, search: CandidateSearch = 'blocked'): CrosswalkResult {
  const steps = crosswalkSteps(input, search);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs the crosswalk in slices: whenever a slice has used its time, the event loop serves others before the work
 * goes on (two slices of 2,000 items take a few hundred milliseconds). The same answer as crosswalkFrameworks.
 */
export async function crosswalkInSlices(input: CrosswalkInput, slices: Slices): Promise<CrosswalkResult> {
  const steps = crosswalkSteps(input, 'blocked');
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    if (slices.due()) await slices.pause();
  }
}

/** The confidence floors, for the documentation and tests. */
export { FLOORS };
