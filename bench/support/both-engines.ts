/**
 * The loop the engine benchmarks share: write the synthetic vault once, import it into embedded PGlite and into a
 * scratch database of the PostgreSQL server (`search/kgate-engine.ts`), measure each in turn, close it, and remove
 * the scratch folder. A server that cannot be reached is reported as skipped, never as a failure of kgate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchmarkOptions } from './benchmark.ts';
import { count } from './format.ts';
import { benchServerUrl } from './scratch-postgres.ts';
import { openPgliteEngine, openPostgresEngine, type KgateEngine } from '../search/kgate-engine.ts';
import { writeSyntheticVault } from '../vault-generator.ts';

/** What `onBothEngines` gathered: each engine's figures, and lines and failures for the report. */
export interface EngineResults<T> {
  results: Array<{ engine: string; value: T }>;
  details: string[];
  failures: string[];
}

/**
 * Runs `measure` on PGlite, then on PostgreSQL, over the same synthetic vault of `options.notes` notes. `label` names
 * the benchmark in the progress lines. An engine whose import failed, or whose measurement threw, adds a failure.
 */
export async function onBothEngines<T>(
  label: string,
  options: BenchmarkOptions,
  measure: (engine: KgateEngine, report: { details: string[]; failures: string[] }) => Promise<T>,
): Promise<EngineResults<T>> {
  const root = await mkdtemp(join(tmpdir(), `kgate-bench-${label.replace(/\W+/g, '-')}-`));
  const out: EngineResults<T> = { results: [], details: [], failures: [] };
  try {
    const vault = join(root, 'vault');
    process.stderr.write(`${label}: writing ${count(options.notes)} notes\n`);
    await writeSyntheticVault(vault, { notes: options.notes, seed: options.seed });
    const engines: Array<() => Promise<KgateEngine | { skipped: string }>> = [
      () => openPgliteEngine(root, vault, options.notes),
      () => openPostgresEngine(benchServerUrl(), vault, options.notes),
    ];
    for (const open of engines) {
      const engine = await open();
      if ('skipped' in engine) {
        out.details.push(`PostgreSQL skipped: ${engine.skipped}`);
        continue;
      }
      try {
        out.failures.push(...engine.failures);
        process.stderr.write(`${label}: measuring on ${engine.name}\n`);
        out.results.push({ engine: engine.name, value: await measure(engine, out) });
      } catch (error) {
        out.failures.push(`${engine.name}: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await engine.close();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return out;
}
