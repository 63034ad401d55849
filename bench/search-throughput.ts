/**
 * Vault search: how fast kgate finds notes in the 20,000-note synthetic vault, on embedded PGlite and on server
 * PostgreSQL, beside two baselines measured in the same run on the same notes: SQLite FTS5 (an index built for
 * the purpose, `search/fts5-baseline.ts`) and ripgrep over the folder (what a gateway that scans every file per
 * search does, `search/ripgrep-baseline.ts`).
 *
 * Measured: the index builds (kgate's import, which stores each note's Markdown model; the FTS5 build; the first
 * search on a cold kgate service, which builds the in-memory index), p50/p95 latency of three searches (rare term,
 * common term, quoted phrase; `search/queries.ts`) interleaved across all systems (`search/latency.ts`), and p95 of
 * graph relations (`search/graph.ts`). Every answer is checked; a wrong one fails the benchmark. The report
 * (`search/report.ts`) states whether kgate's p95 is within 3× FTS5's and at least 10× below ripgrep's.
 */
import { rm, mkdtemp } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count } from './support/format.ts';
import { pgliteVersion } from './support/pglite-version.ts';
import { benchServerUrl } from './support/scratch-postgres.ts';
import { measureColdStarts } from './search/cold-start.ts';
import { meteredDatabase } from './search/db-meter.ts';
import { buildFts5Baseline } from './search/fts5-baseline.ts';
import { evenSample, GRAPH_SAMPLE, measureGraph } from './search/graph.ts';
import { kgateSubject, openPgliteEngine, openPostgresEngine, type DatabaseWork, type KgateEngine } from './search/kgate-engine.ts';
import { measureLatencies, type SearchSubject } from './search/latency.ts';
import { BENCH_QUERIES, notesContaining, type BenchQuery } from './search/queries.ts';
import { vaultSearchReport } from './search/report.ts';
import type { EngineResult, VaultSearchResult } from './search/result.ts';
import { ripgrepSubject, ripgrepVersion, RIPGREP_MISSING } from './search/ripgrep-baseline.ts';
import { generateSyntheticVault, writeSyntheticVault } from './vault-generator.ts';

export type { VaultSearchResult } from './search/result.ts';

/** Options of {@link measureVaultSearch}. */
export interface VaultSearchOptions {
  notes: number;
  seed: number;
  /** Fresh services per first-search (in-memory index build) measurement; the median is reported (default 3). */
  repeat?: number;
  /** PostgreSQL server to create the scratch database on; defaults to KGATE_BENCH_DATABASE_URL or the local one. */
  serverUrl?: string;
  /** Progress lines (to stderr by default). */
  log?: (line: string) => void;
}

/** Records an engine whose vault is imported, measures its first searches, and adds it as a search subject. */
async function prepareEngine(
  engine: KgateEngine,
  result: VaultSearchResult,
  matching: ReadonlyMap<BenchQuery['key'], ReadonlySet<string>>,
  subjects: SearchSubject[],
  works: Map<EngineResult, DatabaseWork>,
  log: (line: string) => void,
): Promise<EngineResult> {
  result.engines[engine.name] = engine.version;
  result.openSeconds[engine.name] = engine.openMs / 1000;
  result.failures.push(...engine.failures);
  log(`  kgate on ${engine.name}: import ${(engine.importMs / 1000).toFixed(2)} s (${engine.importOutcome})`);
  const first = BENCH_QUERIES[0] as BenchQuery;
  const meter = meteredDatabase(engine.db);
  const cold = await measureColdStarts(engine, meter.db, first, matching.get(first.key) ?? new Set(), result.repeat);
  result.failures.push(...cold.failures);
  log(`  kgate on ${engine.name}: first searches ${cold.ms.map((ms) => `${ms.toFixed(0)} ms`).join(', ')}`);
  const { subject, work } = kgateSubject(cold.warm, engine, meter);
  subjects.push(subject);
  const row: EngineResult = { name: engine.name, importSeconds: engine.importMs / 1000, importOutcome: engine.importOutcome, coldMs: cold.ms, database: {} };
  works.set(row, work);
  return row;
}

/**
 * Runs the vault search benchmark: checks that ripgrep is installed, writes the synthetic vault to a temporary
 * folder, builds the FTS5 baseline, imports the vault into kgate on PGlite and on a scratch PostgreSQL database
 * (skipped, with the reason, when the server cannot be reached), measures first searches, interleaved search
 * latency and graph queries, and removes every temporary folder and database.
 */
