/**
 * Import throughput: how many notes per second `kgate import` stores, on embedded PGlite and on server
 * PostgreSQL, next to baselines measured in the same run on the same synthetic vault (see
 * `import/baselines.ts`: reading the folder alone, reading + hashing + inserting into SQLite, and `readFileSync`).
 *
 * kgate runs twice per database over the same folder: a first import (every note created) and a second one
 * (every note unchanged). Counts are checked; a wrong count fails the benchmark. Every run is repeated (fresh
 * databases each time) and the median is reported. Phases inside kgate's import are timed from outside `src/`
 * (see `import/phases.ts`). Then, per database, the whole `kgate import` command from spawn to exit
 * (`import/command-run.ts`), which adds starting Node.js, opening the database and the progress report.
 *
 * The pieces: `import/baselines.ts` and `import/kgate-import-passes.ts` measure, `import/result.ts` collects,
 * `import/report.ts` renders; this module runs them in order and cleans up.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/app/database.ts';
import { readOnlyBaseline, sqliteBaseline, syncReadReference } from './import/baselines.ts';
import { commandImport } from './import/command-run.ts';
import { kgateImportPasses } from './import/kgate-import-passes.ts';
import { importThroughputReport } from './import/report.ts';
import { toRows, type ImportThroughputResult, type Sample } from './import/result.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count } from './support/format.ts';
import { describePglite, pgliteVersion } from './support/pglite-version.ts';
import { benchServerUrl, createScratchDatabase, type ScratchDatabase, type ScratchDatabaseSkipped } from './support/scratch-postgres.ts';
import { median } from './support/stats.ts';
import { writeSyntheticVault } from './vault-generator.ts';

export type { ImportThroughputResult, ThroughputRow } from './import/result.ts';

/** Options of {@link measureImportThroughput}. */
export interface ImportThroughputOptions {
  notes: number;
  seed: number;
  /** Repetitions of every run; the median is reported (default 3). */
  repeat?: number;
  /** PostgreSQL server to create scratch databases on; defaults to KGATE_BENCH_DATABASE_URL or the local one. */
  serverUrl?: string;
  /** Progress lines (to stderr by default). */
  log?: (line: string) => void;
}

/** Both import passes on one fresh kgate database, with what it took to open it and which engine it was. */
interface EngineRun {
  openMs: number;
  engine: string;
  samples: Sample[];
  failures: string[];
}

/** Runs `work` in a fresh folder under `root`, removed afterwards. */
async function inFreshFolder<T>(root: string, prefix: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(root, prefix));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `work` on a fresh scratch database of the server, dropped afterwards; reports why when there is none. */
async function inScratchDatabase<T>(serverUrl: string, work: (scratch: ScratchDatabase) => Promise<T>): Promise<T | ScratchDatabaseSkipped> {
  const scratch = await createScratchDatabase(serverUrl);
  if ('skipped' in scratch) return scratch;
  try {
    return await work(scratch);
  } finally {
    await scratch.drop();
  }
}

/** The import passes on PGlite in a fresh data directory under `root`, removed afterwards. */
async function runOnPglite(root: string, vault: string, expected: number): Promise<EngineRun> {
  return inFreshFolder(root, 'pglite-', async (dataDir) => {
    const opening = performance.now();
    const pglite = await openDatabase(loadConfig({ KGATE_DATA_DIR: dataDir }), 'kgate-bench');
    try {
      const openMs = performance.now() - opening;
      const engine = await describePglite(pglite.db);
      return { openMs, engine, ...(await kgateImportPasses('PGlite', pglite.db, vault, expected)) };
    } finally {
      await pglite.close();
    }
  });
}

/** The import passes on PostgreSQL in a fresh scratch database on the server, dropped afterwards. */
async function runOnPostgres(serverUrl: string, vault: string, expected: number): Promise<EngineRun | ScratchDatabaseSkipped> {
  return inScratchDatabase(serverUrl, async (scratch) => {
    const engine = scratch.version.replace(/^PostgreSQL /, '');
    const opening = performance.now();
    const server = await openDatabase(loadConfig({ DATABASE_URL: scratch.url }), 'kgate-bench');
    try {
      const openMs = performance.now() - opening;
      return { openMs, engine, ...(await kgateImportPasses('PostgreSQL', server.db, vault, expected)) };
    } finally {
      await server.close();
    }
  });
}

