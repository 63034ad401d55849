/**
 * The driver the benchmarks of a served gateway share: measure on embedded PGlite (a fresh data directory), then on a
 * scratch database of the PostgreSQL server (dropped afterwards), in a temporary folder removed at the end. A server
 * that cannot be used is reported as skipped, with its reason, never as a failure of kgate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineName } from '../http/installation.ts';
import { benchServerUrl, createScratchDatabase } from './scratch-postgres.ts';

/** One engine to measure: the environment that selects it for `kgate serve` or a gateway, and what a report names. */
export interface ServedEngine {
  engine: EngineName;
  /** `KGATE_DATA_DIR` for PGlite, `DATABASE_URL` for PostgreSQL. */
  env: Record<string, string>;
  /** PostgreSQL only: the server's version as the report shows it ("16.4 (...)"), without the "PostgreSQL " prefix. */
  version?: string;
  /** PostgreSQL only: the scratch database's name. */
  database?: string;
  /** The temporary folder of the whole measurement (shared by both engines; removed at the end). */
  root: string;
}

/** What `measureOnServedEngines` gathered: one value per engine measured, and why an engine was skipped. */
export interface ServedEngineRuns<T> {
  runs: T[];
  skipped: Array<{ engine: EngineName; reason: string }>;
}

/**
 * Runs `measure` on PGlite, then on PostgreSQL (the server of `serverUrl`, KGATE_BENCH_DATABASE_URL, or the local
 * one). `prefix` names the temporary folder; `log` hears why PostgreSQL was skipped.
 */
export async function measureOnServedEngines<T>(
  prefix: string,
  measure: (engine: ServedEngine) => Promise<T>,
  options: { serverUrl?: string; log?: (line: string) => void } = {},
): Promise<ServedEngineRuns<T>> {
  const root = await mkdtemp(join(tmpdir(), `kgate-bench-${prefix}-`));
  const out: ServedEngineRuns<T> = { runs: [], skipped: [] };
  try {
    out.runs.push(await measure({ engine: 'PGlite', env: { KGATE_DATA_DIR: join(root, 'data') }, root }));
    const scratch = await createScratchDatabase(benchServerUrl(options.serverUrl));
    if ('skipped' in scratch) {
      out.skipped.push({ engine: 'PostgreSQL', reason: scratch.skipped });
      options.log?.(`  PostgreSQL skipped: ${scratch.skipped}`);
      return out;
    }
    try {
      const version = scratch.version.replace(/^PostgreSQL /, '');
      out.runs.push(await measure({ engine: 'PostgreSQL', env: { DATABASE_URL: scratch.url }, version, database: scratch.name, root }));
    } finally {
      await scratch.drop();
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return out;
}
