/** Renders the Product Runtime benchmark as its section of docs/benchmarks.md. */
import type { ProductRuntimeResult } from '../product-runtime.ts';
import type { Measurement } from '../http/load.ts';
import { READ_NOTE_PATH } from '../http/scenarios.ts';
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed } from '../support/format.ts';
import { RUNTIME_STATEMENTS, STATEMENT_REQUESTS, type EngineRun } from './measure.ts';
import { PAIRS, ROW_KEYS, rowLabel, type RowKey } from './scenarios.ts';
import { KIND_LABELS, STATEMENT_KINDS, type StatementCounts, type StatementKind } from './statements.ts';

/** The median of some values; the mean of the two middle ones for an even count. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds as printed: two decimals below 1 ms, one below 10 ms, whole numbers above. */
function ms(value: number): string {
  return value < 1 ? fixed(value, 2) : value < 10 ? fixed(value, 1) : fixed(value, 0);
}

/** A share, e.g. "6.2%" or "41%". */
function share(ratio: number): string {
  const pct = 100 * ratio;
  return pct < 10 ? `${fixed(pct, 1)}%` : `${fixed(pct, 0)}%`;
}

/** A per-request average: whole numbers as such, others with two decimals. */
function avg(n: number): string {
  return Number.isInteger(n) ? String(n) : fixed(n, 2);
}

/** The figures of one row over its rounds: medians, and the range of the rate. CPU figures are per 2xx answer. */
interface RowFigures {
  rps: number;
  low: number;
  high: number;
  p50: number;
  p99: number;
  /** The kgate server process (on PGlite its database thread too), ms of CPU per request. */
  kgateMs: number | undefined;
  /** The benchmark database's PostgreSQL backends; undefined on PGlite. */
  backendMs: number | undefined;
  /** autocannon (the benchmark process). */
  loadMs: number | undefined;
  /** Share of the machine's cores busy during the measured run, every process counted. */
  machineBusy: number | undefined;
}

function perRequest(runs: readonly Measurement<RowKey>[], cores: (m: Measurement<RowKey>) => number | undefined): number | undefined {
  const values = runs.flatMap((m) => {
    const c = cores(m);
    return c === undefined || m.requestsPerSecond === 0 ? [] : [(1000 * c) / m.requestsPerSecond];
  });
  return values.length > 0 ? median(values) : undefined;
}

function figures(engine: EngineRun, key: RowKey): RowFigures {
  const runs = engine.rounds.get(key)!;
  const rates = runs.map((m) => m.requestsPerSecond);
  const backend = engine.backendCpuMs.get(key)!;
  const busy = runs.flatMap((m) => (m.cpu.machineBusy === undefined ? [] : [m.cpu.machineBusy]));
  return {
    rps: median(rates),
    low: Math.min(...rates),
    high: Math.max(...rates),
    p50: median(runs.map((m) => m.p50Ms)),
    p99: median(runs.map((m) => m.p99Ms)),
    kgateMs: perRequest(runs, (m) => m.cpu.serverCores),
    backendMs: backend.length > 0 ? median(backend) : undefined,
    loadMs: perRequest(runs, (m) => m.cpu.loadGeneratorCores),
    machineBusy: busy.length > 0 ? median(busy) : undefined,
  };
}

/** CPU ms per request of everything the row runs on this machine: kgate, its database, the load generator. */
function cpuTotal(f: RowFigures): number | undefined {
  return f.kgateMs === undefined || f.loadMs === undefined ? undefined : f.kgateMs + (f.backendMs ?? 0) + f.loadMs;
}

const cpuCell = (value: number | undefined) => (value === undefined ? '–' : fixed(value, 3));

/** The median over rounds of a runtime row's rate divided by its pair's rate in the same round. */
function pairRatio(engine: EngineRun, runtime: RowKey, baseline: RowKey): number {
  const a = engine.rounds.get(runtime)!;
  const b = engine.rounds.get(baseline)!;
  return median(a.map((m, k) => m.requestsPerSecond / b[k]!.requestsPerSecond));
}

function pairOf(key: RowKey): { runtime: RowKey; baseline: RowKey } | undefined {
  return PAIRS.find((p) => p.runtime === key);
}

