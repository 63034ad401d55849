/**
 * Education generation (issue 21): what the gateway adds to a model-backed call, and how fast it streams. A started
 * `kgate serve` whose model is the fake model server (test/fakes/model, in this process), with an organization that
 * has a budget, an installation and a principal holding `intelligence.execute`; every gateway series is measured
 * beside its baseline in the same run, call for call: the fake model called directly with the very body the
 * gateway sent it. Reported: time to first byte and total time of a metered JSON call (practice-review) minus the
 * fake's, the same with 16 in flight, the ledger's phases timed in process, and when `generate` is served with
 * NDJSON, the time to `ready` and to the first `delta` against the fake's first chunk, and deltas and bytes per
 * second of 2,000-chunk replies through the gateway against reading the fake's SSE directly, one and 16 at once.
 * On embedded PGlite and then on server PostgreSQL (a scratch database; skipped with the reason when it cannot be
 * reached). About a minute.
 *
 * `npm run bench -- --only education-generation [--write]`.
 */
import { loadavg } from 'node:os';
import { startModelFake } from '../test/fakes/model/server.ts';
import { generateAvailable } from './education-generation/generate-input.ts';
import { measureEngine, type EngineRun, type Sizes } from './education-generation/measure.ts';
import { educationGenerationReport } from './education-generation/report.ts';
import type { Benchmark, BenchmarkReport } from './support/benchmark.ts';
import { measureOnServedEngines } from './support/served-engines.ts';

/** The sizes of the documented run. */
export const GENERATION_SIZES: Sizes = { sequential: 200, warmup: 20, concurrency: 16, perClient: 20, longChunks: 2000, longReplies: 10, shortChunks: 20 };

/** The whole benchmark's result, for the report. */
export interface EducationGenerationResult {
  sizes: Sizes;
  engines: EngineRun[];
  skipped: Array<{ engine: string; reason: string }>;
  /** Whether `generate` was served (else the NDJSON rows are missing). */
  generate: boolean;
  /** PostgreSQL's version and durability settings, when it ran. */
  postgres?: string;
  loadAverage: { before: number; after: number };
  failures: string[];
}

/** Measures on PGlite, then on PostgreSQL when reachable. */
export async function measureEducationGeneration(sizes: Sizes = GENERATION_SIZES, serverUrl?: string): Promise<EducationGenerationResult> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result: EducationGenerationResult = { sizes, engines: [], skipped: [], generate: generateAvailable(), loadAverage: { before: loadavg()[0] ?? 0, after: 0 }, failures: [] };
  const fake = await startModelFake();
  const record = (run: EngineRun) => {
    result.engines.push(run);
    result.failures.push(...run.failures);
  };
  try {
    const measured = await measureOnServedEngines(
      'generation',
      async ({ engine, env, root, version }) => {
        if (version) result.postgres = `PostgreSQL ${version}`;
        const run = await measureEngine(engine, env, root, fake, sizes, log);
        record(run);
        return run;
      },
      { serverUrl, log },
    );
    result.skipped.push(...measured.skipped);
  } finally {
    await fake.close();
  }
  result.loadAverage.after = loadavg()[0] ?? 0;
  return result;
}

/** The benchmark as `bench/run.ts` runs it (`--only education-generation`). */
export const educationGenerationBenchmark: Benchmark = {
  title: 'Education generation',
  async run(): Promise<BenchmarkReport> {
    return educationGenerationReport(await measureEducationGeneration());
  },
};
