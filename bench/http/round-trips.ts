/**
 * Where a request's time goes, measured from outside `src/`: the benchmark starts the same gateway in this process
 * over a wrapped database port that counts and times every statement, sends each scenario's request one at a time
 * (one client, no queueing), and divides by the number of requests. Statements are named by the table they touch:
 * the token lookup (authentication), the usage counters (reservation), the idempotency keys, and the rest (the
 * operation itself: mapping and vault checks, notes, trash, provenance events).
 */
import { Writable } from 'node:stream';
import type autocannon from 'autocannon';
import { loadConfig } from '../../src/config.ts';
import type { Database, Row, Sql } from '../../src/db/port.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway } from '../../src/app/gateway.ts';
import { type OpenedDatabase } from '../../src/app/database.ts';
import type { Scenario } from './scenarios.ts';

/** What a statement is for. */
export const STATEMENT_KINDS = ['authenticate', 'usage', 'idempotency', 'operation'] as const;
/** One of STATEMENT_KINDS. */
export type StatementKind = (typeof STATEMENT_KINDS)[number];

function kindOf(text: string): StatementKind {
  if (/\bpersonal_access_tokens\b/.test(text)) return 'authenticate';
  if (/\busage_counters\b/.test(text)) return 'usage';
  if (/\bidempotency_keys\b/.test(text)) return 'idempotency';
  return 'operation';
}

/** Where database time is charged: the token lookup, the usage reservation, and the operation (with its idempotency key). */
export const TIME_BUCKETS = ['authenticate', 'usage', 'operation'] as const;
/** One of TIME_BUCKETS. */
export type TimeBucket = (typeof TIME_BUCKETS)[number];

/** Per-request averages of one scenario at one client. */
export interface RoundTrips {
  statements: Record<StatementKind, number>;
  transactions: number;
  /**
   * Milliseconds awaiting the database, per bucket: statements outside transactions by what they touch, and whole
   * transactions (BEGIN, statements, JavaScript between them, COMMIT) as "usage" when they only touch the usage
   * counters, else as "operation".
   */
  databaseMs: Record<TimeBucket, number>;
  /** Median client-side latency of one request, milliseconds. */
  latencyMs: number;
}

class Tally {
  statements: Record<StatementKind, number> = { authenticate: 0, usage: 0, idempotency: 0, operation: 0 };
  transactions = 0;
  databaseMs: Record<TimeBucket, number> = { authenticate: 0, usage: 0, operation: 0 };
}

function bucketOf(kinds: ReadonlySet<StatementKind>): TimeBucket {
  if (kinds.size === 1 && kinds.has('usage')) return 'usage';
  if (kinds.size === 1 && kinds.has('authenticate')) return 'authenticate';
  return 'operation';
}

/** Counts statements; outside a transaction also charges their time (`inTransaction` collects the kinds instead). */
function countingSql(target: Sql, tally: () => Tally, inTransaction: Set<StatementKind> | undefined): Sql {
  return {
    async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
      const kind = kindOf(text);
      const started = performance.now();
      try {
        return await target.query<R>(text, params);
      } finally {
        const t = tally();
        t.statements[kind]++;
        if (inTransaction) inTransaction.add(kind);
        else t.databaseMs[bucketOf(new Set([kind]))] += performance.now() - started;
      }
    },
    exec: (script: string) => target.exec(script),
    afterCommit: (callback: () => void) => target.afterCommit(callback),
  };
}

function countingDatabase(db: Database, tally: () => Tally): Database {
  return {
    engine: db.engine,
    ...countingSql(db, tally, undefined),
    async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      const kinds = new Set<StatementKind>();
      const started = performance.now();
      try {
        return await db.transaction((tx) => work(countingSql(tx, tally, kinds)));
      } finally {
        const t = tally();
        t.transactions++;
        t.databaseMs[bucketOf(kinds)] += performance.now() - started;
      }
    },
    listen: (channel, onMessage, onState) => db.listen(channel, onMessage, onState),
    close: () => db.close(),
  };
}

/** The single request a scenario sends, as fetch arguments (applied writes get a fresh folder and key each call). */
function requestOf(scenario: Scenario): { method: string; path: string; headers: Record<string, string>; body?: string } {
  const first = scenario.options.requests?.[0];
  const request: autocannon.Request =
    first && typeof first.setupRequest === 'function' ? first.setupRequest({ ...first }, {}) : { ...scenario.options };
  const body = request.body === undefined ? undefined : String(request.body);
  return {
    method: request.method ?? 'GET',
    path: request.path ?? '/',
    headers: Object.fromEntries(Object.entries(request.headers ?? {}).map(([k, v]) => [k, String(v)])),
    ...(body !== undefined ? { body } : {}),
  };
}

/**
 * Runs `scenarios` one request at a time against a gateway started in this process over `opened` (which stays open:
 * the caller closes it). `warmup` requests per scenario are not counted, `count` are. Throws when a response fails
 * its scenario's check.
 */
export async function measureRoundTrips(
  opened: OpenedDatabase,
  scenarios: readonly Scenario[],
  options: { warmup: number; count: number },
): Promise<Map<Scenario['key'], RoundTrips>> {
  let tally = new Tally();
  const db = countingDatabase(opened.db, () => tally);
  // Log at info into a sink that drops lines, so that the request log line is built as in `kgate serve`.
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const gateway = await startGateway(
    loadConfig({ PORT: '0', KGATE_LOG_LEVEL: 'info' }),
    { db, fresh: false, close: () => Promise.resolve() },
    { logger: createLogger('info', sink) },
  );
  const results = new Map<Scenario['key'], RoundTrips>();
  try {
    for (const scenario of scenarios) {
      if (scenario.key === 'hello' || scenario.key === 'readMany') continue; // no database; the same request as read
      const send = async (): Promise<number> => {
        const { method, path, headers, body } = requestOf(scenario);
        const started = performance.now();
        const response = await fetch(`${gateway.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
        const text = await response.text();
        const ms = performance.now() - started;
        if (response.status !== 200 || !(scenario.verifyDecoded ?? scenario.verify)(text)) {
          throw new Error(`${scenario.label}: unexpected answer ${response.status} ${text.slice(0, 300)}`);
        }
        return ms;
      };
      for (let k = 0; k < options.warmup; k++) await send();
      tally = new Tally();
      const latencies: number[] = [];
      for (let k = 0; k < options.count; k++) latencies.push(await send());
      latencies.sort((a, b) => a - b);
      const per = (n: number) => n / options.count;
      results.set(scenario.key, {
        statements: Object.fromEntries(STATEMENT_KINDS.map((kind) => [kind, per(tally.statements[kind])])) as Record<StatementKind, number>,
        transactions: per(tally.transactions),
        databaseMs: Object.fromEntries(TIME_BUCKETS.map((bucket) => [bucket, per(tally.databaseMs[bucket])])) as Record<TimeBucket, number>,
        latencyMs: latencies[Math.floor((latencies.length - 1) / 2)]!,
      });
    }
  } finally {
    await gateway.stop();
  }
  return results;
}