function throughputTable(result: ProductRuntimeResult): string[] {
  const lines = [
    `| Row | Database | Requests/s (median of ${result.rounds}) | Range | p50 (ms) | p99 (ms) | Requests/s vs its Developer REST pair | vs hello-world | CPU per request (ms): kgate | PostgreSQL backends | autocannon | Machine busy |`,
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const engine of result.engines) {
    const hello = figures(engine, 'hello').rps;
    for (const key of ROW_KEYS) {
      const f = figures(engine, key);
      const pair = pairOf(key);
      const vsPair = key === 'hello' ? '–' : pair ? share(pairRatio(engine, pair.runtime, pair.baseline)) : 'baseline';
      const vsHello = key === 'hello' ? 'baseline' : share(f.rps / hello);
      lines.push(
        `| ${rowLabel(key)} | ${engine.engine} | ${count(Math.round(f.rps))} | ${count(Math.round(f.low))}–${count(Math.round(f.high))} | ${ms(f.p50)} | ${ms(f.p99)} | ${vsPair} | ${vsHello} | ` +
          `${cpuCell(f.kgateMs)} | ${cpuCell(f.backendMs)} | ${cpuCell(f.loadMs)} | ${f.machineBusy === undefined ? '–' : share(f.machineBusy)} |`,
      );
    }
  }
  return lines;
}

/** "4 = 1 token and links 1–8 + 1 links 10–11 + …", the nonzero kinds only. */
function breakdown(s: StatementCounts): string {
  const total = STATEMENT_KINDS.reduce((sum, k) => sum + s.statements[k], 0);
  const parts = STATEMENT_KINDS.filter((k) => s.statements[k] > 0).map((k) => `${avg(s.statements[k])} ${KIND_LABELS[k]}`);
  return parts.length === 0 ? '0' : `${avg(total)} = ${parts.join(' + ')}`;
}

function statementTable(result: ProductRuntimeResult): string[] {
  const lines = [
    '| Row | Database | Statements per request | Transactions | Latency at one client (ms) | Database busy (ms) |',
    '|---|---|---|--:|--:|--:|',
  ];
  for (const engine of result.engines) {
    for (const key of ROW_KEYS) {
      const s = engine.statements.get(key);
      if (!s) continue;
      lines.push(`| ${rowLabel(key)} | ${engine.engine} | ${breakdown(s)} | ${avg(s.transactions)} | ${ms(s.latencyMs)} | ${ms(s.busyMs)} |`);
    }
  }
  return lines;
}

/** The statement kinds a runtime row runs more often than its pair, with how many more. */
function extraKinds(runtime: StatementCounts, baseline: StatementCounts): Array<{ kind: StatementKind; more: number }> {
  return STATEMENT_KINDS.map((kind) => ({ kind, more: runtime.statements[kind] - baseline.statements[kind] })).filter((e) => e.more >= 0.5);
}

/** What docs/runtime.md and the brief of this benchmark predict a runtime call adds to a Developer REST call. */
const PREDICTED: readonly StatementKind[] = ['chain', 'grant', 'metering'];

/**
 * PGlite runs one statement at a time on its worker thread, so the database time a runtime call adds (its busy time
 * at one client beyond its pair's) is added to every call's turn: at most 1 / (1 / pair's rate + added time).
 */
function pgliteTurns(engine: EngineRun, runtime: RowKey, baseline: RowKey): string {
  const added = Math.max(0, engine.statements.get(runtime)!.busyMs - engine.statements.get(baseline)!.busyMs);
  const baseRps = figures(engine, baseline).rps;
  const predicted = 1000 / (1000 / baseRps + added);
  const measured = figures(engine, runtime).rps;
  return (
    `PGlite runs one statement at a time, and at one client the call keeps it ${ms(added)} ms longer than its pair, which predicts ` +
    `1 / (1 / ${count(Math.round(baseRps))} + ${ms(added)} ms) = ${count(Math.round(predicted))} calls/s; measured ${count(Math.round(measured))} (${share(measured / predicted)} of that).`
  );
}

/**
 * On PostgreSQL, calls run side by side except where they take one row's lock and keep it until their commit is
 * flushed: every metered call of one organization updates its month's row (at most 1 / metering time per second, for
 * the whole organization), every grant of one credential updates the credential's row (at most 1 / transaction time).
 */
