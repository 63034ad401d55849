/**
 * Before and after: the same REST and MCP requests against two commits of kgate, measured in the same run, so
 * that a change of the request path shows as a ratio new/old rather than as numbers from different days.
 *
 * "Old" is a baseline commit (`--baseline REF`; by default where this branch left `main`, see
 * `before-after/compare.ts`), checked out into a temporary git worktree with its dependencies
 * (`before-after/baseline-tree.ts`); "new" is this working tree. Per database (PGlite, a fresh data directory per
 * side; PostgreSQL, a fresh scratch database per side, skipped when unreachable) each side is set up, started and
 * checked by its own code (`before-after/sides.ts`): its own `kgate admin bootstrap`, `kgate admin account`,
 * `kgate serve`. Both servers stay up, but only one is under load at a time: for each scenario
 * (`before-after/scenarios.ts`) old, new, new, old, each a warm-up and a measured run with autocannon
 * (`http/load.ts`), and each side's row is the mean of its two runs. Any error, non-2xx answer, wrong body, server
 * log line at warn or above, or applied write missing from the vault fails the benchmark.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWorkingTree, materializeBaseline, REPO_ROOT, resolveBaseline, type Commit } from './before-after/baseline-tree.ts';
import { abbaSchedule, compare, type BaselineChoice, type Comparison, type Side } from './before-after/compare.ts';
import { beforeAfterReport } from './before-after/report.ts';
import { LABELS, selectKeys, type Key } from './before-after/scenarios.ts';
import { checkSide, startSide, type RunningSide } from './before-after/sides.ts';
import type { EngineName } from './http/installation.ts';
import { measureScenario, standardLoad, type LoadOptions, type Measurement } from './http/load.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { cleanupOnInterrupt } from './support/interrupt.ts';
import { pgliteVersion } from './support/pglite-version.ts';
import { benchServerUrl, createScratchDatabase, type ScratchDatabase } from './support/scratch-postgres.ts';

/** Options of {@link measureBeforeAfter}. */
export interface BeforeAfterOptions extends LoadOptions {
  /** The old commit (`--baseline`); undefined: the default of `chooseBaseline`. */
  baseline?: string;
  /** PostgreSQL server for the scratch databases; defaults to KGATE_BENCH_DATABASE_URL or the local one. */
  serverUrl?: string;
  /** The scenarios to measure (`--scenario`, see selectKeys); undefined: all. */
  scenarios?: readonly string[];
  log?: (line: string) => void;
}

/** One scenario on one database: both sides' two runs and their comparison. */
export interface Row {
  key: Key;
  label: string;
  runs: Record<Side, [Measurement<Key>, Measurement<Key>]>;
  comparison: Comparison;
}

/** Everything measured on one database. */
export interface EngineComparison {
  engine: EngineName;
  version: string;
  rows: Row[];
}

/** The whole benchmark's result. */
export interface BeforeAfterResult {
  options: LoadOptions;
  baseline: BaselineChoice & { commit: Commit };
  current: { commit: Commit; dirty: boolean };
  /** How the old tree's dependencies were installed. */
  install: string;
  engines: EngineComparison[];
  skipped: Array<{ engine: EngineName; reason: string }>;
  failures: string[];
  /** Wall-clock seconds of the whole benchmark, checkout and installs included. */
  seconds: number;
}

function badCounts(m: Measurement<Key>): string | undefined {
  if (m.errors + m.non2xx + m.mismatches === 0) return undefined;
  return `${m.errors} errors, ${m.non2xx} non-2xx ${JSON.stringify(m.otherStatuses)}, ${m.mismatches} wrong bodies`;
}

/** Starts both sides on their databases, measures every scenario ABBA, checks both sides, stops both servers. */
async function compareOn(
  engine: EngineName,
  version: string,
  trees: Record<Side, string>,
  envs: Record<Side, Record<string, string>>,
  root: string,
  keys: readonly Key[],
  load: LoadOptions,
  log: (line: string) => void,
  failures: string[],
): Promise<EngineComparison> {
  const running: RunningSide[] = [];
  const runs = new Map<Key, Record<Side, Array<Measurement<Key>>>>(keys.map((key) => [key, { old: [], new: [] }]));
  try {
    for (const side of ['old', 'new'] as const) {
      const started = await startSide(engine, side, trees[side], envs[side], root);
      running.push(started);
      log(`  ${engine} ${side}: kgate serve (pid ${started.server.pid}) at ${started.server.url}, ${started.notesBefore} notes`);
    }
    const bySide = (side: Side) => running.find((r) => r.side === side)!;
    for (const step of abbaSchedule(keys)) {
      if (step.restartBefore) await Promise.all(running.map((r) => r.restart()));
      const { server, scenarios } = bySide(step.side);
      const m = await measureScenario(server.url, scenarios.get(step.key)!, load, server);
      runs.get(step.key)![step.side].push(m);
      log(`  ${engine} ${step.key} ${step.side} #${step.run}: ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms`);
      const bad = badCounts(m);
      if (bad) failures.push(`${engine} ${step.side} ${step.key} (run ${step.run}): ${bad}`);
    }
    for (const side of running) failures.push(...(await checkSide(engine, side, [...runs.values()].flatMap((r) => r[side.side]))));
  } finally {
    await Promise.all(running.map((r) => r.stop()));
  }
  const rows = keys.map((key): Row => {
    const { old, new: now } = runs.get(key)! as Record<Side, [Measurement<Key>, Measurement<Key>]>;
    return { key, label: LABELS[key], runs: { old, new: now }, comparison: compare(old, now) };
  });
  return { engine, version, rows };
}

