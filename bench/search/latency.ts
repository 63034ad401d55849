/**
 * Search latency, measured the same way for every system: each query runs in rounds, and every round calls every
 * system once, one after the other (the order rotates each round), so that whatever else the machine is doing hits
 * all systems alike. The first rounds warm up and are not kept. Every answer is checked; the first problem of each
 * system and query becomes a failure.
 */
import { percentile } from '../support/stats.ts';
import { answerProblem, type AnswerKind, type BenchQuery, type SearchAnswer } from './queries.ts';

/** Rounds run before measuring (not kept). */
export const WARMUP_ROUNDS = 5;
/** Rounds measured per query. */
export const MEASURED_ROUNDS = 50;

/** One system that answers the benchmark's searches. */
export interface SearchSubject {
  /** Names it in labels, e.g. "kgate on PGlite", "SQLite FTS5", "ripgrep". */
  name: string;
  kind: AnswerKind;
  search(query: BenchQuery): Promise<SearchAnswer>;
}

/** p50 and p95 of one system on one query, in milliseconds. */
export interface Latency {
  p50: number;
  p95: number;
  /** Calls measured. */
  calls: number;
}

/** Latencies by system name, then by query key, and the wrong answers seen. */
export interface LatencyResult {
  latency: Map<string, Map<BenchQuery['key'], Latency>>;
  failures: string[];
}

/** p50 and p95 of some milliseconds. */
export function latencyOf(ms: readonly number[]): Latency {
  return { p50: percentile(ms, 50), p95: percentile(ms, 95), calls: ms.length };
}

/** Runs every query WARMUP_ROUNDS + MEASURED_ROUNDS times on every subject, interleaved, and checks every answer. */
export async function measureLatencies(
  subjects: readonly SearchSubject[],
  queries: readonly BenchQuery[],
  matching: ReadonlyMap<BenchQuery['key'], ReadonlySet<string>>,
  log: (line: string) => void,
): Promise<LatencyResult> {
  const result: LatencyResult = { latency: new Map(subjects.map((s) => [s.name, new Map()])), failures: [] };
  for (const query of queries) {
    const expected = matching.get(query.key) ?? new Set<string>();
    const times = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
    const failed = new Set<string>();
    for (let round = 0; round < WARMUP_ROUNDS + MEASURED_ROUNDS; round++) {
      for (let k = 0; k < subjects.length; k++) {
        const subject = subjects[(round + k) % subjects.length] as SearchSubject;
        const started = performance.now();
        let answer: SearchAnswer;
        try {
          answer = await subject.search(query);
        } catch (error) {
          answer = { paths: [] };
          if (!failed.has(subject.name)) result.failures.push(`${subject.name}, ${query.label}: ${error instanceof Error ? error.message : String(error)}`);
          failed.add(subject.name);
        }
        const ms = performance.now() - started;
        if (round >= WARMUP_ROUNDS) times.get(subject.name)?.push(ms);
        const problem = answerProblem(answer, subject.kind, query, expected);
        if (problem !== undefined && !failed.has(subject.name)) {
          failed.add(subject.name);
          result.failures.push(`${subject.name}, ${query.label}: ${problem}`);
        }
      }
    }
    for (const subject of subjects) {
      const latency = latencyOf(times.get(subject.name) ?? []);
      result.latency.get(subject.name)?.set(query.key, latency);
      log(`  ${query.key}, ${subject.name}: p50 ${latency.p50.toFixed(2)} ms, p95 ${latency.p95.toFixed(2)} ms`);
    }
  }
  return result;
}
