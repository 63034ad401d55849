/**
 * What each row costs in statements, at one client: the same gateway started in this process over a database port
 * that counts every statement by what it is for, each row's request sent one at a time (nothing queued), and the
 * counts divided by the requests. This says what the Product Runtime adds to a call in database work, which the load
 * rows then show in requests per second.
 */
import { Writable } from 'node:stream';
import type autocannon from 'autocannon';
import { loadConfig } from '../../src/config.ts';
import type { Database, Row, Sql } from '../../src/db/port.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway } from '../../src/app/gateway.ts';
import type { OpenedDatabase } from '../../src/app/database.ts';
import type { RowKey, RowScenario } from './scenarios.ts';

/** What a statement is for, from the tables it names. */
export const STATEMENT_KINDS = ['chain', 'customer', 'grant', 'metering', 'patAuth', 'restUsage', 'idempotency', 'operation'] as const;
/** One of STATEMENT_KINDS. */
export type StatementKind = (typeof STATEMENT_KINDS)[number];

/** How the report names each kind. */
export const KIND_LABELS: Record<StatementKind, string> = {
  chain: 'token and links 1–8',
  customer: 'customer account standing',
  grant: 'links 10–11',
  metering: 'metering (link 13)',
  patAuth: 'personal token',
  restUsage: 'REST usage',
  idempotency: 'idempotency key',
  operation: 'the operation',
};

function kindOf(text: string): StatementKind {
  if (/\bFROM runtime_access_tokens\b/.test(text)) return 'chain';
  if (/^SELECT status, plan, allowance_overrides FROM accounts WHERE id = \$1$/.test(text.trim())) return 'customer';
  if (/\bruntime_workspace_assignments\b/.test(text)) return 'grant';
  if (/\bruntime_usage\b/.test(text)) return 'metering';
  if (/\bpersonal_access_tokens\b/.test(text)) return 'patAuth';
  if (/\busage_counters\b/.test(text)) return 'restUsage';
  if (/\bidempotency_keys\b/.test(text)) return 'idempotency';
  return 'operation';
}

/** Per-request averages of one row at one client. */
export interface StatementCounts {
  statements: Record<StatementKind, number>;
  /** Milliseconds awaiting each kind's statements (inside transactions too; BEGIN and COMMIT are not counted). */
  statementMs: Record<StatementKind, number>;
  /** Milliseconds with at least one statement or transaction (BEGIN to COMMIT) under way: overlaps counted once. */
  busyMs: number;
  /** Transactions (BEGIN … COMMIT) per request. */
  transactions: number;
  /** Milliseconds from BEGIN to COMMIT, per request. */
  transactionMs: number;
  /** Median latency of one request, ms. */
  latencyMs: number;
  /** The first statement of each kind the row ran, with its parameters, to look into (plan-cost.ts). */
  examples: Partial<Record<StatementKind, StatementExample>>;
}

/** One statement as the gateway sent it. */
export interface StatementExample {
  text: string;
  params: readonly unknown[];
}

class Tally {
  statements = Object.fromEntries(STATEMENT_KINDS.map((k) => [k, 0])) as Record<StatementKind, number>;
  statementMs = Object.fromEntries(STATEMENT_KINDS.map((k) => [k, 0])) as Record<StatementKind, number>;
  busyMs = 0;
  transactions = 0;
  transactionMs = 0;
  latencies: number[] = [];
  examples: Partial<Record<StatementKind, StatementExample>> = {};
}

/** Tracks the time with anything under way at the database, charged to the tally current when it ends. */
class Busy {
  private inFlight = 0;
  private since = 0;
  constructor(private readonly tally: () => Tally) {}
  enter(): void {
    if (this.inFlight++ === 0) this.since = performance.now();
  }
  leave(): void {
    if (--this.inFlight === 0) this.tally().busyMs += performance.now() - this.since;
  }
}

