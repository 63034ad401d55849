/**
 * Import throughput: how many notes per second `kgate import` stores, on embedded PGlite and on server
 * PostgreSQL, next to baselines measured in the same run on the same synthetic vault:
 *
 * - A: listing and reading the folder only, with the same `listVaultFolder` / `readNoteFiles` code (batches of
 *   250 read concurrently) that the import uses;
 * - B: the same listing and reads, plus a SHA-256 per note and better-sqlite3 inserts of (path, content, hash) in
 *   transactions of 250 rows into an on-disk WAL-mode SQLite file: a minimal "store the files" job;
 * - a reference row that reads the same files with `readFileSync` (not the import's code), to show how much of
 *   the reading cost is the file system and how much is the way the files are read.
 *
 * kgate runs twice per database over the same folder: a first import (every note created) and a second one
 * (every note unchanged). Counts are checked; a wrong count fails the benchmark. Every run is repeated (fresh
 * databases each time) and the median is reported.
 *
 * Phases inside kgate's import are timed from outside `src/` by wrapping the database port and the notes
 * service handed to `importFolder`: reading files, preparing batches (path checks, hashes, titles), each SQL
 * statement kind, and the rest of each transaction (BEGIN/COMMIT and the JavaScript between statements).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Sqlite from 'better-sqlite3';
import pg from 'pg';
import { importFolder, type ImportReport } from '../src/cli/import-folder.ts';
import { listVaultFolder, readNoteFiles } from '../src/cli/vault-folder.ts';
import { loadConfig } from '../src/config.ts';
import type { Database, Row, Sql } from '../src/db/port.ts';
import type { NotesService } from '../src/domains/notes/index.ts';
import type { Actor } from '../src/kernel/principal.ts';
import { createServices, openDatabase } from '../src/main.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './run.ts';
import { writeSyntheticVault } from './vault-generator.ts';

/** The PostgreSQL server used when KGATE_BENCH_DATABASE_URL is not set (local, trust auth). */
export const DEFAULT_BENCH_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Notes per batch in the baselines (files read at once, rows per SQLite transaction): the same as `kgate import`. */
const SQLITE_BATCH = 250;

/** The phases runs are broken into, in display order. */
export const PHASES = [
  'read files',
  'prepare batches',
  'SQL: mapping check',
  'SQL: lock vault',
  'SQL: look up hashes',
  'SQL: upsert notes',
  'SQL: provenance events',
  'BEGIN/COMMIT + JS in transaction',
  'SQLite insert + commit',
] as const;

/** One of {@link PHASES}. */
export type Phase = (typeof PHASES)[number];

/** One measured run (the median of its repetitions): what ran, how many notes, how long. */
export interface ThroughputRow {
  /** Short name of the run, e.g. "kgate on PGlite, first import". */
  label: string;
  /** Which system ran: "baseline", "reference", "PGlite" or "PostgreSQL". */
  system: string;
  notes: number;
  /** Median wall time over the repetitions. */
  seconds: number;
  notesPerSecond: number;
  /** Fastest and slowest repetition, in seconds. */
  range: [number, number];
  /** What was checked about the outcome, e.g. "20,000 created". */
  outcome: string;
  /** Milliseconds per phase of the median repetition (only for runs timed by phase). */
  phases?: Partial<Record<Phase, number>>;
}

/** Everything the import throughput benchmark measured. */
export interface ImportThroughputResult {
  notes: number;
  seed: number;
  repeat: number;
  /** Total UTF-8 bytes of the generated notes. */
  bytes: number;
  rows: ThroughputRow[];
  /** Versions of the engines measured, e.g. { PGlite: "0.5.16 (PostgreSQL 18.6)" }. */
  engines: Record<string, string>;
  /** Median seconds spent opening (creating + migrating) each kgate database; not part of the import timings. */
  openSeconds: Record<string, number>;
  /** Engines that were not measured, with the reason. */
  skipped: Array<{ engine: string; reason: string }>;
  /** Wrong counts; a non-empty list means the import is broken and the numbers are meaningless. */
  failures: string[];
}

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

