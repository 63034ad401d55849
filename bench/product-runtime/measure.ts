/**
 * The Product Runtime benchmark's measurements on one database: the installation and chain (`setup.ts`), the real
 * `kgate serve` as a child process, rounds of every row under autocannon (`http/load.ts`), then, with the server
 * stopped, the published notes and the organization's metered operations checked against the answers, and the
 * statements per request counted at one client (`statements.ts`).
 */
import { join } from 'node:path';
import type { Database } from '../../src/db/port.ts';
import { loudLogEntries, openInstallation, startServer, type EngineName } from '../http/installation.ts';
import { measureScenario, type LoadOptions, type Measurement } from '../http/load.ts';
import { describePglite } from '../support/pglite-version.ts';
import { PAIRS, PUBLISH_PREFIX, ROW_KEYS, newRunId, rowScenario, type PublishCounters, type RowKey, type RowScenario } from './scenarios.ts';
import { fetchRuntimeToken, prepareRuntimeInstallation, type RuntimeInstallation } from './setup.ts';
import { countStatements, type StatementCounts, type StatementKind } from './statements.ts';
import { planCosts, type PlanCost } from './plan-cost.ts';
import { envelopeCost, type EnvelopeCost } from './envelope-cost.ts';
import { backendSecondsBetween, backendSnapshot } from './backend-cpu.ts';

/** Everything measured on one database. */
export interface EngineRun {
  engine: EngineName;
  version: string;
  /** Every round's measurement of each row, in round order. */
  rounds: Map<RowKey, Measurement<RowKey>[]>;
  /**
   * PostgreSQL only: CPU milliseconds of the benchmark database's backends per 2xx answer, each round's, measured over
   * the row's warm-up and measured run together (the load generator's window is not visible from here).
   */
  backendCpuMs: Map<RowKey, number[]>;
  statements: Map<RowKey, StatementCounts>;
  /** The organization's metered operations after the load, and the runtime rows' 2xx answers counted by autocannon. */
  metered: { used: number; answered: number };
  /** Notes each publishing row left in the vault, and the bounds they had to fall within. */
  published: Record<'devPublish' | 'runtimePublish', { notes: number; low: number; high: number }>;
  /** The V1 envelope of the runtime read beside its data alone. */
  envelope: EnvelopeCost;
  /** Planning and execution time inside the database of the statements the runtime read adds. */
  plans: Partial<Record<StatementKind, PlanCost>>;
}

/** The statements a runtime read runs that a Developer REST read does not. */
export const RUNTIME_STATEMENTS: readonly StatementKind[] = ['chain', 'customer', 'grant', 'metering'];

/** Requests per row and order at one client (two orders: 2 × this many per row). */
export const STATEMENT_REQUESTS = 100;

const RUNTIME_ROWS: ReadonlySet<RowKey> = new Set(['runtimeRead', 'runtimePublish']);

/** A round's order: ROW_KEYS, with the two rows of each pair swapped on odd rounds, so neither always goes first. */
export function roundOrder(round: number): RowKey[] {
  if (round % 2 === 0) return [...ROW_KEYS];
  const order = [...ROW_KEYS];
  for (const pair of PAIRS) {
    const a = order.indexOf(pair.runtime);
    const b = order.indexOf(pair.baseline);
    [order[a], order[b]] = [order[b]!, order[a]!];
  }
  return order;
}

