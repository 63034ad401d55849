/**
 * The analyses' own work, in the benchmark process with no server running: validating and computing each request
 * (median of several runs), and the crosswalk's blocking against comparing every pair: time, pairs compared,
 * how many of the exhaustive search's candidates blocking also proposes, and how often the generated paraphrase is
 * the first candidate (the generator's ground truth).
 */
import {
  CrosswalkInputSchema,
  RecommendInputSchema,
  crosswalkFrameworks,
  recommendArtifacts,
  type CrosswalkResult,
} from '../../src/domains/education/index.ts';
import { median } from '../support/stats.ts';
import type { GeneratedPair } from './generate.ts';

/** What the analyses cost in process. */
export interface ComputeResult {
  recommend: { validateMs: number; computeMs: number; runs: number };
  crosswalk: {
    validateMs: number;
    blockedMs: number;
    exhaustiveMs: number;
    runs: { blocked: number; exhaustive: number };
    comparedPairs: { blocked: number; exhaustive: number };
    candidates: { blocked: number; exhaustive: number; shared: number };
    /** Source standards with a generated paraphrase, and how many have it as their first candidate. */
    truth: { pairs: number; firstBlocked: number; firstExhaustive: number };
  };
}

function timed<T>(runs: number, work: () => T): { ms: number; value: T } {
  const times: number[] = [];
  let value: T | undefined;
  for (let k = 0; k < runs; k++) {
    const started = performance.now();
    value = work();
    times.push(performance.now() - started);
  }
  return { ms: median(times), value: value! };
}

const candidatePairs = (result: CrosswalkResult) => new Set(result.mappings.flatMap((m) => m.candidates.map((c) => `${m.sourceIdentifier} ${c.targetIdentifier}`)));

function firstIsTruth(result: CrosswalkResult, truth: ReadonlyMap<string, string>): number {
  return result.mappings.filter((m) => truth.get(m.sourceIdentifier) === m.candidates[0]?.targetIdentifier).length;
}

/** Measures both analyses on the run's requests. */
export function measureCompute(recommendRequest: unknown, pair: GeneratedPair): ComputeResult {
  const recommendInput = timed(20, () => RecommendInputSchema.parse(recommendRequest));
  const recommend = timed(50, () => recommendArtifacts(recommendInput.value));
  const crosswalkInput = timed(5, () => CrosswalkInputSchema.parse({ source: pair.source, target: pair.target }));
  const blocked = timed(5, () => crosswalkFrameworks(crosswalkInput.value, 'blocked'));
  const exhaustive = timed(3, () => crosswalkFrameworks(crosswalkInput.value, 'exhaustive'));
  const fromBlocked = candidatePairs(blocked.value);
  const fromExhaustive = candidatePairs(exhaustive.value);
  return {
    recommend: { validateMs: recommendInput.ms, computeMs: recommend.ms, runs: 50 },
    crosswalk: {
      validateMs: crosswalkInput.ms,
      blockedMs: blocked.ms,
      exhaustiveMs: exhaustive.ms,
      runs: { blocked: 5, exhaustive: 3 },
      comparedPairs: { blocked: blocked.value.counts.comparedPairs, exhaustive: exhaustive.value.counts.comparedPairs },
      candidates: { blocked: fromBlocked.size, exhaustive: fromExhaustive.size, shared: [...fromExhaustive].filter((p) => fromBlocked.has(p)).length },
      truth: { pairs: pair.truth.size, firstBlocked: firstIsTruth(blocked.value, pair.truth), firstExhaustive: firstIsTruth(exhaustive.value, pair.truth) },
    },
  };
}