// ---------------------------------------------------------------------------
// Phase timing from outside src/

/** Accumulates milliseconds per phase. */
class PhaseClock {
  readonly totals = new Map<Phase | 'importNotes' | 'in transaction', number>();

  add(phase: Phase | 'importNotes' | 'in transaction', ms: number): void {
    this.totals.set(phase, (this.totals.get(phase) ?? 0) + ms);
  }

  get(phase: Phase | 'importNotes' | 'in transaction'): number {
    return this.totals.get(phase) ?? 0;
  }

  reset(): void {
    this.totals.clear();
  }
}

/** Names a statement by what it does in an import. */
function statementPhase(text: string): Phase {
  const sql = text.replace(/\s+/g, ' ').trim();
  if (/^INSERT INTO notes\b/i.test(sql)) return 'SQL: upsert notes';
  if (/^INSERT INTO provenance_events\b/i.test(sql)) return 'SQL: provenance events';
  if (/^SELECT path_key, path, content_hash FROM notes\b/i.test(sql)) return 'SQL: look up hashes';
  if (/FROM vaults WHERE id = \$1 FOR UPDATE/i.test(sql)) return 'SQL: lock vault';
  return 'SQL: mapping check';
}

function timedSql(target: Sql, clock: PhaseClock, inTransaction: { ms: number } | undefined): Sql {
  return {
    async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
      const started = performance.now();
      try {
        return await target.query<R>(text, params);
      } finally {
        const ms = performance.now() - started;
        clock.add(statementPhase(text), ms);
        if (inTransaction) inTransaction.ms += ms;
      }
    },
    exec: (script: string) => target.exec(script),
  };
}

/**
 * Wraps the database port so every statement's time is charged to a phase, and the rest of each transaction
 * (BEGIN, COMMIT, JavaScript between statements) to "BEGIN/COMMIT + JS in transaction". Costs two
 * `performance.now()` calls per statement: microseconds against statements that take milliseconds.
 */
function timedDatabase(db: Database, clock: PhaseClock): Database {
  return {
    engine: db.engine,
    ...timedSql(db, clock, undefined),
    async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      const inside = { ms: 0 };
      const started = performance.now();
      try {
        return await db.transaction((tx) => work(timedSql(tx, clock, inside)));
      } finally {
        clock.add('in transaction', performance.now() - started);
        clock.add('BEGIN/COMMIT + JS in transaction', performance.now() - started - inside.ms);
      }
    },
    close: () => db.close(),
  };
}

/** Wraps `importNotes` to time each batch, so that the rest of `importFolder` is listing and reading files. */
function timedNotes(notes: NotesService, clock: PhaseClock): NotesService {
  return {
    ...notes,
    async importNotes(actor, mappingId, files, options) {
      const started = performance.now();
      try {
        return await notes.importNotes(actor, mappingId, files, options);
      } finally {
        clock.add('importNotes', performance.now() - started);
      }
    },
  };
}

/** The phases of one import pass, summing to its wall time. */
function importPhases(clock: PhaseClock, wallMs: number): Partial<Record<Phase, number>> {
  const phases: Partial<Record<Phase, number>> = {
    'read files': wallMs - clock.get('importNotes'),
    'prepare batches': clock.get('importNotes') - clock.get('in transaction'),
  };
  for (const [phase, ms] of clock.totals) {
    if (phase !== 'importNotes' && phase !== 'in transaction') phases[phase] = ms;
  }
  return phases;
}

// ---------------------------------------------------------------------------
// The runs

/** One repetition of one run. */
interface Sample {
  label: string;
  system: string;
  notes: number;
  ms: number;
  outcome: string;
  phases?: Partial<Record<Phase, number>>;
}

