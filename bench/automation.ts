/**
 * The automation gateway (`npm run bench -- --only automation`), on embedded PGlite and on server PostgreSQL (a
 * scratch database on KGATE_BENCH_DATABASE_URL, or the local server; skipped with its reason when unreachable):
 * - events ingested per second (automation-ingest.ts): `POST /api/dev/automation/events` under load on the real
 *   `kgate serve`, with no matching trigger and with one, beside hello-world of the same server in the same run;
 * - webhook deliveries per second (automation-deliveries.ts): queued deliveries drained by `POST /process` and by
 *   `deliverDue`, beside plain HTTPS POSTs of the same signed bytes to the same local receiver from the same process.
 */
import { randomBytes } from 'node:crypto';
import { measureDeliveries, DELIVERIES, BASELINE_CALLERS, type DeliveryRun } from './automation-deliveries.ts';
import { INGEST_ROUTE_NAMES, measureIngestion, type IngestRun } from './automation-ingest.ts';
import type { EngineName } from './http/installation.ts';
import { standardLoad, type LoadOptions } from './http/load.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';
import { measureOnServedEngines } from './support/served-engines.ts';

interface EngineRun {
  engine: EngineName;
  ingest: IngestRun;
  deliveries: DeliveryRun;
}

async function runEngine(engine: EngineName, database: Record<string, string>, root: string, load: LoadOptions, failures: string[]): Promise<EngineRun> {
  // Automation processing off (only ingestion is measured under load); a sealing key so that endpoints can be made.
  const env = { ...database, KGATE_PROVIDER_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`, KGATE_AUTOMATION_PROCESS_MS: '0' };
  const ingest = await measureIngestion(engine, env, root, load, failures);
  const deliveries = await measureDeliveries(engine, env, ingest.deliveryReader, ingest.deliveryWorkspaceId, failures);
  return { engine, ingest, deliveries };
}

function report(runs: EngineRun[], load: LoadOptions, skipped: string[], failures: string[]): BenchmarkReport {
  const table = [
    '| Route | Database | Requests/s | p50 (ms) | p99 (ms) | Errors / non-2xx | Requests/s vs hello-world |',
    '|---|---|--:|--:|--:|--:|--:|',
  ];
  for (const run of runs) {
    for (const row of run.ingest.rows) {
      const share = row.pairedHelloRps ? `${fixed((100 * row.requestsPerSecond) / row.pairedHelloRps, 1)}% (of ${count(Math.round(row.pairedHelloRps))})` : 'baseline';
      table.push(`| ${INGEST_ROUTE_NAMES[row.key]} | ${run.engine} | ${count(Math.round(row.requestsPerSecond))} | ${fixed(row.p50Ms, 1)} | ${fixed(row.p99Ms, 1)} | ${row.errors} / ${row.non2xx} | ${share} |`);
    }
  }
  table.push('', `| Webhook deliveries (${count(DELIVERIES)} per row, one endpoint) | Database | Deliveries/s | Seconds | Calls | vs the one-at-a-time baseline |`, '|---|---|--:|--:|--:|--:|');
  for (const run of runs) {
    const base = run.deliveries.rows[0]!.perSecond;
    run.deliveries.rows.forEach((row, k) => {
      table.push(
        `| ${row.what} | ${run.engine} | ${fixed(row.perSecond, 0)} | ${fixed(row.seconds, 2)} | ${row.calls || '-'} | ${k === 0 ? 'baseline' : `${fixed((100 * row.perSecond) / base, 1)}%`} |`,
      );
    });
  }
  const details = [
    `- Ingestion: the real \`kgate serve\` (PORT=0, 127.0.0.1, request log at info to a file, KGATE_AUTOMATION_PROCESS_MS=0) on an installation made with ` +
      "`kgate admin bootstrap`, the account's REST allowance raised; one webhook trigger on the matched type, no endpoint (its runs stay queued). " +
      `Each request a distinct Idempotency-Key and an event of ${count(runs[0]?.ingest.eventBytes ?? 0)} bytes; every answer checked (\`duplicate\` false, the run ids).`,
    `- Load: autocannon, ${load.connections} connections, ${load.warmupSeconds} s warm-up, ${load.seconds} s measured per row; hello-world measured before and after each ` +
      'events row, and each row compared with the mean of the two.',
    ...runs.map(
      (run) =>
        `- ${run.engine}: stored afterwards ${count(run.ingest.stored.unmatched.events)} unmatched events (0 runs: ${run.ingest.stored.unmatched.runs}) and ` +
        `${count(run.ingest.stored.matched.events)} matched events with ${count(run.ingest.stored.matched.runs)} runs, for ` +
        `${count(run.ingest.stored.unmatched.answered + run.ingest.stored.matched.answered)} 2xx answers.`,
    ),
    `- Deliveries: an in-process gateway over the same database, its webhook transport trusting the receiver's certificate (private addresses allowed); ` +
      `${count(DELIVERIES)} messages of ${count(runs[0]?.deliveries.payloadBytes ?? 0)} bytes queued per row outside the timing, then delivered; the receiver verifies every ` +
      `signature. The baseline posts the same signed bytes from the same process, one at a time and by ${BASELINE_CALLERS} callers at once, each on a new TLS connection.`,
    ...skipped.map((reason) => `- PostgreSQL skipped: ${reason}.`),
  ];
  return { table, details, failures };
}

/** Measures ingestion and deliveries on both engines. */
export async function measureAutomation(load: LoadOptions): Promise<BenchmarkReport> {
  const failures: string[] = [];
  const { runs, skipped } = await measureOnServedEngines('automation', ({ engine, env, root }) => runEngine(engine, env, root, load, failures));
  return report(runs, load, skipped.map((skip) => skip.reason), failures);
}

/** The automation benchmark as `bench/run.ts` runs it. */
export const automationBenchmark: Benchmark = {
  title: 'Automation',
  run: (options: BenchmarkOptions) => measureAutomation(standardLoad(options.duration)),
};
