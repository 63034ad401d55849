/**
 * HTTP throughput: requests per second and latency of the real `kgate serve` under 50 concurrent connections, on
 * embedded PGlite and on server PostgreSQL, for reading a note (REST, and MCP `get_note_content`), searching,
 * MCP `tools/list` and a 10-action note transaction (previewed and applied), each beside a hello-world route
 * (`GET /healthz`) of the same server measured in the same run; then one JSON-RPC batch of 10,000 calls.
 *
 * Per database: a fresh installation set up with `kgate admin bootstrap --json`, the account's REST allowances
 * raised (see `http/installation.ts`), `kgate serve` started as a child process, 10 seed notes written through the
 * API, then each scenario (`http/scenarios.ts`) warmed up and measured with autocannon (`http/load.ts`). Every
 * response body is checked; any error, non-2xx answer, wrong body, server log line at warn or above, or a note
 * count that does not match the applied writes fails the benchmark. After the server stops, the same database is
 * opened in this process to count statements per request at one client (`http/round-trips.ts`) and to measure the
 * usage reservation alone under 50 callers, for one account and for 50 (`http/reservations.ts`).
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Database } from '../src/db/port.ts';
import type { Actor } from '../src/kernel/principal.ts';
import { createServices } from '../src/app/services.ts';
import {
  bootstrapInstallation,
  openInstallation,
  prepareAccounts,
  forEachLogEntry,
  isLoud,
  startServer,
  type Bootstrapped,
  type EngineName,
} from './http/installation.ts';
import { measureBigBatch, type BigBatchResult } from './http/big-batch.ts';
import { measureScenario, standardLoad, type LoadOptions, type Measurement } from './http/load.ts';
import { httpThroughputReport } from './http/report.ts';
import { measureReservations, type ReservationRates } from './http/reservations.ts';
import { measureRoundTrips, type RoundTrips } from './http/round-trips.ts';
import { APPLY_FOLDER_PREFIX, scenarios, seedNotes, TRANSACTION_ACTIONS, type Scenario, type Target } from './http/scenarios.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { describePglite } from './support/pglite-version.ts';
import { measureOnServedEngines } from './support/served-engines.ts';

/** Options of {@link measureHttpThroughput}. */
export interface HttpThroughputOptions extends LoadOptions {
  /** PostgreSQL server for the scratch database; defaults to KGATE_BENCH_DATABASE_URL or the local one. */
  serverUrl?: string;
  /** Requests per scenario in the one-client statement count (after 20 uncounted ones); default 100. */
  roundTripRequests?: number;
  log?: (line: string) => void;
}

/** Everything measured on one database. */
export interface EngineResult {
  engine: EngineName;
  version: string;
  measurements: Measurement[];
  roundTrips: Map<Scenario['key'], RoundTrips>;
  reservations: ReservationRates;
  /** Request lines in the server log. */
  requestLogLines: number;
  /** One JSON-RPC batch of 10,000 calls, sent after the rows. */
  bigBatch: BigBatchResult;
  /** Hello-world again, before each row of {@link PAIRED_ROWS} and after the last: the rows' paired baselines. */
  helloRuns: Measurement[];
}

/**
 * The rows compared with hello-world by a share (issue 13's targets and their companions). Each is measured between
 * two hello-world runs and compared with their mean, so that a shared machine's drift over the minutes of the
 * benchmark does not decide a share: the first hello-world row alone would set every share.
 */
export const PAIRED_ROWS: ReadonlySet<Scenario['key']> = new Set(['read', 'readMany', 'search', 'searchVaried', 'toolsList', 'toolsListIdentity', 'noteContent']);

/** The whole benchmark's result. */
export interface HttpThroughputResult {
  options: LoadOptions;
  engines: EngineResult[];
  skipped: Array<{ engine: EngineName; reason: string }>;
  failures: string[];
}