const count = (n: number): string => n.toLocaleString('en-US');

/** Baseline A: list the folder and read every note, as `importFolder` does, with no database. */
async function readOnlyBaseline(dir: string): Promise<Sample> {
  const started = performance.now();
  const paths = (await listVaultFolder(dir)).filter((e) => e.kind === 'note').map((e) => e.path);
  let read = 0;
  for (let start = 0; start < paths.length; start += SQLITE_BATCH) {
    const contents = await readNoteFiles(dir, paths.slice(start, start + SQLITE_BATCH));
    read += contents.filter((content) => content !== undefined).length;
  }
  const ms = performance.now() - started;
  return { label: 'Baseline A: list + read files, no database', system: 'baseline', notes: read, ms, outcome: `${count(read)} read` };
}

/** Reference: the same files read with `readFileSync` and decoded, to show what reading costs the file system. */
async function syncReadReference(dir: string): Promise<Sample> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const started = performance.now();
  const entries = await listVaultFolder(dir);
  let read = 0;
  for (const entry of entries) {
    if (entry.kind !== 'note') continue;
    decoder.decode(readFileSync(join(dir, ...entry.path.split('/'))));
    read++;
  }
  const ms = performance.now() - started;
  return {
    label: 'Reference: list + readFileSync (not the import’s code)',
    system: 'reference',
    notes: read,
    ms,
    outcome: `${count(read)} read`,
  };
}