/**
 * Runs the import throughput benchmark: generates the synthetic vault in a temporary folder, then, `repeat`
 * times, measures the baselines and both kgate databases (fresh ones each time), and removes every temporary
 * folder and scratch PostgreSQL database. PostgreSQL is skipped (with the reason in `skipped`) when the server
 * cannot be reached.
 */
export async function measureImportThroughput(options: ImportThroughputOptions): Promise<ImportThroughputResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const serverUrl = benchServerUrl(options.serverUrl);
  const repeat = options.repeat ?? 3;
  const expected = options.notes;
  const result: ImportThroughputResult = {
    notes: expected,
    seed: options.seed,
    repeat,
    bytes: 0,
    rows: [],
    // PGlite first: the engines are listed in the order they were first set.
    engines: { PGlite: pgliteVersion() },
    openSeconds: {},
    skipped: [],
    failures: [],
  };
  const samples: Sample[] = [];
  const opens: { PGlite: number[]; PostgreSQL: number[] } = { PGlite: [], PostgreSQL: [] };
  const record = (sample: Sample, failure?: string): void => {
    samples.push(sample);
    log(`  ${sample.label}: ${(sample.ms / 1000).toFixed(2)} s (${sample.outcome})`);
    if (failure) result.failures.push(failure);
  };
  const recordEngine = (name: 'PGlite' | 'PostgreSQL', run: EngineRun): void => {
    result.engines[name] = run.engine;
    opens[name].push(run.openMs);
    run.samples.forEach((s) => record(s));
    result.failures.push(...run.failures);
  };
  const root = await mkdtemp(join(tmpdir(), 'kgate-bench-import-'));
  try {
    const vault = join(root, 'vault');
    const generating = performance.now();
    const written = await writeSyntheticVault(vault, { notes: expected, seed: options.seed });
    result.bytes = written.bytes;
    log(`generated ${count(written.notes)} notes (${(written.bytes / 1e6).toFixed(1)} MB) in ${((performance.now() - generating) / 1000).toFixed(1)} s`);

    for (let rep = 1; rep <= repeat; rep++) {
      log(`repetition ${rep} of ${repeat}`);
      const a = await readOnlyBaseline(vault);
      record(a, a.notes === expected ? undefined : `baseline A read ${count(a.notes)} notes, expected ${count(expected)}`);
      const ref = await syncReadReference(vault);
      record(ref, ref.notes === expected ? undefined : `reference read ${count(ref.notes)} notes, expected ${count(expected)}`);
      const b = await sqliteBaseline(vault);
      result.engines.SQLite = b.engine;
      record(b.sample, b.sample.notes === expected ? undefined : `baseline B stored ${count(b.sample.notes)} rows, expected ${count(expected)}`);

      recordEngine('PGlite', await runOnPglite(root, vault, expected));
      const pgliteCommand = await inFreshFolder(root, 'command-', (dataDir) => commandImport('PGlite', { KGATE_DATA_DIR: dataDir }, vault, expected));
      record(pgliteCommand.sample, pgliteCommand.failure);

      // Once the server has failed, later repetitions do not try it again.
      if (result.skipped.some((s) => s.engine === 'PostgreSQL')) continue;
      const postgres = await runOnPostgres(serverUrl, vault, expected);
      if ('skipped' in postgres) {
        result.skipped.push({ engine: 'PostgreSQL', reason: postgres.skipped });
        log(`  PostgreSQL skipped: ${postgres.skipped}`);
        continue;
      }
      recordEngine('PostgreSQL', postgres);
      const postgresCommand = await inScratchDatabase(serverUrl, (scratch) => commandImport('PostgreSQL', { DATABASE_URL: scratch.url }, vault, expected));
      if ('skipped' in postgresCommand) result.skipped.push({ engine: 'PostgreSQL', reason: postgresCommand.skipped });
      else record(postgresCommand.sample, postgresCommand.failure);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  result.rows = toRows(samples);
  for (const [engine, ms] of Object.entries(opens)) if (ms.length > 0) result.openSeconds[engine] = median(ms) / 1000;
  return result;
}

/** The import throughput benchmark as `bench/run.ts` runs it. */
export const importThroughput: Benchmark = {
  title: 'Import throughput',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return importThroughputReport(
      await measureImportThroughput({ notes: options.notes, seed: options.seed, repeat: options.repeat }),
    );
  },
};
