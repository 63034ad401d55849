/**
 * Education analysis (issue 20): p50, p95 and p99 of the two deterministic education endpoints through the real
 * Product Runtime, beside its `GET /api/product/v1/context` on the same server in the same run: artifact
 * recommendations on 250 candidates, and the standards crosswalk of two generated CASE 1.1 slices of 2,000 items each;
 * then the baseline while crosswalks run on another connection. On embedded PGlite and then on server PostgreSQL (a
 * scratch database; skipped with the reason when it cannot be reached). Then, with no server running, the analyses'
 * own work in process, and the crosswalk's blocking against comparing every pair.
 *
 * `npm run bench -- --only education-analysis [--seed S] [--repeat R] [--write]`; `--repeat` is the number of rounds.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { loudLogEntries, openInstallation, type EngineName } from './http/installation.ts';
import { measureCompute, type ComputeResult } from './education-analysis/compute.ts';
import { generateFrameworkPair, generateRecommendRequest } from './education-analysis/generate.ts';
import { measureRows, meteredOperations, type Requests, type RowResult } from './education-analysis/measure.ts';
import { educationAnalysisReport } from './education-analysis/report.ts';
import { prepareAnalysisInstallation, startBenchServer } from './education-analysis/setup.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { measureOnServedEngines } from './support/served-engines.ts';

/** Candidates of the recommendation request: the spec's limit. */
export const CANDIDATES = 250;
/** CFItems of each crosswalk slice: our limit. */
export const ITEMS = 2000;

/** One database's rows. */
export interface EngineRun {
  engine: EngineName;
  rows: RowResult[];
}

/** The whole benchmark's result, for the report. */
export interface EducationAnalysisResult {
  seed: number;
  rounds: number;
  candidates: number;
  items: number;
  /** Which command served (kgate serve, or the analysis server until the table serves the analyses). */
  server: string;
  engines: EngineRun[];
  skipped: Array<{ engine: EngineName; reason: string }>;
  compute: ComputeResult;
  loadAverage: { before: number; after: number };
  failures: string[];
}

/** Measures the rows on one database: chain, server, rounds, then the log and the metered count checked. */
async function measureEngine(
  engine: EngineName,
  env: Record<string, string>,
  root: string,
  inputs: { requests: Requests; rounds: number; log: (line: string) => void },
  failures: string[],
): Promise<{ run: EngineRun; server: string }> {
  const installation = await prepareAnalysisInstallation(env);
  const logFile = join(root, `${engine}-serve.log`);
  const { server, command } = await startBenchServer(env, logFile);
  inputs.log(`  ${engine}: ${command} (pid ${server.pid}) at ${server.url}`);
  let measured: Awaited<ReturnType<typeof measureRows>>;
  try {
    measured = await measureRows(server.url, installation, inputs.requests, { candidates: CANDIDATES, items: ITEMS }, inputs.rounds, inputs.log);
  } finally {
    await server.stop();
  }
  const loud = await loudLogEntries([logFile]);
  if (loud.length > 0) failures.push(`${engine}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0])}`);
  const opened = await openInstallation(env);
  try {
    const used = await meteredOperations(opened.db, installation.organizationId);
    if (used !== measured.metered) failures.push(`${engine}: ${used} metered operations for ${measured.metered} calls`);
  } finally {
    await opened.close();
  }
  return { run: { engine, rows: measured.rows }, server: command };
}

/** Generates the requests and measures on PGlite, on PostgreSQL when reachable, then in process. */
export async function measureEducationAnalysis(seed: number, rounds: number, serverUrl?: string): Promise<EducationAnalysisResult> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const loadBefore = loadavg()[0] ?? 0;
  const recommendRequest = generateRecommendRequest(CANDIDATES, seed);
  const pair = generateFrameworkPair(ITEMS, seed);
  const requests: Requests = { recommend: JSON.stringify(recommendRequest), crosswalk: JSON.stringify({ source: pair.source, target: pair.target }) };
  const result: Omit<EducationAnalysisResult, 'compute'> = {
    seed,
    rounds,
    candidates: CANDIDATES,
    items: ITEMS,
    server: '',
    engines: [],
    skipped: [],
    loadAverage: { before: loadBefore, after: 0 },
    failures: [],
  };
  const inputs = { requests, rounds, log };
  const measured = await measureOnServedEngines(
    'education',
    async ({ engine, env, root }) => {
      const { run, server } = await measureEngine(engine, env, root, inputs, result.failures);
      if (engine === 'PGlite') result.server = server;
      return run;
    },
    { serverUrl, log },
  );
  result.engines.push(...measured.runs);
  result.skipped.push(...measured.skipped);
  log('  in process: validation, computation, blocking against every pair');
  const compute = measureCompute(recommendRequest, pair);
  return { ...result, compute, loadAverage: { before: loadBefore, after: loadavg()[0] ?? 0 } };
}

/** The benchmark as `bench/run.ts` runs it: `--repeat` rounds (at least 2). */
export const educationAnalysisBenchmark: Benchmark = {
  title: 'Education analysis',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return educationAnalysisReport(await measureEducationAnalysis(options.seed, Math.max(2, options.repeat)));
  },
};