/** Runs `rounds` rounds on the installation of `env`; failures go to `failures`. */
export async function measureEngine(
  engine: EngineName,
  server: { version: string; database: string } | undefined,
  env: Record<string, string>,
  root: string,
  options: LoadOptions & { rounds: number; log: (line: string) => void },
  failures: string[],
): Promise<EngineRun> {
  const target = await prepareRuntimeInstallation(env);
  const logFile = join(root, `${engine}-serve.log`);
  const serve = await startServer(env, logFile);
  options.log(`  ${engine}: kgate serve (pid ${serve.pid}) at ${serve.url}, ${target.seeded} demo notes, chain made`);
  const runId = newRunId();
  const counters: PublishCounters = { devPublish: 0, runtimePublish: 0 };
  const rounds = new Map<RowKey, Measurement<RowKey>[]>(ROW_KEYS.map((k) => [k, []]));
  const backendCpuMs = new Map<RowKey, number[]>(ROW_KEYS.map((k) => [k, []]));
  const built = { devPublish: 0, runtimePublish: 0 };
  let envelope: EnvelopeCost;
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const key of roundOrder(round)) {
        const token = RUNTIME_ROWS.has(key) ? await fetchRuntimeToken(serve.url, target) : '';
        const scenario = rowScenario(key, target, token, runId, counters);
        const backendsBefore = server && backendSnapshot(server.database);
        const m = await measureScenario(serve.url, scenario, options, serve);
        const backendsAfter = server && backendSnapshot(server.database);
        rounds.get(key)!.push(m);
        if (backendsBefore !== undefined && backendsAfter !== undefined) {
          backendCpuMs.get(key)!.push((1000 * backendSecondsBetween(backendsBefore, backendsAfter)) / Math.max(1, m.ok + m.warmupOk));
        }
        if (scenario.built && (key === 'devPublish' || key === 'runtimePublish')) built[key] = scenario.built();
        options.log(`  ${engine} round ${round + 1} ${key}: ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms`);
        const bad = m.errors + m.non2xx + m.mismatches;
        if (bad > 0) failures.push(`${engine} ${key} round ${round + 1}: ${m.errors} errors, ${m.non2xx} non-2xx ${JSON.stringify(m.otherStatuses)}, ${m.mismatches} wrong bodies`);
      }
    }
    envelope = envelopeCost(await runtimeReadAnswer(serve.url, target, runId, counters));
  } finally {
    await serve.stop();
  }
  const loud = await loudLogEntries([logFile]);
  if (loud.length > 0) failures.push(`${engine}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0])}`);

  const opened = await openInstallation(env);
  try {
    const version = server?.version ?? (await describePglite(opened.db));
    const published = await checkPublished(opened.db, target, runId, rounds, built);
    for (const [key, p] of Object.entries(published)) {
      if (p.notes < p.low || p.notes > p.high) failures.push(`${engine} ${key}: ${p.notes} notes published, expected ${p.low} to ${p.high}`);
    }
    const metered = await meteredOperations(opened.db, target, rounds);
    if (metered.used < metered.answered) failures.push(`${engine}: ${metered.used} metered operations for ${metered.answered} runtime answers`);
    options.log(`  ${engine}: counting statements per request at one client`);
    const statements = await countStatements(opened, async (url) => rowsAt(url, target, runId, counters), { warmup: 20, count: STATEMENT_REQUESTS, orders: [roundOrder(0), roundOrder(1)] });
    const plans = await planCosts(opened.db, statements.get('runtimeRead')!.examples, RUNTIME_STATEMENTS);
    return { engine, version, rounds, backendCpuMs, statements, metered, published, envelope, plans };
  } finally {
    await opened.close();
  }
}

/** One answer of the runtime read, checked, for the envelope's cost. */
async function runtimeReadAnswer(url: string, target: RuntimeInstallation, runId: string, counters: PublishCounters): Promise<string> {
  const scenario = rowScenario('runtimeRead', target, await fetchRuntimeToken(url, target), runId, counters);
  const response = await fetch(`${url}${scenario.options.path}`, { headers: scenario.options.headers ?? {} });
  const text = await response.text();
  if (response.status !== 200 || !scenario.verify(text)) throw new Error(`runtime read answered ${response.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Every row against the in-process gateway at `url`, with a token of it. */
async function rowsAt(url: string, target: RuntimeInstallation, runId: string, counters: PublishCounters): Promise<RowScenario[]> {
  const token = await fetchRuntimeToken(url, target);
  return ROW_KEYS.map((key) => rowScenario(key, target, token, `${runId}-one`, counters));
}

const okOf = (ms: readonly Measurement<RowKey>[]) => ms.reduce((sum, m) => sum + m.ok + m.warmupOk, 0);

/**
 * The published notes really exist, one per answer: autocannon counts only the answers it received before its
 * deadline, so each folder holds between the 2xx answers counted and the requests built.
 */
async function checkPublished(
  db: Database,
  target: RuntimeInstallation,
  runId: string,
  rounds: Map<RowKey, Measurement<RowKey>[]>,
  built: Record<'devPublish' | 'runtimePublish', number>,
): Promise<EngineRun['published']> {
  const count = async (key: 'devPublish' | 'runtimePublish') => {
    const rows = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notes WHERE vault_id = $1 AND path LIKE $2`, [target.vaultId, `${PUBLISH_PREFIX[key]}${runId}/%`]);
    return { notes: rows[0]?.n ?? 0, low: okOf(rounds.get(key)!), high: built[key] };
  };
  return { devPublish: await count('devPublish'), runtimePublish: await count('runtimePublish') };
}

/** The organization's operations this month, against the runtime rows' answers (each must have reserved one). */
async function meteredOperations(db: Database, target: RuntimeInstallation, rounds: Map<RowKey, Measurement<RowKey>[]>): Promise<EngineRun['metered']> {
  const rows = await db.query<{ used: number }>(`SELECT coalesce(sum(used), 0)::int AS used FROM runtime_usage WHERE organization_id = $1`, [target.organizationId]);
  const answered = [...RUNTIME_ROWS].reduce((sum, key) => sum + okOf(rounds.get(key)!), 0);
  return { used: rows[0]?.used ?? 0, answered };
}