/** Baseline B: the same reads, a SHA-256 each, and better-sqlite3 inserts in transactions of 250 (WAL mode). */
async function sqliteBaseline(dir: string): Promise<{ sample: Sample; engine: string }> {
  const tmp = await mkdtemp(join(tmpdir(), 'kgate-bench-sqlite-'));
  try {
    const db = new Sqlite(join(tmp, 'notes.db'));
    try {
      db.pragma('journal_mode = WAL');
      const synchronous = db.pragma('synchronous', { simple: true }) as number;
      const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
      db.exec('CREATE TABLE notes (path TEXT PRIMARY KEY, content TEXT NOT NULL, content_hash TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO notes (path, content, content_hash) VALUES (?, ?, ?)');
      const insertBatch = db.transaction((batch: Array<[string, string, string]>) => {
        for (const values of batch) insert.run(...values);
      });
      let hashMs = 0;
      let insertMs = 0;
      const started = performance.now();
      const paths = (await listVaultFolder(dir)).filter((e) => e.kind === 'note').map((e) => e.path);
      for (let start = 0; start < paths.length; start += SQLITE_BATCH) {
        const batch: Array<[string, string, string]> = [];
        const slice = paths.slice(start, start + SQLITE_BATCH);
        const contents = await readNoteFiles(dir, slice);
        for (const [i, path] of slice.entries()) {
          const content = contents[i];
          if (content === undefined) continue;
          const t0 = performance.now();
          batch.push([path, content, `sha256:${createHash('sha256').update(content, 'utf8').digest('hex')}`]);
          hashMs += performance.now() - t0;
        }
        const t1 = performance.now();
        insertBatch(batch);
        insertMs += performance.now() - t1;
      }
      const ms = performance.now() - started;
      const stored = (db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
      const mode = ['OFF', 'NORMAL', 'FULL', 'EXTRA'][synchronous] ?? String(synchronous);
      return {
        sample: {
          label: 'Baseline B: read + SHA-256 + better-sqlite3 insert',
          system: 'baseline',
          notes: stored,
          ms,
          outcome: `${count(stored)} rows stored`,
          phases: { 'read files': ms - hashMs - insertMs, 'prepare batches': hashMs, 'SQLite insert + commit': insertMs },
        },
        engine: `${version} (better-sqlite3, WAL, synchronous=${mode})`,
      };
    } finally {
      db.close();
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Two `importFolder` passes over one fresh kgate database, exactly as `kgate import` runs them, timed by phase. */
async function kgateImportPasses(
  engine: string,
  db: Database,
  dir: string,
  expected: number,
): Promise<{ samples: Sample[]; failures: string[] }> {
  const clock = new PhaseClock();
  const services = createServices(timedDatabase(db, clock));
  const owner = await services.onboarding.bootstrapOwner({ email: 'bench@kgate.invalid' });
  const actor: Actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'kgate-bench' };
  const notes = timedNotes(services.notes, clock);
  const samples: Sample[] = [];
  const failures: string[] = [];
  const passes = [
    { name: 'first import', field: 'created' },
    { name: 'second import', field: 'unchanged' },
  ] as const;
  for (const pass of passes) {
    clock.reset();
    const started = performance.now();
    const report: ImportReport = await importFolder(notes, actor, owner.mapping.id, dir);
    const ms = performance.now() - started;
    const outcome =
      `${count(report.created)} created, ${count(report.updated)} updated, ${count(report.unchanged)} unchanged` +
      (report.rejected.length > 0 ? `, ${count(report.rejected.length)} rejected` : '');
    samples.push({ label: `kgate on ${engine}, ${pass.name}`, system: engine, notes: report.notes, ms, outcome, phases: importPhases(clock, ms) });
    const others = report.created + report.updated + report.unchanged - report[pass.field];
    if (report.notes !== expected || report[pass.field] !== expected || others !== 0 || report.rejected.length > 0) {
      failures.push(`${engine} ${pass.name}: expected ${count(expected)} ${pass.field} of ${count(report.notes)} notes found, got ${outcome}`);
    }
  }
  const stored = await services.notes.countNotes(actor, owner.mapping.id);
  if (stored !== expected) failures.push(`${engine}: ${count(stored)} notes stored, expected ${count(expected)}`);
  return { samples, failures };
}

/** Removes credentials from a connection URL before it is printed. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

function pgliteVersion(): string {
  // The package's `exports` hide package.json from resolution, so read it from node_modules directly.
  const manifest = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

type ScratchDatabase = { name: string; url: string; version: string; drop(): Promise<void> } | { skipped: string };

/** Creates `kgate_bench_<random>` on the server, or says why the server could not be used. */
async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => undefined);
    return { skipped: `cannot connect to ${redact(serverUrl)}: ${error instanceof Error ? error.message : String(error)}` };
  }
  const name = `kgate_bench_${randomBytes(6).toString('hex')}`;
  try {
    const server = (await admin.query<{ version: string }>('SELECT version()')).rows[0]?.version ?? 'unknown';
    const settings = await admin.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name",
    );
    const version = `${server.split(', compiled by')[0] ?? server} (local server over TCP, ${settings.rows
      .map((r) => `${r.name}=${r.setting}`)
      .join(', ')})`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    // Drop on Ctrl-C too, so that an interrupted run leaves no database behind.
    let dropped = false;
    const drop = async (): Promise<void> => {
      if (dropped) return;
      dropped = true;
      process.off('SIGINT', onInterrupt);
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await admin.end();
      }
    };
    const onInterrupt = (): void => {
      void drop().finally(() => process.exit(130));
    };
    process.once('SIGINT', onInterrupt);
    return { name, url: url.toString(), version, drop };
  } catch (error) {
    await admin.end().catch(() => undefined);
    return { skipped: `cannot create a scratch database: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** Collapses the repetitions of each run (same label) into one row: the median repetition, with the range. */
function toRows(samples: readonly Sample[]): ThroughputRow[] {
  const byLabel = new Map<string, Sample[]>();
  for (const s of samples) byLabel.set(s.label, [...(byLabel.get(s.label) ?? []), s]);
  return [...byLabel.values()].map((reps) => {
    const sorted = [...reps].sort((a, b) => a.ms - b.ms);
    const mid = sorted[Math.floor((sorted.length - 1) / 2)] as Sample;
    const seconds = mid.ms / 1000;
    return {
      label: mid.label,
      system: mid.system,
      notes: mid.notes,
      seconds,
      notesPerSecond: mid.notes / seconds,
      range: [(sorted[0] as Sample).ms / 1000, (sorted[sorted.length - 1] as Sample).ms / 1000],
      outcome: mid.outcome,
      ...(mid.phases ? { phases: mid.phases } : {}),
    };
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
  const serverUrl = options.serverUrl ?? process.env.KGATE_BENCH_DATABASE_URL ?? DEFAULT_BENCH_DATABASE_URL;
  const repeat = options.repeat ?? 3;
  const expected = options.notes;
  const result: ImportThroughputResult = {
    notes: expected,
    seed: options.seed,
    repeat,
    bytes: 0,
    rows: [],
    engines: { PGlite: pgliteVersion() },
    openSeconds: {},
    skipped: [],
    failures: [],
  };
  const samples: Sample[] = [];
  const opens: Record<string, number[]> = { PGlite: [], PostgreSQL: [] };
  const record = (sample: Sample, failure?: string): void => {
    samples.push(sample);
    log(`  ${sample.label}: ${(sample.ms / 1000).toFixed(2)} s (${sample.outcome})`);
    if (failure) result.failures.push(failure);
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

      // PGlite in a fresh data directory.
      const dataDir = await mkdtemp(join(root, 'pglite-'));
      let opening = performance.now();
      const pglite = await openDatabase(loadConfig({ KGATE_DATA_DIR: dataDir }), 'kgate-bench');
      try {
        opens.PGlite?.push(performance.now() - opening);
        const [v] = await pglite.db.query<{ version: string }>('SELECT version()');
        const inner = /PostgreSQL [\d.]+/.exec(v?.version ?? '')?.[0];
        result.engines.PGlite = `${pgliteVersion()}${inner ? ` (${inner} in WebAssembly, in-process)` : ''}`;
        const passes = await kgateImportPasses('PGlite', pglite.db, vault, expected);
        passes.samples.forEach((s) => record(s));
        result.failures.push(...passes.failures);
      } finally {
        await pglite.close();
        await rm(dataDir, { recursive: true, force: true });
      }

      // PostgreSQL in a fresh scratch database on the server.
      if (result.skipped.some((s) => s.engine === 'PostgreSQL')) continue;
      const scratch = await createScratchDatabase(serverUrl);
      if ('skipped' in scratch) {
        result.skipped.push({ engine: 'PostgreSQL', reason: scratch.skipped });
        log(`  PostgreSQL skipped: ${scratch.skipped}`);
        continue;
      }
      try {
        result.engines.PostgreSQL = scratch.version.replace(/^PostgreSQL /, '');
        opening = performance.now();
        const server = await openDatabase(loadConfig({ DATABASE_URL: scratch.url }), 'kgate-bench');
        try {
          opens.PostgreSQL?.push(performance.now() - opening);
          const passes = await kgateImportPasses('PostgreSQL', server.db, vault, expected);
          passes.samples.forEach((s) => record(s));
          result.failures.push(...passes.failures);
        } finally {
          await server.close();
        }
      } finally {
        await scratch.drop();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  result.rows = toRows(samples);
  for (const [engine, ms] of Object.entries(opens)) if (ms.length > 0) result.openSeconds[engine] = median(ms) / 1000;
  return result;
}

// ---------------------------------------------------------------------------
// Report

const fixed = (n: number, digits: number): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

const percent = (part: number, whole: number): string => `${Math.round((100 * part) / whole)}%`;

const sum = (values: readonly (number | undefined)[]): number => values.reduce<number>((a, b) => a + (b ?? 0), 0);

/** Milliseconds a run spent in its database (statements, transactions; SQLite inserts for baseline B). */
function databaseMs(row: ThroughputRow): number {
  const phases = row.phases ?? {};
  return sum(PHASES.filter((p) => p.startsWith('SQL') || p.startsWith('BEGIN')).map((p) => phases[p]));
}

/** How long the same reads take inside baseline B and the kgate imports, against baseline A alone. */
function readsInside(rows: readonly ThroughputRow[], readOnly: ThroughputRow): string {
  const inside = rows.map((r) => r.phases?.['read files']).filter((ms): ms is number => ms !== undefined);
  if (inside.length === 0) return '';
  const low = Math.min(...inside) / 1000;
  const high = Math.max(...inside) / 1000;
  if (low < readOnly.seconds * 1.2) return '';
  return (
    `Inside baseline B and the imports the same reads take ${fixed(low, 2)}–${fixed(high, 2)} s instead of ` +
    `baseline A's ${fixed(readOnly.seconds, 2)} s: an awaited read waits longer when other work runs between reads. `
  );
}