function countingSql(target: Sql, tally: () => Tally, busy: Busy): Sql {
  return {
    async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
      const kind = kindOf(text);
      const started = performance.now();
      busy.enter();
      try {
        return await target.query<R>(text, params);
      } finally {
        busy.leave();
        const t = tally();
        t.statements[kind]++;
        t.statementMs[kind] += performance.now() - started;
        t.examples[kind] ??= { text, params: params ?? [] };
      }
    },
    exec: (script: string) => target.exec(script),
    afterCommit: (callback: () => void) => target.afterCommit(callback),
  };
}

function countingDatabase(db: Database, tally: () => Tally): Database {
  const busy = new Busy(tally);
  return {
    engine: db.engine,
    ...countingSql(db, tally, busy),
    async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      const started = performance.now();
      busy.enter();
      try {
        return await db.transaction((tx) => work(countingSql(tx, tally, busy)));
      } finally {
        busy.leave();
        const t = tally();
        t.transactions++;
        t.transactionMs += performance.now() - started;
      }
    },
    listen: (channel, onMessage, onState) => db.listen(channel, onMessage, onState),
    close: () => db.close(),
  };
}

/** The request a row sends, as fetch arguments (a publishing row builds a new path and key each call). */
function requestOf(scenario: RowScenario): { method: string; path: string; headers: Record<string, string>; body?: string } {
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
 * Starts the gateway in this process over `opened` (which stays open: the caller closes it), sends every row
 * `warmup` uncounted times, then, for each order of `orders`, each row `count` counted times one at a time, so that
 * no row is always measured first. `rowsFor(url)` makes the rows against that gateway (the runtime rows need a token
 * of it). Throws when an answer fails its row's check. Hello-world is skipped: it touches no database.
 */
export async function countStatements(
  opened: OpenedDatabase,
  rowsFor: (url: string) => Promise<RowScenario[]>,
  options: { warmup: number; count: number; orders: ReadonlyArray<readonly RowKey[]> },
): Promise<Map<RowKey, StatementCounts>> {
  const discarded = new Tally();
  let current = discarded;
  const db = countingDatabase(opened.db, () => current);
  // Log at info into a sink that drops lines, so that the request log line is built as in `kgate serve`.
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const gateway = await startGateway(loadConfig({ PORT: '0', KGATE_LOG_LEVEL: 'info' }), { db, fresh: false, close: () => Promise.resolve() }, { logger: createLogger('info', sink) });
  const tallies = new Map<RowKey, Tally>();
  try {
    const rows = new Map((await rowsFor(gateway.url)).filter((s) => s.key !== 'hello').map((s) => [s.key, s]));
    const send = async (scenario: RowScenario): Promise<number> => {
      const { method, path, headers, body } = requestOf(scenario);
      const started = performance.now();
      const response = await fetch(`${gateway.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      const text = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200 || !scenario.verify(text)) throw new Error(`${scenario.label}: unexpected answer ${response.status} ${text.slice(0, 300)}`);
      return ms;
    };
    for (const scenario of rows.values()) for (let k = 0; k < options.warmup; k++) await send(scenario);
    for (const order of options.orders) {
      for (const key of order) {
        const scenario = rows.get(key);
        if (!scenario) continue;
        current = tallies.get(key) ?? new Tally();
        tallies.set(key, current);
        for (let k = 0; k < options.count; k++) current.latencies.push(await send(scenario));
        current = discarded;
      }
    }
  } finally {
    await gateway.stop();
  }
  const results = new Map<RowKey, StatementCounts>();
  for (const [key, t] of tallies) {
    const n = t.latencies.length;
    const per = (value: number) => value / n;
    const sorted = [...t.latencies].sort((a, b) => a - b);
    results.set(key, {
      statements: Object.fromEntries(STATEMENT_KINDS.map((kind) => [kind, per(t.statements[kind])])) as Record<StatementKind, number>,
      statementMs: Object.fromEntries(STATEMENT_KINDS.map((kind) => [kind, per(t.statementMs[kind])])) as Record<StatementKind, number>,
      busyMs: per(t.busyMs),
      transactions: per(t.transactions),
      transactionMs: per(t.transactionMs),
      latencyMs: sorted[Math.floor((n - 1) / 2)]!,
      examples: t.examples,
    });
  }
  return results;
}