function rowLockCeiling(engine: EngineRun, runtime: RowKey): { what: string; perCall: number; ceiling: number; measured: number } {
  const s = engine.statements.get(runtime)!;
  const [what, perCall] =
    runtime === 'grant'
      ? ["grants of one credential take turns on the credential's row, in a transaction of", s.transactionMs / Math.max(1, s.transactions)]
      : ["calls of one organization take turns on its month's row, through a metering statement of", s.statementMs.metering / Math.max(1, s.statements.metering)];
  return { what, perCall, ceiling: 1000 / perCall, measured: figures(engine, runtime).rps };
}

/** Whether a row ran at 80% or more of its row lock's ceiling. */
const nearCeiling = (c: { ceiling: number; measured: number }) => c.measured >= 0.8 * c.ceiling;

function postgresRow(engine: EngineRun, runtime: RowKey): string {
  const c = rowLockCeiling(engine, runtime);
  return `${nearCeiling(c) ? 'The row lock may be what limits here' : 'The row lock is not what limits here'}: ${c.what} ${ms(c.perCall)} ms at one client, a ceiling of about ${count(Math.round(c.ceiling))} per second, ${nearCeiling(c) ? 'nearly reached' : 'not reached'} (${count(Math.round(c.measured))}).`;
}

/** If the machine's CPU limits both rows of a pair, their rates go inversely as their CPU per request. */
function cpuPrediction(engine: EngineRun, runtime: RowKey, baseline: RowKey): string {
  const r = figures(engine, runtime);
  const b = figures(engine, baseline);
  const cr = cpuTotal(r);
  const cb = cpuTotal(b);
  if (cr === undefined || cb === undefined) return '';
  const parts = (f: RowFigures) => `${fixed(f.kgateMs!, 3)} kgate${f.backendMs === undefined ? '' : ` + ${fixed(f.backendMs, 3)} PostgreSQL`} + ${fixed(f.loadMs!, 3)} autocannon`;
  return (
    `CPU per call, everything on the machine: ${fixed(cr, 3)} ms (${parts(r)}) against ${fixed(cb, 3)} ms (${parts(b)}); with the cores busy (${r.machineBusy === undefined ? '–' : share(r.machineBusy)} and ${b.machineBusy === undefined ? '–' : share(b.machineBusy)}), ` +
    `that predicts ${share(cb / cr)} of the pair's rate; measured ${share(pairRatio(engine, runtime, baseline))}.`
  );
}

/** One engine's reading of each pair, from its figures. */
function reading(engine: EngineRun): string[] {
  const lines: string[] = [];
  for (const pair of PAIRS) {
    const r = figures(engine, pair.runtime);
    const b = figures(engine, pair.baseline);
    const rs = engine.statements.get(pair.runtime)!;
    const bs = engine.statements.get(pair.baseline)!;
    const extra = extraKinds(rs, bs);
    const extraText =
      extra.length === 0 ? 'no more statements' : extra.map((e) => `+${avg(e.more)} ${KIND_LABELS[e.kind]} (${ms(rs.statementMs[e.kind] - bs.statementMs[e.kind])} ms)`).join(', ');
    const total = (c: StatementCounts) => STATEMENT_KINDS.reduce((sum, k) => sum + c.statements[k], 0);
    const database = engine.engine === 'PGlite' ? pgliteTurns(engine, pair.runtime, pair.baseline) : postgresRow(engine, pair.runtime);
    lines.push(
      `- **${engine.engine}, ${pair.what}.** The Product Runtime answers ${count(Math.round(r.rps))} requests/s, ${share(pairRatio(engine, pair.runtime, pair.baseline))} of the Developer REST row's ${count(Math.round(b.rps))} (median of the rounds' ratios), p99 ${ms(r.p99)} ms against ${ms(b.p99)} ms. ` +
        `At one client: ${avg(total(rs))} statements against ${avg(total(bs))} (${extraText}), ${ms(rs.latencyMs)} ms against ${ms(bs.latencyMs)} ms. ` +
        `${database} ${cpuPrediction(engine, pair.runtime, pair.baseline)}`.trimEnd(),
    );
  }
  return lines;
}