/** Sentences that read the numbers: kgate against the baselines, and where kgate's time goes. */
function interpretation(result: ImportThroughputResult): string[] {
  const rows = result.rows;
  const readOnly = rows.find((r) => r.label.startsWith('Baseline A'));
  const reference = rows.find((r) => r.system === 'reference');
  const sqlite = rows.find((r) => r.label.startsWith('Baseline B'));
  if (!readOnly || !reference || !sqlite) return [];
  const lines: string[] = [];
  const perFile = (row: ThroughputRow): string => `${fixed((row.seconds * 1e6) / row.notes, 0)} µs`;
  const firstImports = rows.filter((r) => r.label.endsWith('first import'));
  const readingLeads = firstImports.length > 0 && firstImports.every((r) => (r.phases?.['read files'] ?? 0) >= databaseMs(r));
  lines.push(
    (readingLeads ? 'Reading the files costs kgate more than its database does. ' : '') +
      `The import's reader (\`readNoteFiles\`: batches of 250 \`fs.promises.readFile\` calls in flight at once) ` +
      `costs ${perFile(readOnly)} per note here, against ${perFile(reference)} with \`readFileSync\`: each ` +
      `\`readFile\` is an open, a stat, a read and a close through libuv's thread pool, which the batches overlap. ` +
      readsInside(rows, readOnly) +
      `Storing in SQLite adds only ${fixed((sum([sqlite.phases?.['prepare batches'], sqlite.phases?.['SQLite insert + commit']]) / 1000), 2)} s ` +
      `(hash + insert) to baseline A's ${fixed(readOnly.seconds, 2)} s.`,
  );
  for (const engine of ['PGlite', 'PostgreSQL']) {
    const first = rows.find((r) => r.system === engine && r.label.endsWith('first import'));
    const second = rows.find((r) => r.system === engine && r.label.endsWith('second import'));
    if (!first || !second) continue;
    const phases = first.phases ?? {};
    const dbMs = databaseMs(first);
    const sqlPhases = PHASES.filter((p) => p.startsWith('SQL:') || p.startsWith('BEGIN'))
      .map((p) => ({ p, ms: phases[p] ?? 0 }))
      .sort((x, y) => y.ms - x.ms);
    const [top, next] = sqlPhases;
    lines.push(
      `On ${engine}, a first import stores ${fixed(first.notesPerSecond, 0)} notes/s, ` +
        `${percent(first.notesPerSecond, sqlite.notesPerSecond)} of the SQLite baseline's rate and ` +
        `${percent(first.notesPerSecond, readOnly.notesPerSecond)} of reading the files alone. ` +
        `Of its ${fixed(first.seconds, 1)} s, reading files takes ${fixed((phases['read files'] ?? 0) / 1000, 1)} s and ` +
        `the database ${fixed(dbMs / 1000, 1)} s (SQLite's inserts: ${fixed((sqlite.phases?.['SQLite insert + commit'] ?? 0) / 1000, 2)} s)` +
        (top && next ? `, mostly ${top.p.replace('SQL: ', '')} (${fixed(top.ms / 1000, 1)} s) and ${next.p.replace('SQL: ', '')} (${fixed(next.ms / 1000, 1)} s)` : '') +
        `. A second import of the unchanged folder runs at ${fixed(second.notesPerSecond, 0)} notes/s, ` +
        `${percent(second.notesPerSecond, readOnly.notesPerSecond)} of reading the files alone: ` +
        `the database spends ${fixed(databaseMs(second) / 1000, 2)} s finding that nothing changed.`,
    );
  }
  return lines;
}

