/**
 * Product Runtime: what a product's call costs beside the same work through the Developer REST API, on one started
 * `kgate serve` (embedded PGlite, then server PostgreSQL when one is reachable), under 50 connections:
 * - reading one note: `GET /workspaces/{ws}/vaults/{v}/notes/content` beside `GET /api/dev/notes/by-path`;
 * - publishing one new note (dryRun false, a fresh Idempotency-Key and path per request): `POST …/notes/publish`
 *   beside `POST /api/dev/notes`;
 * - the client credentials grant (`POST /api/product/v1/oauth/token`, client_secret_post) beside a personal access
 *   token's `GET /api/account`;
 * and hello-world (`GET /healthz`) of the same server. Every row runs `--repeat` rounds (at least 2; the two rows of a
 * pair swap places every other round) and the median is reported. Then, with the server stopped, the same database
 * is opened in this process to count each row's statements at one client: the runtime adds the chain's queries and
 * its metering statement to the work both surfaces share (docs/runtime.md).
 *
 * Every response body is checked; an error, a non-2xx answer, a wrong body, a server log line at warn or above, a
 * published folder that does not hold one note per answer, or fewer metered operations than runtime answers fails
 * the benchmark.
 */
import { loadavg } from 'node:os';
import { standardLoad, type LoadOptions } from './http/load.ts';
import type { EngineName } from './http/installation.ts';
import { measureEngine, type EngineRun } from './product-runtime/measure.ts';
import { productRuntimeReport } from './product-runtime/report.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { measureOnServedEngines } from './support/served-engines.ts';

/** The whole benchmark's result, for the report. */
export interface ProductRuntimeResult {
  load: LoadOptions;
  rounds: number;
  engines: EngineRun[];
  skipped: Array<{ engine: EngineName; reason: string }>;
  /** The 1-minute load average before and after the run. */
  loadAverage: { before: number; after: number };
  failures: string[];
}

/** Measures every row on PGlite (fresh data directory) and PostgreSQL (scratch database; skipped when unreachable). */
export async function measureProductRuntime(load: LoadOptions, rounds: number, serverUrl?: string): Promise<ProductRuntimeResult> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const result: ProductRuntimeResult = { load, rounds, engines: [], skipped: [], loadAverage: { before: loadavg()[0]!, after: 0 }, failures: [] };
  const options = { ...load, rounds, log };
  const measured = await measureOnServedEngines(
    'runtime',
    ({ engine, env, root, version, database }) =>
      measureEngine(engine, version === undefined ? undefined : { version, database: database! }, env, root, options, result.failures),
    { serverUrl, log },
  );
  result.engines.push(...measured.runs);
  result.skipped.push(...measured.skipped);
  result.loadAverage.after = loadavg()[0]!;
  return result;
}

/** The benchmark as `bench/run.ts` runs it: 50 connections, 3 s warm-up, 10 s per row (or `--duration`), `--repeat` rounds (at least 2). */
export const productRuntimeBenchmark: Benchmark = {
  title: 'Product Runtime',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return productRuntimeReport(await measureProductRuntime(standardLoad(options.duration), Math.max(2, options.repeat)));
  },
};