/** Two scratch databases, or why not (the first is dropped when the second cannot be made). */
async function scratchPair(serverUrl: string): Promise<{ old: ScratchDatabase; new: ScratchDatabase } | { skipped: string }> {
  const old = await createScratchDatabase(serverUrl);
  if ('skipped' in old) return old;
  const now = await createScratchDatabase(serverUrl);
  if ('skipped' in now) {
    await old.drop();
    return now;
  }
  return { old, new: now };
}

/** Runs the benchmark: the baseline checked out, then PGlite, then PostgreSQL (skipped when unreachable). */
export async function measureBeforeAfter(options: BeforeAfterOptions): Promise<BeforeAfterResult> {
  const started = performance.now();
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const load: LoadOptions = { connections: options.connections, warmupSeconds: options.warmupSeconds, seconds: options.seconds };
  const keys = selectKeys(options.scenarios);
  const baseline = await resolveBaseline(options.baseline);
  const current = await describeWorkingTree();
  log(`  old: ${baseline.commit.short} ${baseline.commit.subject.slice(0, 60)} (${baseline.ref})`);
  log(`  new: the working tree at ${current.commit.short}${current.dirty ? ', with uncommitted changes' : ''}`);
  const engines: EngineComparison[] = [];
  const skipped: BeforeAfterResult['skipped'] = [];
  const failures: string[] = [];
  let install: string;
  const root = await mkdtemp(join(tmpdir(), 'kgate-bench-before-after-'));
  const removeRoot = cleanupOnInterrupt(() => rm(root, { recursive: true, force: true }));
  try {
    const tree = await materializeBaseline(baseline.commit, root);
    try {
      install = tree.install;
      log(`  old tree at ${tree.path}; dependencies: ${install}`);
      const trees: Record<Side, string> = { old: tree.path, new: REPO_ROOT };
      const versions = { old: pgliteVersion(tree.path), new: pgliteVersion() };
      const pglite = versions.old === versions.new ? versions.new : `${versions.old} (old), ${versions.new} (new)`;
      const pgliteEnvs = { old: { KGATE_DATA_DIR: join(root, 'pglite-old') }, new: { KGATE_DATA_DIR: join(root, 'pglite-new') } };
      engines.push(await compareOn('PGlite', `${pglite}, in the server process`, trees, pgliteEnvs, root, keys, load, log, failures));
      const scratch = await scratchPair(benchServerUrl(options.serverUrl));
      if ('skipped' in scratch) {
        skipped.push({ engine: 'PostgreSQL', reason: scratch.skipped });
        log(`  PostgreSQL skipped: ${scratch.skipped}`);
      } else {
        try {
          const envs = { old: { DATABASE_URL: scratch.old.url }, new: { DATABASE_URL: scratch.new.url } };
          const version = scratch.new.version.replace(/^PostgreSQL /, '');
          engines.push(await compareOn('PostgreSQL', version, trees, envs, root, keys, load, log, failures));
        } finally {
          await Promise.all([scratch.old.drop(), scratch.new.drop()]);
        }
      }
    } finally {
      await tree.remove();
    }
  } finally {
    await removeRoot();
  }
  const seconds = (performance.now() - started) / 1000;
  return { options: load, baseline, current, install, engines, skipped, failures, seconds };
}

/**
 * The benchmark as `bench/run.ts` runs it: 50 connections, 3 s warm-up, 10 s per run (or `--duration`),
 * `--baseline`, `--scenario`.
 */
export const beforeAndAfter: Benchmark = {
  title: 'Before and after',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    const load = standardLoad(options.duration);
    return beforeAfterReport(
      await measureBeforeAfter({
        ...load,
        ...(options.baseline === undefined ? {} : { baseline: options.baseline }),
        ...(options.scenarios === undefined ? {} : { scenarios: options.scenarios }),
      }),
    );
  },
};