/** Renders a measured result as the Markdown of the "Import throughput" section (tables, setup, reading). */
export function importThroughputReport(result: ImportThroughputResult): BenchmarkReport {
  const rangeHeader = result.repeat > 1 ? `Seconds (median of ${result.repeat})` : 'Seconds';
  const table = [
    `| Run | Notes | ${rangeHeader} | Range (s) | Notes/s | Outcome (checked) |`,
    '|---|--:|--:|--:|--:|---|',
    ...result.rows.map(
      (r) =>
        `| ${r.label} | ${count(r.notes)} | ${fixed(r.seconds, 2)} | ${fixed(r.range[0], 2)}–${fixed(r.range[1], 2)} | ` +
        `${fixed(r.notesPerSecond, 0)} | ${r.outcome} |`,
    ),
  ];
  const details: string[] = [];
  details.push(
    `- Vault: ${count(result.notes)} synthetic notes (seed ${result.seed}, ${(result.bytes / 1e6).toFixed(1)} MB) from ` +
      '`bench/vault-generator.ts`, written to a temporary folder just before, so reads come from the page cache.',
    `- Engines: ${Object.entries(result.engines)
      .map(([name, version]) => `${name} ${version}`)
      .join('; ')}.`,
    `- Each repetition uses fresh databases; opening + migrating them is not timed ` +
      `(${Object.entries(result.openSeconds)
        .map(([name, s]) => `${name} ${fixed(s, 1)} s`)
        .join(', ')}).`,
    ...result.skipped.map((s) => `- **${s.engine} was skipped:** ${s.reason}.`),
  );
  const timed = result.rows.filter((r) => r.phases);
  if (timed.length > 0) {
    const present = PHASES.filter((p) => timed.some((r) => (r.phases?.[p] ?? 0) > 0));
    const short = (label: string): string =>
      label.replace(/^Baseline B.*$/, 'Baseline B').replace(/^kgate on (\S+), (first|second) import$/, '$1 $2');
    details.push(
      '',
      'Where the time goes, in seconds (share of the run), for the median repetition:',
      '',
      `| Phase | ${timed.map((r) => short(r.label)).join(' | ')} |`,
      `|---|${timed.map(() => '--:').join('|')}|`,
      ...present.map(
        (p) =>
          `| ${p} | ${timed
            .map((r) => {
              const ms = r.phases?.[p];
              return ms === undefined ? '–' : `${fixed(ms / 1000, 2)} (${percent(ms, r.seconds * 1000)})`;
            })
            .join(' | ')} |`,
      ),
      '',
      '"read files" is `importFolder` outside `importNotes` (listing and reading); "prepare batches" is `importNotes` ' +
        'before its transaction (path checks, SHA-256, titles; for baseline B the SHA-256 alone); the SQL rows are ' +
        'statement round trips measured at the database port; "BEGIN/COMMIT + JS in transaction" is the rest of each ' +
        'transaction.',
    );
  }
  const reading = interpretation(result);
  if (reading.length > 0) details.push('', reading.join('\n\n'));
  if (result.failures.length > 0) {
    details.push('', '**The import is broken; these numbers are meaningless:**', '', ...result.failures.map((f) => `- ${f}`));
  }
  return { table, details, failures: result.failures };
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
