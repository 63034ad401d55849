/**
 * The arithmetic of the before-and-after benchmark, kept free of I/O so that it is unit-tested: which commit is the
 * baseline, in which order the two servers are measured (ABBA), and how two runs per side become one row with a
 * ratio and a verdict.
 */

/** The two sides compared: the baseline commit ("old") and the working tree ("new"). */
export type Side = 'old' | 'new';

/** What the default baseline is chosen from: the commit HEAD names, and `git merge-base main HEAD` (if `main` exists). */
export interface BaselineFacts {
  head: string;
  mergeBase: string | undefined;
}

/** The commit-ish to compare against, and why it was chosen (for the report). */
export interface BaselineChoice {
  ref: string;
  why: string;
}

/**
 * The baseline: `--baseline REF` when given; otherwise the commit where this branch left `main` (so that a
 * refactoring branch is compared with what it started from, however far `main` has moved since); and when HEAD is
 * that commit itself (on `main`, or a branch with no commits of its own), HEAD's parent.
 */
export function chooseBaseline(explicit: string | undefined, facts: BaselineFacts): BaselineChoice {
  if (explicit !== undefined) return { ref: explicit, why: `\`--baseline ${explicit}\`` };
  if (facts.mergeBase !== undefined && facts.mergeBase !== facts.head) {
    return { ref: facts.mergeBase, why: 'the default: where this branch left `main` (`git merge-base main HEAD`)' };
  }
  return {
    ref: 'HEAD~1',
    why:
      facts.mergeBase === undefined
        ? 'the default when there is no `main` branch: `HEAD~1`'
        : 'the default when HEAD has no commits beyond `main`: `HEAD~1`',
  };
}

/** One measurement in the schedule: a scenario on one side, the first or second time for that side. */
export interface Step<K extends string> {
  key: K;
  side: Side;
  /** 1 for the side's first measurement of this scenario, 2 for its second. */
  run: 1 | 2;
  /**
   * Both servers are restarted before this step (the second half of each ABBA): each side's two runs then come from
   * two processes, so the spread that sets the tolerance includes the difference between processes of the same
   * code (about 10% was seen here), not only the noise within one.
   */
  restartBefore?: true;
}

/** The order of the four measurements of one scenario: old, new, new, old. */
export const ABBA: readonly Side[] = ['old', 'new', 'new', 'old'];

/**
 * The measurements, in order: for each scenario in turn, old, new, (both servers restarted) new, old. A drift that
 * is linear in time (the machine warming up, the databases growing) then weighs the same on both sides' means.
 */
export function abbaSchedule<K extends string>(keys: readonly K[]): Array<Step<K>> {
  return keys.flatMap((key) => {
    const seen: Record<Side, number> = { old: 0, new: 0 };
    return ABBA.map((side, k) => ({ key, side, run: ++seen[side] as 1 | 2, ...(k === 2 ? { restartBefore: true as const } : {}) }));
  });
}

/** What one measured run contributes to a row. */
export interface RunNumbers {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** One side of a row: the mean of its two runs, and how far apart the two runs were. */
export interface SideSummary {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** The two runs' requests/s, in the order measured. */
  runs: [number, number];
  /** |run 1 − run 2| / their mean: this side's run-to-run spread, 0.03 for 3%. */
  spread: number;
}

/** The smallest tolerance a verdict uses, even when both sides' two runs happened to agree more closely. */
export const MIN_TOLERANCE = 0.02;

/** A row's comparison of new with old. */
export interface Comparison {
  old: SideSummary;
  new: SideSummary;
  /** new requests/s ÷ old requests/s. */
  ratio: number;
  /** The two sides' run-to-run spreads added, at least MIN_TOLERANCE. */
  tolerance: number;
  verdict: 'within noise' | 'faster' | 'slower';
}

function mean(a: number, b: number): number {
  return (a + b) / 2;
}

/** The mean and run-to-run spread of one side's two runs. */
export function summarizeSide(runs: readonly [RunNumbers, RunNumbers]): SideSummary {
  const [first, second] = runs;
  const rate = mean(first.requestsPerSecond, second.requestsPerSecond);
  return {
    requestsPerSecond: rate,
    p50Ms: mean(first.p50Ms, second.p50Ms),
    p99Ms: mean(first.p99Ms, second.p99Ms),
    runs: [first.requestsPerSecond, second.requestsPerSecond],
    spread: rate > 0 ? Math.abs(first.requestsPerSecond - second.requestsPerSecond) / rate : 0,
  };
}

/**
 * Compares the two sides of a scenario on requests/s. Within noise when |1 − new/old| is at most the tolerance:
 * the two sides' run-to-run spreads (what measuring the same server twice in this run gave) added, because the
 * ratio carries the noise of both means, and at least MIN_TOLERANCE; faster or slower beyond it. For normally
 * distributed runs of equal noise that is about two standard errors of the ratio (the spread of two runs averages
 * 1.13 standard deviations of one run; the ratio of two means of two runs has a standard error of one); the
 * larger spread alone would be about one, and flagged identical code in about a third of the rows here.
 */
export function compare(old: readonly [RunNumbers, RunNumbers], now: readonly [RunNumbers, RunNumbers]): Comparison {
  const before = summarizeSide(old);
  const after = summarizeSide(now);
  const ratio = after.requestsPerSecond / before.requestsPerSecond;
  const tolerance = Math.max(before.spread + after.spread, MIN_TOLERANCE);
  const verdict = Math.abs(1 - ratio) <= tolerance ? 'within noise' : ratio > 1 ? 'faster' : 'slower';
  return { old: before, new: after, ratio, tolerance, verdict };
}

/** A fraction as a percentage with one decimal, e.g. 0.035 is "3.5%". */
function pct(fraction: number): string {
  return `${(100 * fraction).toFixed(1)}%`;
}

/** The verdict as a table cell, e.g. "within noise (±3.5%)" or "slower: −12.0% (noise ±3.5%)". */
export function verdictText(c: Comparison): string {
  if (c.verdict === 'within noise') return `within noise (±${pct(c.tolerance)})`;
  return `${c.verdict}: ${c.verdict === 'faster' ? '+' : '−'}${pct(Math.abs(c.ratio - 1))} (noise ±${pct(c.tolerance)})`;
}