/** Whether the runtime read's extra statements are those predicted, said in words. */
function predictionCheck(engine: EngineRun): string {
  const extra = extraKinds(engine.statements.get('runtimeRead')!, engine.statements.get('devRead')!);
  const unexpected = extra.filter((e) => !PREDICTED.includes(e.kind) || e.more !== 1);
  const missing = PREDICTED.filter((k) => !extra.some((e) => e.kind === k));
  const e = engine.envelope;
  const parts = [
    unexpected.length === 0 && missing.length === 0
      ? `on ${engine.engine} the runtime read runs exactly the predicted statements more`
      : `on ${engine.engine} the runtime read runs ${extra.map((x) => `${avg(x.more)} ${KIND_LABELS[x.kind]}`).join(', ')} more${unexpected.length > 0 ? `, of which ${unexpected.map((x) => KIND_LABELS[x.kind]).join(', ')} not predicted` : ''}${missing.length > 0 ? `, and not ${missing.map((k) => KIND_LABELS[k]).join(', ')}` : ''}`,
    `inside the database (EXPLAIN ANALYZE of the same statements, median of 21) ${RUNTIME_STATEMENTS.flatMap((k) => {
      const p = engine.plans[k];
      return p ? [`${KIND_LABELS[k]} plans in ${fixed(p.planningMs, 2)} ms and runs in ${fixed(p.executionMs, 2)} ms`] : [];
    }).join(', ')}`,
    `the envelope makes the answer ${count(e.envelopeBytes)} bytes instead of ${count(e.dataBytes)} and its JSON ${fixed(e.envelopeMicros, 1)} µs instead of ${fixed(e.dataMicros, 1)} µs`,
  ];
  return parts.join('; ');
}

function details(result: ProductRuntimeResult): string[] {
  const lines = [
    `- Server: the real \`kgate serve\` as a child process (127.0.0.1, log level info to a file), on a fresh installation: the demo owner made by the code of \`kgate admin bootstrap\` (workspace, personal access token, the demo vault from \`examples/vault\`), its REST allowances raised to 10^9 (every call still reserves its unit), and a Product Runtime chain made through the runtime administration and credentials services: an organization without a monthly cap (every call still counted), a second account as its admin, a product, the owner's installation of it with the owner's workspace assigned and the demo vault granted for publishing, and a service principal (\`notes.publish\`) with a client secret. The owner is the customer: both surfaces read and write the same vault.`,
    `- Rows: the read is \`${READ_NOTE_PATH}\` of the demo vault (1.8 KB), as JSON, through both surfaces. A publication writes a new note of about 2 KB (the first synthetic note of seed 42) at a path of its own, dryRun false, with a fresh Idempotency-Key. The grant posts grant_type, client_id and client_secret (client_secret_post) and gets a new 15-minute token each time; its pair is \`GET /api/account\` with the personal access token, the cheapest authenticated route. Runtime rows send \`X-Service-Runtime-Version: 1\` and a token fetched just before the row.`,
    `- Load: autocannon in the benchmark process, ${result.load.connections} connections (keep-alive, no pipelining); per row a ${result.load.warmupSeconds} s warm-up, then ${result.load.seconds} s measured. ${result.rounds} rounds of every row, in the order of the table, the two rows of each pair swapped every other round; each figure is the median of the rounds (the range is of the rate), and "vs its Developer REST pair" the median of each round's ratio. Every response body is checked. CPU per request: the kgate server process (on PGlite, its database thread too) and autocannon (the benchmark process) over the measured run, divided by its requests; the PostgreSQL backends whose process title names the benchmark's database, over warm-up and measured run, divided by their 2xx answers; "Machine busy" is the share of both cores busy during the measured run, every process counted, other sessions' too.`,
    `- The machine has 2 cores, shared by autocannon, the kgate server (its request thread and PGlite's worker thread) and, for PostgreSQL, the database server; other sessions ran on it too (1-minute load average ${fixed(result.loadAverage.before, 2)} before the run, ${fixed(result.loadAverage.after, 2)} after it). Compare rows of one run, not absolute rates.`,
    `- Statements at one client: after the load, the same database opened in this process, the same gateway started over a port that counts and times every statement by the tables it names; every row's request sent 20 times uncounted, then each row ${count(STATEMENT_REQUESTS)} times one at a time, twice (in the order of the table, then with the pairs swapped). "Database busy" is the time with a statement or a transaction under way, overlaps counted once; the times in the reading below are each kind's statements alone.`,
  ];
  for (const engine of result.engines) {
    lines.push(
      `- ${engine.engine} ${engine.version}: published notes ${count(engine.published.devPublish.notes)} through Developer REST and ${count(engine.published.runtimePublish.notes)} through the Product Runtime, each within its answers and requests built; the organization's month counted ${count(engine.metered.used)} operations for ${count(engine.metered.answered)} runtime answers received (the server also counted the requests autocannon cut at a row's deadline).`,
    );
  }
  for (const skipped of result.skipped) lines.push(`- ${skipped.engine} skipped: ${skipped.reason}`);
  lines.push(
    '',
    'What the runtime adds per call. Predicted: one query for links 1–8 (the token with its principal, credential, installation, product, organization and customer account, uncached, so that a revocation stops the next call), one for links 10–11 (assignment, membership, grant, mapping), one metering statement (link 13: a conditional upsert of the organization\'s month row), and the V1 envelope. ' +
      `Measured: ${result.engines.map(predictionCheck).join('; ')}. ` +
      'The Developer REST read runs no statement at all (its token, the account and the caller\'s authority over the mapping come from the credential cache, the note from memory and the REST usage unit from a leased block), and `GET /api/account` none either: for reads and for authentication the runtime\'s statements are all the database work of the call. The customer account standing is `tokens.principalFor` (status, plan and overrides of the customer), read on every call where a personal token\'s account comes from the credential cache.',
    '',
    ...result.engines.flatMap(reading),
    '',
    summary(result),
  );
  return lines;
}

