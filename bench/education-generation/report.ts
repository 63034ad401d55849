/**
 * The generation benchmark's section of docs/benchmarks.md: the gateway's overhead per call first, then the
 * latencies it is computed from, the concurrent calls, where the overhead goes, the NDJSON throughput and how it ran.
 */
import type { EducationGenerationResult } from '../education-generation.ts';
import type { BenchmarkReport } from '../support/benchmark.ts';
import { count, fixed } from '../support/format.ts';
import { LEDGER_PHASES, type Spread } from './ledger.ts';
import type { EngineRun, LatencyRow, ThroughputRow } from './measure.ts';

const ms = (value: number): string => (Number.isNaN(value) ? '–' : Math.abs(value) >= 100 ? fixed(value, 0) : Math.abs(value) >= 10 ? fixed(value, 1) : fixed(value, 2));
const both = (s: Spread): string => `${ms(s.p50)} / ${ms(s.p95)}`;
const rate = (value: number): string => (value >= 10_000 ? count(Math.round(value)) : fixed(value, value >= 100 ? 0 : 1));
const megabytes = (bytes: number): string => fixed(bytes / 1e6, 2);

function find(run: EngineRun, role: LatencyRow['role'], prefix: string): LatencyRow | undefined {
  return run.json.find((row) => row.role === role && row.name.startsWith(prefix));
}

/** The overhead's parts at the median, as far as they are measured separately. */
function breakdown(run: EngineRun): string[] {
  const healthz = find(run, 'reference', 'GET /healthz');
  const context = find(run, 'reference', 'GET /api/product');
  const kept = run.json.find((row) => row.name.includes('kept-alive'));
  const fresh = run.json.find((row) => row.name.includes('new connection'));
  const overhead = run.overhead[0];
  if (!healthz || !context || !kept || !fresh || !overhead) return [];
  const chain = context.total.p50 - healthz.total.p50;
  const connection = fresh.total.p50 - kept.total.p50;
  const ledger = run.ledger.phaseSumP50;
  const rest = overhead.total.p50 - chain - connection - ledger;
  const rows = [
    `| ${run.engine} | the Product Runtime pipeline without a model: authentication, the chain, operation metering, envelope (\`GET …/context\` minus \`GET /healthz\`) | ${ms(chain)} |`,
    ...LEDGER_PHASES.map((phase) => `| ${run.engine} | ledger: ${phase} (in process, ${count(run.ledger.calls)} calls; p95 ${ms(run.ledger.phases[phase].p95)}) | ${ms(run.ledger.phases[phase].p50)} |`),
    `| ${run.engine} | a new connection to the model (direct, new minus kept-alive) | ${ms(connection)} |`,
    `| ${run.engine} | the rest: validation, prompt, model client, output checks (what the parts above do not explain) | ${ms(rest)} |`,
    `| ${run.engine} | **overhead of practice-review (median of pairs)** | **${ms(overhead.total.p50)}** |`,
    `| ${run.engine} | whole \`runMetered\` with a model that answers at once (in process, p95 ${ms(run.ledger.runMetered.p95)}) | ${ms(run.ledger.runMetered.p50)} |`,
  ];
  return rows;
}

function throughputRow(run: EngineRun, row: ThroughputRow): string {
  return `| ${run.engine} | ${row.name} | ${count(row.streams)} | ${row.concurrency} | ${count(row.chunks)} | ${rate(row.deltasPerSecond)} | ${megabytes(row.textPerSecond)} | ${megabytes(row.bytesPerSecond)} | ${fixed(row.bytesPerStream / 1e3, 0)} KB | ${both(row.totalMs)} |`;
}

