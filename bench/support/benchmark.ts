/**
 * The contract between `bench/run.ts` and each benchmark: what a benchmark receives from the command line and
 * what it hands back. It lives apart from the entry point so benchmark modules need not import `run.ts` (which
 * imports them).
 */

/** Options every benchmark receives from the command line. */
export interface BenchmarkOptions {
  /** Size of the synthetic vault (`--notes`, default 20000). */
  notes: number;
  /** Seed of the synthetic vault (`--seed`, default 42). */
  seed: number;
  /** Repetitions of each measurement, median reported (`--repeat`, default 3). */
  repeat: number;
  /**
   * Seconds each row of a load benchmark (HTTP and MCP throughput) is measured (`--duration`); undefined: the
   * benchmark's own, 10. Shorter runs are for smoke tests, not for the numbers in docs/benchmarks.md.
   */
  duration?: number;
  /**
   * The old commit the before-and-after benchmark compares the working tree with (`--baseline REF`, any git
   * commit-ish); undefined: where this branch left `main`, or `HEAD~1` on `main` itself.
   */
  baseline?: string;
  /** The before-and-after benchmark's scenarios to measure (`--scenario KEY`, repeatable); undefined: all. */
  scenarios?: readonly string[];
}

/** What a benchmark hands back: Markdown lines for its section, and any failures that invalidate it. */
export interface BenchmarkReport {
  /** The results table, one Markdown line per table row. */
  table: string[];
  /** Markdown lines printed after the table: setup, engines, phases, interpretation. */
  details: string[];
  /** Non-empty when the measured code did not do its job; the run then exits non-zero. */
  failures: string[];
}

/** One benchmark: its section title in docs/benchmarks.md and how to run it. */
export interface Benchmark {
  title: string;
  run(options: BenchmarkOptions): Promise<BenchmarkReport>;
}