/** Where a runtime call's cost goes, from the figures of both engines. */
function summary(result: ProductRuntimeResult): string {
  const cpuMatches = result.engines.every((engine) =>
    PAIRS.every((pair) => {
      const cr = cpuTotal(figures(engine, pair.runtime));
      const cb = cpuTotal(figures(engine, pair.baseline));
      if (cr === undefined || cb === undefined) return false;
      const ratio = pairRatio(engine, pair.runtime, pair.baseline) / (cb / cr);
      return ratio > 0.67 && ratio < 1.5;
    }),
  );
  const chainPlanned = result.engines.filter((engine) => {
    const p = engine.plans.chain;
    return p !== undefined && p.planningMs > p.executionMs;
  });
  const reached = result.engines.some((engine) => engine.engine === 'PostgreSQL' && PAIRS.some((pair) => nearCeiling(rowLockCeiling(engine, pair.runtime))));
  const measuredOnPostgres = result.engines.some((engine) => engine.engine === 'PostgreSQL');
  return [
    '**Reading.** A runtime call costs its four round trips (links 1–8, the customer account standing, links 10–11, the metering upsert), none cached by design: a revocation, an uninstallation or a suspension stops the very next call (docs/runtime.md).',
    cpuMatches
      ? 'Under load the runtime rows run at the rate their CPU per call predicts, on both engines, to within a third: the difference is the work of those statements (in kgate, the driver and the database) and the envelope, not waiting.'
      : 'Under load the CPU per call does not predict every runtime row to within a third: see the readings above for which.',
    chainPlanned.length > 0
      ? `The costliest is the chain's join of seven tables, which the database plans again on every call (statements are sent unnamed) and whose planning takes longer than its execution on ${chainPlanned.map((e) => e.engine).join(' and ')}.`
      : '',
    "The envelope's cost is microseconds. The metering statement updates one row per organization and month, so its ceiling is shared by all of an organization's products and installations; the grant updates the credential's row, so its ceiling is per credential.",
    measuredOnPostgres ? (reached ? 'On PostgreSQL one of them came within 20% of its ceiling here.' : 'On PostgreSQL neither came within 20% of its ceiling here.') : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
}

/** The section: the load table, the statement table, setup and reading. */
export function productRuntimeReport(result: ProductRuntimeResult): BenchmarkReport {
  return {
    table: [...throughputTable(result), '', 'Each row at one client (no load): what it runs and how long it takes:', '', ...statementTable(result)],
    details: details(result),
    failures: result.failures,
  };
}