/** The report of a run. */
export function educationGenerationReport(result: EducationGenerationResult): BenchmarkReport {
  const { sizes } = result;
  const table = [
    `| Database | Gateway call minus its baseline (${count(sizes.sequential)} pairs, one client) | First byte or first delta, p50 / p95 (ms) | Total, p50 / p95 (ms) |`,
    '|---|---|--:|--:|',
  ];
  for (const run of result.engines) for (const o of run.overhead) table.push(`| ${run.engine} | ${o.name} | ${both(o.first)} | ${both(o.total)} |`);

  const details: string[] = ['The calls themselves (one client, sequential, interleaved call by call; milliseconds, p50 / p95):', ''];
  details.push('| Database | Call | Role | Headers | First byte (stream: first delta) | `ready` | Total | Answer |', '|---|---|---|--:|--:|--:|--:|--:|');
  for (const run of result.engines) {
    for (const row of [...run.json, ...(run.stream?.latency ?? [])]) {
      details.push(`| ${run.engine} | ${row.name} | ${row.role} | ${both(row.headers)} | ${both(row.first)} | ${row.ready ? both(row.ready) : '–'} | ${both(row.total)} | ${fixed(row.bytes / 1e3, 1)} KB |`);
    }
  }
  details.push('', `With ${sizes.concurrency} calls in flight (${count(sizes.concurrency * sizes.perClient)} calls):`, '');
  details.push('| Database | Call | Calls/s | Total p50 / p95 (ms) |', '|---|---|--:|--:|');
  for (const run of result.engines) for (const row of run.concurrent) details.push(`| ${run.engine} | ${row.name} | ${rate(row.callsPerSecond ?? Number.NaN)} | ${both(row.total)} |`);

  details.push('', 'Where the overhead of a metered JSON call goes (medians, ms; the parts are measured separately, the rest is what is left):', '');
  details.push('| Database | Part | ms |', '|---|---|--:|');
  for (const run of result.engines) details.push(...breakdown(run));

  if (result.engines.some((run) => run.stream)) {
    details.push('', `NDJSON throughput: replies of ${count(sizes.longChunks)} chunks with no delay, ${count(sizes.longReplies)} one at a time each way (medians), then ${sizes.concurrency} at once (aggregate over the wall time):`, '');
    details.push('| Database | Stream | Streams | In flight | Deltas each | Deltas/s | Text, M chars/s | Wire, MB/s | Body each | Total p50 / p95 (ms) |', '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const run of result.engines) for (const row of run.stream?.throughput ?? []) details.push(throughputRow(run, row));
  } else {
    details.push('', '- `generate` was not served by this tree when the run was made: no NDJSON rows (they appear once its NDJSON binding is in the operation table).');
  }

  details.push(
    '',
    `- Server: \`kgate serve\` per database (a fresh embedded data directory, then a scratch database of the PostgreSQL server: ${
      result.skipped.length > 0 ? `skipped, ${result.skipped.map((s) => s.reason).join('; ')}` : (result.postgres ?? 'reached')
    }), its model the fake model server (\`test/fakes/model/server.ts\`) on 127.0.0.1 in the benchmark process, configured by the KGATE_MODEL_* ` +
      'settings (`modelEnvOf`). The chain is made through the real services: a customer, an organization with a monthly intelligence budget of ' +
      'a million dollars and maxConcurrentIntelligence 256, a product, an installation and a service principal holding `intelligence.execute`.',
    `- Each gateway call has a fresh Idempotency-Key (no replays); every answer is checked (200, the usage receipt; for NDJSON \`ready\`, deltas and a ` +
      'successful `done`), the server log must hold nothing at warn or above, and the settled ledger rows must equal the metered calls answered.',
    '- The baseline is the fake model called directly by the same client with the body the gateway sent it (captured from the fake after the ' +
      'warm-up), one baseline call before each gateway call, so that both see the same machine at the same moment. The overhead rows are the ' +
      'median and p95 of the per-pair differences. kgate\u2019s model client opens a new connection per model call (the address guard checks each ' +
      'connection), so the baseline is shown over a kept-alive connection and over a new one.',
    `- The fake answers practice-review with the test fixture (2.4 KB of JSON, 1,200 and 800 tokens); a JSON answer is sent whole, so its first byte ` +
      'is the end of the gateway\u2019s work. The fake streams a reply in the asked number of pieces, each as one SSE event, with no delay between them.',
    `- Times are from this process: from writing the request to the response headers, the first body byte (for streams: the line of the first ` +
      'delta or content chunk), and the last byte, over node:http with kept-alive connections to the gateway. The fake, the client and the timing share ' +
      'one event loop (in both the gateway and the baseline series); the gateway runs in its own process.',
    `- Load average (1 min) before and after: ${fixed(result.loadAverage.before, 2)} and ${fixed(result.loadAverage.after, 2)}.`,
  );
  details.push(...reading(result));
  return { table, details, failures: result.failures };
}

function concurrentShare(direct: ThroughputRow, gateway: ThroughputRow): string {
  return `${rate(gateway.deltasPerSecond)} against ${rate(direct.deltasPerSecond)} (${fixed((100 * gateway.deltasPerSecond) / direct.deltasPerSecond, 0)}%)`;
}

/** What the figures say, computed from them. */
function reading(result: EducationGenerationResult): string[] {
  const lines: string[] = [];
  for (const run of result.engines) {
    const overhead = run.overhead[0];
    if (!overhead) continue;
    const ledger = run.ledger.phaseSumP50;
    lines.push(
      `- ${run.engine}: the gateway adds ${ms(overhead.total.p50)} ms at the median (p95 ${ms(overhead.total.p95)} ms) to a metered JSON call; ` +
        `the ledger\u2019s five statement groups take ${ms(ledger)} ms of it (${fixed((100 * ledger) / overhead.total.p50, 0)}%).`,
    );
    const context = find(run, 'reference', 'GET /api/product');
    const concurrent = run.concurrent.find((row) => row.role === 'gateway');
    const contextConcurrent = run.concurrent.find((row) => row.role === 'reference');
    const fakeConcurrent = run.concurrent.find((row) => row.role === 'baseline');
    if (concurrent && contextConcurrent && fakeConcurrent && context) {
      lines.push(
        `- ${run.engine}: with ${concurrent.concurrency} in flight the gateway answers ${rate(concurrent.callsPerSecond ?? Number.NaN)} metered calls/s, ` +
          `against ${rate(contextConcurrent.callsPerSecond ?? Number.NaN)}/s for \`GET …/context\` (no model, no ledger row) and ${rate(fakeConcurrent.callsPerSecond ?? Number.NaN)}/s for the fake alone.`,
      );
    }
    const streamOverhead = run.overhead.find((o) => o.name.startsWith('generate'));
    const streamRow = run.stream?.latency.find((row) => row.role === 'gateway');
    if (streamOverhead && streamRow?.ready) {
      lines.push(
        `- ${run.engine}: a streamed generation shows \`ready\` after ${ms(streamRow.ready.p50)} ms and its first delta ${ms(streamOverhead.first.p50)} ms ` +
          `(p95 ${ms(streamOverhead.first.p95)} ms) after the fake\u2019s own first chunk read directly: \`ready\` is written once the reservation is made, and the dispatch mark and a new model connection come between it and the first delta.`,
      );
    }
    const stream = run.stream?.throughput;
    if (stream && stream.length >= 4) {
      const [direct, gateway, directMany, gatewayMany] = stream;
      lines.push(
        `- ${run.engine}: one long stream through the gateway carries ${rate(gateway!.deltasPerSecond)} deltas/s against ${rate(direct!.deltasPerSecond)} ` +
          `content chunks/s read from the fake directly (${fixed((100 * gateway!.deltasPerSecond) / direct!.deltasPerSecond, 0)}%), ${concurrentShare(directMany!, gatewayMany!)} with ${gatewayMany!.concurrency} at once; ` +
          `an NDJSON delta takes ${fixed(gateway!.bytesPerStream / Math.max(1, gateway!.chunks), 0)} bytes on the wire against ${fixed(direct!.bytesPerStream / Math.max(1, direct!.chunks), 0)} for the provider\u2019s SSE chunk.`,
      );
    }
  }
  return lines;
}