export async function measureVaultSearch(options: VaultSearchOptions): Promise<VaultSearchResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const result: VaultSearchResult = {
    notes: options.notes,
    seed: options.seed,
    repeat: options.repeat ?? 3,
    bytes: 0,
    matching: {},
    engines: { PGlite: pgliteVersion() },
    openSeconds: {},
    kgate: [],
    latency: new Map(),
    graphSample: Math.min(GRAPH_SAMPLE, options.notes),
    load: { before: loadavg()[0] ?? 0, after: 0 },
    skipped: [],
    failures: [],
  };
  const rg = await ripgrepVersion();
  if (rg === undefined) {
    result.notRun = RIPGREP_MISSING;
    result.failures.push(RIPGREP_MISSING);
    return result;
  }
  result.engines.ripgrep = rg.replace(/^ripgrep /, '');
  const cleanups: Array<() => Promise<void>> = [];
  const root = await mkdtemp(join(tmpdir(), 'kgate-bench-search-'));
  try {
    const vault = join(root, 'vault');
    const written = await writeSyntheticVault(vault, { notes: options.notes, seed: options.seed });
    result.bytes = written.bytes;
    const notes = new Map<string, string>();
    for (const note of generateSyntheticVault({ notes: options.notes, seed: options.seed })) notes.set(note.path, note.content);
    const matching = new Map(BENCH_QUERIES.map((q) => [q.key, notesContaining(notes, q.needle)] as const));
    for (const [key, paths] of matching) result.matching[key] = paths.size;
    log(`generated ${count(written.notes)} notes (${(written.bytes / 1e6).toFixed(1)} MB); matches: ${[...matching].map(([k, p]) => `${k} ${p.size}`).join(', ')}`);

    const fts5 = await buildFts5Baseline(vault);
    cleanups.push(() => fts5.close());
    result.engines.SQLite = fts5.engine;
    result.fts5 = { buildSeconds: fts5.buildMs / 1000, rows: fts5.rows };
    if (fts5.rows !== options.notes) result.failures.push(`FTS5 build indexed ${count(fts5.rows)} notes, expected ${count(options.notes)}`);
    log(`  SQLite FTS5: build ${(fts5.buildMs / 1000).toFixed(2)} s (${count(fts5.rows)} rows)`);

    const subjects: SearchSubject[] = [];
    const works = new Map<EngineResult, DatabaseWork>();
    const engines: KgateEngine[] = [];
    const pglite = await openPgliteEngine(root, vault, options.notes);
    cleanups.push(() => pglite.close());
    engines.push(pglite);
    result.kgate.push(await prepareEngine(pglite, result, matching, subjects, works, log));
    const postgres = await openPostgresEngine(benchServerUrl(options.serverUrl), vault, options.notes);
    if ('skipped' in postgres) {
      result.skipped.push({ engine: 'PostgreSQL', reason: postgres.skipped });
      log(`  PostgreSQL skipped: ${postgres.skipped}`);
    } else {
      cleanups.push(() => postgres.close());
      engines.push(postgres);
      result.kgate.push(await prepareEngine(postgres, result, matching, subjects, works, log));
    }

    subjects.push(fts5.subject, ripgrepSubject(vault));
    const latencies = await measureLatencies(subjects, BENCH_QUERIES, matching, log);
    result.latency = latencies.latency;
    result.failures.push(...latencies.failures);
    for (const [row, work] of works) {
      for (const [key, sum] of work) row.database[key] = { statements: sum.statements / sum.calls, ms: sum.ms / sum.calls };
    }

    const sample = evenSample([...notes.keys()], GRAPH_SAMPLE);
    for (const [k, engine] of engines.entries()) {
      const graph = await measureGraph(engine, sample, options.notes);
      (result.kgate[k] as EngineResult).graph = graph;
      result.failures.push(...graph.failures);
      log(`  kgate on ${engine.name}: graph p50 ${graph.latency.p50.toFixed(2)} ms, p95 ${graph.latency.p95.toFixed(2)} ms`);
    }
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`cleanup failed: ${String(error)}`));
    await rm(root, { recursive: true, force: true });
  }
  result.load.after = loadavg()[0] ?? 0;
  return result;
}

/** The vault search benchmark as `bench/run.ts` runs it (`--only vault-search`). */
export const vaultSearch: Benchmark = {
  title: 'Vault search',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return vaultSearchReport(await measureVaultSearch({ notes: options.notes, seed: options.seed, repeat: options.repeat }));
  },
};
