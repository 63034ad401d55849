/**
 * Knowledge compilation: what compiling knowledge costs, on embedded PGlite and on server PostgreSQL.
 * - Per applied change (`knowledge/apply-cost.ts`): the same governed applies with compilation in the transaction
 *   and without it, same run, same database: the difference is compilation's cost.
 * - Over the whole synthetic vault (`knowledge/backlog.ts`): the background compiler from nothing, in notes and
 *   records per second, beside reading every note, compiling in memory, and the Markdown reindex.
 * Every count is checked; a wrong one fails the benchmark. `knowledge/report.ts` renders the section.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { pgliteVersion } from './support/pglite-version.ts';
import { benchServerUrl, type ScratchDatabaseSkipped } from './support/scratch-postgres.ts';
import { APPLY_VAULT_NOTES, measureApplyCost } from './knowledge/apply-cost.ts';
import { measureBacklog } from './knowledge/backlog.ts';
import { knowledgeCompilationReport, type KnowledgeCompilationResult } from './knowledge/report.ts';
import { openPgliteWorkbench, openPostgresWorkbench, type Workbench } from './knowledge/workbench.ts';
import { generateSyntheticVault } from './vault-generator.ts';

/** Options of {@link measureKnowledgeCompilation}. */
export interface KnowledgeCompilationOptions {
  notes: number;
  seed: number;
  /** Repetitions of each pass over the vault; the median is reported (default 3). */
  repeat?: number;
  /** PostgreSQL server to create the scratch database on; defaults to KGATE_BENCH_DATABASE_URL or the local one. */
  serverUrl?: string;
  log?: (line: string) => void;
}

/**
 * Runs the benchmark on PGlite, then on a scratch PostgreSQL database (skipped, with the reason, when the server
 * cannot be used): on each, the passes over the vault first, then the applies, on the same fresh database.
 */
export async function measureKnowledgeCompilation(options: KnowledgeCompilationOptions): Promise<KnowledgeCompilationResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const repeat = options.repeat ?? 3;
  const result: KnowledgeCompilationResult = {
    notes: options.notes,
    seed: options.seed,
    repeat,
    engines: { PGlite: pgliteVersion() },
    apply: [],
    backlog: [],
    skipped: [],
    load: { before: loadavg()[0] ?? 0, after: 0 },
    failures: [],
  };
  const vault = [...generateSyntheticVault({ notes: options.notes, seed: options.seed })];
  const applyVault = [...generateSyntheticVault({ notes: APPLY_VAULT_NOTES, seed: options.seed + 1 })];
  const root = await mkdtemp(join(tmpdir(), 'kgate-bench-knowledge-'));
  const run = async (bench: Workbench) => {
    try {
      result.engines[bench.engine] = bench.version;
      const backlog = await measureBacklog(bench, vault, repeat, log);
      result.backlog.push(backlog);
      result.failures.push(...backlog.failures);
      const apply = await measureApplyCost(bench, applyVault, log);
      result.apply.push(apply);
      result.failures.push(...apply.failures);
    } finally {
      await bench.close();
    }
  };
  try {
    await run(await openPgliteWorkbench(root));
    const postgres: Workbench | ScratchDatabaseSkipped = await openPostgresWorkbench(benchServerUrl(options.serverUrl));
    if ('skipped' in postgres) {
      result.skipped.push({ engine: 'PostgreSQL', reason: postgres.skipped });
      log(`  PostgreSQL skipped: ${postgres.skipped}`);
    } else {
      await run(postgres);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  result.load.after = loadavg()[0] ?? 0;
  return result;
}

/** The knowledge compilation benchmark as `bench/run.ts` runs it (`--only knowledge-compilation`). */
export const knowledgeCompilation: Benchmark = {
  title: 'Knowledge compilation',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return knowledgeCompilationReport(await measureKnowledgeCompilation({ notes: options.notes, seed: options.seed, repeat: options.repeat }));
  },
};