/** Writes the seed notes through the API (one applied transaction) and returns them with their hashes. */
export async function seed(url: string, token: string, mappingId: string): Promise<Target['seeds']> {
  const notes = seedNotes();
  const response = await fetch(`${url}/api/dev/transactions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': `bench-seed-${randomBytes(6).toString('hex')}` },
    body: JSON.stringify({ mappingId, dryRun: false, actions: notes.map((n) => ({ type: 'write-note', path: n.path, content: n.content })) }),
  });
  const body = (await response.json()) as { applied?: boolean; actions?: Array<{ path: string; afterRevision: string }> };
  if (response.status !== 200 || body.applied !== true || body.actions?.length !== notes.length) {
    throw new Error(`seeding failed: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  return notes.map((note, k) => ({ ...note, hash: body.actions![k]!.afterRevision }));
}

/** The durability settings of a database, e.g. "fsync=off, synchronous_commit=on" (PGlite's defaults). */
async function durability(db: Database): Promise<string> {
  const rows = await db.query<{ name: string; setting: string }>(
    "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit') ORDER BY name",
  );
  return rows.map((r) => `${r.name}=${r.setting}`).join(', ');
}

/**
 * The applied writes really happened, whole: the vault holds the demo notes, the seed notes and exactly 10 notes
 * per applied request, every applied folder complete. Autocannon counts only the answers it received before its
 * deadline, so the number of applied requests lies between its 2xx count and the number of requests it built.
 */
async function checkAppliedWrites(db: Database, boot: Bootstrapped, measurements: Measurement[], list: Scenario[]): Promise<string[]> {
  const actor: Actor = { accountId: boot.accountId, credentialKind: 'operator', client: 'kgate-bench' };
  const apply = measurements.find((m) => m.key === 'apply')!;
  const built = list.find((s) => s.key === 'apply')!.built!();
  const notes = await createServices(db).notes.countNotes(actor, boot.mappingId);
  const appliedNotes = notes - boot.seeded - TRANSACTION_ACTIONS;
  const failures: string[] = [];
  const low = TRANSACTION_ACTIONS * (apply.warmupOk + apply.ok);
  const high = TRANSACTION_ACTIONS * built;
  if (appliedNotes < low || appliedNotes > high) {
    failures.push(`${appliedNotes} notes written by applied requests, expected ${low} to ${high}`);
  }
  const partial = await db.query<{ folder: string; notes: number }>(
    `SELECT split_part(path, '/', 1) AS folder, count(*)::int AS notes FROM notes
      WHERE path LIKE $1 GROUP BY 1 HAVING count(*) <> $2 LIMIT 5`,
    [`${APPLY_FOLDER_PREFIX}%`, TRANSACTION_ACTIONS],
  );
  if (partial.length > 0) failures.push(`applied folders with a wrong number of notes: ${JSON.stringify(partial)}`);
  return failures;
}

async function runEngine(
  engine: EngineName,
  serverVersion: string | undefined,
  env: Record<string, string>,
  root: string,
  options: HttpThroughputOptions,
  failures: string[],
): Promise<EngineResult> {
  const log = options.log ?? (() => undefined);
  const boot = await bootstrapInstallation(env);
  // Far above what 10 s can use: reservation still runs on every request, it just never refuses.
  const readers = await prepareAccounts(env, boot, options.connections - 1, 1_000_000_000);
  const logFile = join(root, `${engine}-serve.log`);
  const server = await startServer(env, logFile);
  log(`  ${engine}: kgate serve (pid ${server.pid}) at ${server.url}, ${boot.seeded} demo notes`);
  const measurements: Measurement[] = [];
  const helloRuns: Measurement[] = [];
  let list: Scenario[];
  let bigBatch: BigBatchResult;
  try {
    const target: Target = {
      token: boot.token,
      mappingId: boot.mappingId,
      readers,
      seeds: await seed(server.url, boot.token, boot.mappingId),
      runId: randomBytes(4).toString('hex'),
    };
    list = scenarios(target);
    const helloScenario = list.find((s) => s.key === 'hello')!;
    // Hello-world again before each paired row and after the last of them: H P1 H P2 ... Pn H.
    const sequence = list.flatMap((scenario, k) => {
      const paired = PAIRED_ROWS.has(scenario.key);
      const lastPaired = paired && !list.slice(k + 1).some((next) => PAIRED_ROWS.has(next.key));
      return [...(paired ? [helloScenario] : []), scenario, ...(lastPaired ? [helloScenario] : [])];
    });
    const measured: Measurement[] = [];
    for (const [k, scenario] of sequence.entries()) {
      const m = await measureScenario(server.url, scenario, options, server);
      measured.push(m);
      const extraHello = scenario.key === 'hello' && k > 0;
      if (extraHello) helloRuns.push(m);
      else measurements.push(m);
      log(`  ${engine} ${scenario.key}${extraHello ? ' (paired)' : ''}: ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms`);
      const bad = m.errors + m.non2xx + m.mismatches;
      if (bad > 0) {
        failures.push(
          `${engine} ${scenario.key}: ${m.errors} errors, ${m.non2xx} non-2xx ${JSON.stringify(m.otherStatuses)}, ${m.mismatches} wrong bodies`,
        );
      }
    }
    for (const [k, m] of measured.entries()) {
      if (PAIRED_ROWS.has(m.key)) m.pairedHelloRps = (measured[k - 1]!.requestsPerSecond + measured[k + 1]!.requestsPerSecond) / 2;
    }
    bigBatch = await measureBigBatch(server.url, boot.token);
    log(`  ${engine} batch of 10,000: ${bigBatch.status} in at most ${Math.round(bigBatch.worstMs)} ms; healthz worst ${Math.round(bigBatch.newConnectionMs.max)} ms`);
    if (bigBatch.newConnectionMs.failed > 0) failures.push(`${engine} big batch: ${bigBatch.newConnectionMs.failed} health probes failed`);
  } finally {
    await server.stop();
  }

  // The log holds a line per request, millions of them: read as a stream, each measured run keeping only the
  // durations of its own requests (lines are written when a request finishes; those of the run's window are its).
  const durationsOf = measurements.map((): number[] => []);
  const loud: Array<Record<string, unknown>> = [];
  let requestLogLines = 0;
  await forEachLogEntry(logFile, (e) => {
    if (isLoud(e)) loud.push(e);
    if (e.msg !== 'request' || typeof e.time !== 'number' || typeof e.ms !== 'number') return;
    requestLogLines++;
    const time = e.time;
    const k = measurements.findIndex((m) => time >= m.window.from && time <= m.window.to);
    if (k >= 0) durationsOf[k]!.push(e.ms);
  });
  measurements.forEach((m, k) => {
    const durations = durationsOf[k]!.sort((a, b) => a - b);
    const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? Number.NaN;
    m.serverMs = { p50: at(0.5), p99: at(0.99), requests: durations.length };
  });
  if (loud.length > 0) failures.push(`${engine}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0])}`);

  // The applied writes really happened: every 2xx created exactly 10 notes.
  const opened = await openInstallation(env);
  let roundTrips: Map<Scenario['key'], RoundTrips>;
  let reservations: ReservationRates;
  let version: string;
  try {
    version = serverVersion ?? `${await describePglite(opened.db)}, ${await durability(opened.db)}`;
    failures.push(...(await checkAppliedWrites(opened.db, boot, measurements, list).then((f) => f.map((x) => `${engine}: ${x}`))));
    log(`  ${engine}: applied writes checked; counting statements per request at one client`);
    roundTrips = await measureRoundTrips(opened, list, { warmup: 20, count: options.roundTripRequests ?? 100 });
    log(`  ${engine}: usage reservations alone, ${options.connections} callers`);
    reservations = await measureReservations(
      opened.db,
      readers.map((r) => r.accountId),
      1500,
    );
  } finally {
    await opened.close();
  }
  return { engine, version, measurements, roundTrips, reservations, requestLogLines, bigBatch, helloRuns };
}

/** Runs the benchmark on PGlite (fresh data directory) and PostgreSQL (fresh scratch database; skipped when unreachable). */
export async function measureHttpThroughput(options: HttpThroughputOptions): Promise<HttpThroughputResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const result: HttpThroughputResult = {
    options: { connections: options.connections, warmupSeconds: options.warmupSeconds, seconds: options.seconds },
    engines: [],
    skipped: [],
    failures: [],
  };
  const measured = await measureOnServedEngines(
    'http',
    ({ engine, env, root, version }) => runEngine(engine, version, env, root, { ...options, log }, result.failures),
    { serverUrl: options.serverUrl, log },
  );
  result.engines.push(...measured.runs);
  result.skipped.push(...measured.skipped);
  return result;
}

/** The HTTP throughput benchmark as `bench/run.ts` runs it: 50 connections, 3 s warm-up, 10 s per row (or `--duration`). */
export const httpThroughput: Benchmark = {
  title: 'HTTP throughput',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return httpThroughputReport(await measureHttpThroughput(standardLoad(options.duration)));
  },
};
