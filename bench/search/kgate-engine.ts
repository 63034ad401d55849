/**
 * kgate on one database for the search benchmark: a fresh database (PGlite in a temporary data directory, or a
 * scratch PostgreSQL database), the owner bootstrapped, the vault folder imported the way `kgate import` does it
 * (timed: the import computes and stores every note's Markdown model, which is what search is built from), and
 * kgate's search service as a search subject, called in-process (no HTTP).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { importFolder } from '../../src/cli/import-folder.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/port.ts';
import type { SearchService } from '../../src/domains/search/contract.ts';
import type { Actor } from '../../src/kernel/principal.ts';
import { createServices } from '../../src/app/services.ts';
import { openDatabase, type OpenedDatabase } from '../../src/app/database.ts';
import { count } from '../support/format.ts';
import { describePglite } from '../support/pglite-version.ts';
import { createScratchDatabase, type ScratchDatabaseSkipped } from '../support/scratch-postgres.ts';
import type { DatabaseMeter } from './db-meter.ts';
import type { SearchSubject } from './latency.ts';
import { RESULT_LIMIT, type BenchQuery, type SearchAnswer } from './queries.ts';

/** The databases kgate runs on. */
export type EngineName = 'PGlite' | 'PostgreSQL';

/** One kgate database with the vault imported. */
export interface KgateEngine {
  name: EngineName;
  /** e.g. "0.5.16 (PostgreSQL 18.6 in WebAssembly, on a worker thread of the process that opens it)". */
  version: string;
  /** Opening + migrating the fresh database (not part of any timing). */
  openMs: number;
  /** Wall time of `importFolder` over the vault: every note created with its Markdown model. */
  importMs: number;
  /** What the import reported, e.g. "20,000 created". */
  importOutcome: string;
  db: Database;
  actor: Actor;
  mappingId: string;
  /** Wrong import counts. */
  failures: string[];
  /** Closes the database and removes what it was stored in. */
  close(): Promise<void>;
}

/** Bootstraps the owner on an opened database and imports the vault folder, timed and checked. */
async function importVault(
  name: EngineName,
  version: string,
  opened: OpenedDatabase,
  openMs: number,
  vault: string,
  expected: number,
  close: () => Promise<void>,
): Promise<KgateEngine> {
  const services = createServices(opened.db);
  const owner = await services.onboarding.bootstrapOwner({ email: 'bench@kgate.invalid' });
  const actor: Actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'kgate-bench' };
  const started = performance.now();
  const report = await importFolder(services.notes, actor, owner.mapping.id, vault);
  const importMs = performance.now() - started;
  const failures: string[] = [];
  if (report.created !== expected || report.rejected.length > 0) {
    failures.push(`${name} import: ${count(report.created)} created and ${count(report.rejected.length)} rejected, expected ${count(expected)} created`);
  }
  return { name, version, openMs, importMs, importOutcome: `${count(report.created)} created`, db: opened.db, actor, mappingId: owner.mapping.id, failures, close };
}

/** kgate on PGlite in a fresh data directory under `root` (removed on close), with the vault imported. */
export async function openPgliteEngine(root: string, vault: string, expected: number): Promise<KgateEngine> {
  const dataDir = await mkdtemp(join(root, 'pglite-'));
  const opening = performance.now();
  const opened = await openDatabase(loadConfig({ KGATE_DATA_DIR: dataDir }), 'kgate-bench');
  const close = async (): Promise<void> => {
    await opened.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const openMs = performance.now() - opening;
    return await importVault('PGlite', await describePglite(opened.db), opened, openMs, vault, expected, close);
  } catch (error) {
    await close();
    throw error;
  }
}

/** kgate on a scratch PostgreSQL database (dropped on close), with the vault imported; the reason when skipped. */
export async function openPostgresEngine(serverUrl: string, vault: string, expected: number): Promise<KgateEngine | ScratchDatabaseSkipped> {
  const scratch = await createScratchDatabase(serverUrl);
  if ('skipped' in scratch) return scratch;
  let opened: OpenedDatabase | undefined;
  const close = async (): Promise<void> => {
    try {
      await opened?.close();
    } finally {
      await scratch.drop();
    }
  };
  try {
    const opening = performance.now();
    opened = await openDatabase(loadConfig({ DATABASE_URL: scratch.url }), 'kgate-bench');
    const openMs = performance.now() - opening;
    return await importVault('PostgreSQL', scratch.version.replace(/^PostgreSQL /, ''), opened, openMs, vault, expected, close);
  } catch (error) {
    await close();
    throw error;
  }
}

/** One search through kgate's service, as the benchmark's answer. */
export async function kgateSearch(search: SearchService, engine: KgateEngine, query: BenchQuery): Promise<SearchAnswer> {
  const page = await search.searchNotes(engine.actor, engine.mappingId, { query: query.kgateQuery, limit: RESULT_LIMIT });
  return { paths: page.results.map((r) => r.path), snippets: page.results.map((r) => r.snippet), truncated: page.truncated };
}

/** Database work of kgate's searches per query, summed over the calls. */
export type DatabaseWork = Map<BenchQuery['key'], { calls: number; statements: number; ms: number }>;

/**
 * kgate's search service on one engine as a search subject. `meter` must be the metered database the service was
 * created over; each call's statements and database time are added to `work`.
 */
export function kgateSubject(search: SearchService, engine: KgateEngine, meter: DatabaseMeter): { subject: SearchSubject; work: DatabaseWork } {
  const work: DatabaseWork = new Map();
  const subject: SearchSubject = {
    name: `kgate on ${engine.name}`,
    kind: 'top',
    async search(query) {
      const statements = meter.statements;
      const ms = meter.ms;
      try {
        return await kgateSearch(search, engine, query);
      } finally {
        const sum = work.get(query.key) ?? { calls: 0, statements: 0, ms: 0 };
        work.set(query.key, { calls: sum.calls + 1, statements: sum.statements + meter.statements - statements, ms: sum.ms + meter.ms - ms });
      }
    },
  };
  return { subject, work };
}
