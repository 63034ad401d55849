/**
 * One database's measurements of the generation benchmark: `kgate serve` started on it with the fake model (which
 * runs in this process) as its model, and every series timed from this process with the same thin client
 * (wire.ts), each gateway call beside its baseline in the same run:
 * - sequential JSON calls, interleaved one by one: `GET /healthz` (the HTTP floor), `GET /api/product/v1/context`
 *   (the authenticated chain with an operation that calls no model), the fake's chat completion called directly with
 *   the very body the gateway sent it (over a kept-alive connection, and over a new one as kgate's model client opens),
 *   and `POST …/education/practice-review` through the gateway (a metered call: reserve, dispatch, the model, the
 *   output checks, settle);
 * - the same metered call and the direct completion with 16 in flight;
 * - when the gateway serves `generate` with NDJSON: sequential streamed calls (the `ready` event and the first
 *   `delta` beside the fake's first content chunk read directly), long replies of 2,000 chunks (deltas and bytes per
 *   second through the gateway against reading the fake's SSE directly), and 16 such streams at once.
 * Then, with the server stopped, the ledger's phases in process (ledger.ts) and the ledger rows checked against the
 * calls made.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModelFake, FakeBehavior } from '../../test/fakes/model/server.ts';
import { modelEnvOf } from '../../test/fakes/model/server.ts';
import { analysisToken } from '../education-analysis/setup.ts';
import { loudLogEntries, openInstallation, startServer, type EngineName } from '../http/installation.ts';
import { median, percentile } from '../support/stats.ts';
import { measureLedger, type LedgerTimings, type Spread } from './ledger.ts';
import { prepareGenerationChain } from './setup.ts';
import { generateAvailable, generateReply, generateRequest, GENERATE_PATH, parseNdjsonEvent } from './generate-input.ts';
import { inParallel, keepAliveAgent, timedRequest, type TimedExchange } from './wire.ts';

const PRACTICE_PATH = '/api/product/v1/intelligence/education/practice-review';
const fixture = (name: string): string => readFileSync(new URL(`../../test/fixtures/education/drafts/${name}.json`, import.meta.url), 'utf8');

/** How much each series measures. */
export interface Sizes {
  /** Sequential calls of each JSON and streamed series (after the warm-up). */
  sequential: number;
  warmup: number;
  /** Calls in flight in the concurrent series, and calls per client. */
  concurrency: number;
  perClient: number;
  /** Chunks of a long streamed reply, and how many long replies each way. */
  longChunks: number;
  longReplies: number;
  /** Chunks of the short streamed replies of the sequential series. */
  shortChunks: number;
}

/** A latency row: p50 and p95 of each moment. */
export interface LatencyRow {
  name: string;
  /** Which path it is: through the gateway, a direct baseline, or a reference call. */
  role: 'gateway' | 'baseline' | 'reference';
  calls: number;
  concurrency: number;
  headers: Spread;
  /** The moment the row is about (first byte; for streams the first delta). */
  first: Spread;
  total: Spread;
  /** For NDJSON: the `ready` event. */
  ready?: Spread;
  /** Calls per second over the series' wall time (concurrent series). */
  callsPerSecond?: number;
  bytes: number;
}

/** A streamed-throughput row. */
export interface ThroughputRow {
  name: string;
  role: 'gateway' | 'baseline';
  streams: number;
  concurrency: number;
  chunks: number;
  /** Deltas (or SSE content chunks) per second and body bytes per second: median over the streams one at a time, aggregate over the wall time when concurrent. */
  deltasPerSecond: number;
  bytesPerSecond: number;
  /** Characters of text per second (what the reader gets out of the wire's bytes). */
  textPerSecond: number;
  /** Median body bytes of one stream. */
  bytesPerStream: number;
  totalMs: Spread;
}

/** The gateway's overhead: per pair of calls made one after the other, the gateway's time minus its baseline's. */
export interface OverheadRow {
  name: string;
  pairs: number;
  /** First byte (JSON) or first delta (NDJSON) minus the baseline's. */
  first: Spread;
  total: Spread;
}

/** One database's results. */
export interface EngineRun {
  engine: EngineName;
  json: LatencyRow[];
  overhead: OverheadRow[];
  concurrent: LatencyRow[];
  /** Null when the gateway does not serve `generate` yet. */
  stream: { latency: LatencyRow[]; throughput: ThroughputRow[] } | null;
  ledger: LedgerTimings;
  failures: string[];
}

const spread = (values: readonly number[]): Spread => ({ p50: median(values), p95: percentile(values, 95) });

function overheadRow(name: string, gateway: ReadonlyArray<{ first: number; total: number }>, baseline: ReadonlyArray<{ first: number; total: number }>): OverheadRow {
  const pairs = Math.min(gateway.length, baseline.length);
  const first: number[] = [];
  const total: number[] = [];
  for (let k = 0; k < pairs; k++) {
    first.push(gateway[k]!.first - baseline[k]!.first);
    total.push(gateway[k]!.total - baseline[k]!.total);
  }
  return { name, pairs, first: spread(first), total: spread(total) };
}

const moments = (samples: readonly TimedExchange[]) => samples.map((s) => ({ first: s.firstByteMs, total: s.totalMs }));

function latencyRow(name: string, role: LatencyRow['role'], samples: readonly TimedExchange[], concurrency: number, extra: { first?: number[]; ready?: number[]; wallMs?: number } = {}): LatencyRow {
  return {
    name,
    role,
    calls: samples.length,
    concurrency,
    headers: spread(samples.map((s) => s.headersMs)),
    first: spread(extra.first ?? samples.map((s) => s.firstByteMs)),
    total: spread(samples.map((s) => s.totalMs)),
    ...(extra.ready ? { ready: spread(extra.ready) } : {}),
    ...(extra.wallMs === undefined ? {} : { callsPerSecond: (samples.length * 1000) / extra.wallMs }),
    bytes: median(samples.map((s) => s.bytes)),
  };
}

/** A streamed exchange: the exchange and the moments of its events. */
interface StreamSample {
  exchange: TimedExchange;
  readyMs: number;
  firstDeltaMs: number;
  deltas: number;
  /** Characters of text the deltas (or content chunks) carried. */
  textChars: number;
  /** Whether it ended as it should: `done` (NDJSON) or `[DONE]` (SSE). */
  complete: boolean;
}

/** Measures everything on the database of `env`; `root` holds the server's log. */
export async function measureEngine(engine: EngineName, env: Record<string, string>, root: string, fake: ModelFake, sizes: Sizes, log: (line: string) => void): Promise<EngineRun> {
  const failures: string[] = [];
  const chain = await prepareGenerationChain(env);
  const logFile = join(root, `${engine}-serve.log`);
  const server = await startServer({ ...env, ...modelEnvOf(fake, { KGATE_MODEL_TIMEOUT_MS: '60000' }) }, logFile);
  log(`  ${engine}: kgate serve (pid ${server.pid}) at ${server.url}`);
  let behaviour: FakeBehavior = { kind: 'reply', text: fixture('practice-output'), usage: { inputTokens: 1200, outputTokens: 800 } };
  fake.respond(() => behaviour);
  const gatewayAgent = keepAliveAgent(sizes.concurrency);
  const fakeAgent = keepAliveAgent(sizes.concurrency);
  let metered = 0;
  let json: LatencyRow[];
  const overhead: OverheadRow[] = [];
  let concurrent: LatencyRow[];
  let stream: (NonNullable<EngineRun['stream']> & { overhead: OverheadRow }) | null = null;
  try {
    const token = await analysisToken(server.url, chain);
    const runtimeHeaders = { authorization: `Bearer ${token}`, 'x-service-runtime-version': '1' };
    const practiceBody = fixture('practice-request');
    const fakeUrl = `${fake.baseUrl}/chat/completions`;
    const fakeHeaders = { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' };

    const practice = async (): Promise<TimedExchange> => {
      const answer = await timedRequest({
        method: 'POST',
        url: `${server.url}${PRACTICE_PATH}`,
        headers: { ...runtimeHeaders, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: practiceBody,
        agent: gatewayAgent,
        keepBody: true,
      });
      if (answer.status !== 200 || !answer.body.includes('"service.product-intelligence-usage"')) {
        failures.push(`${engine}: practice-review answered ${answer.status}: ${answer.body.slice(0, 300)}`);
      } else {
        metered += 1;
      }
      return answer;
    };

    log(`  ${engine}: JSON calls (${sizes.warmup} to warm up, ${sizes.sequential} sequential, ${sizes.concurrency * sizes.perClient} with ${sizes.concurrency} in flight)`);
    for (let k = 0; k < sizes.warmup; k++) await practice();
    // The baseline sends the fake exactly what the gateway sent it.
    const sent = fake.requests.at(-1)?.body;
    if (!sent) throw new Error('the gateway sent the fake model nothing');
    const directBody = JSON.stringify(sent);
    const direct = (agent: typeof fakeAgent | undefined) => () => timedRequest({ method: 'POST', url: fakeUrl, headers: fakeHeaders, body: directBody, ...(agent ? { agent } : {}) });
    const series: Array<{ name: string; role: LatencyRow['role']; call: () => Promise<TimedExchange>; samples: TimedExchange[] }> = [
      { name: 'GET /healthz', role: 'reference', call: () => timedRequest({ method: 'GET', url: `${server.url}/healthz`, agent: gatewayAgent }), samples: [] },
      { name: 'GET /api/product/v1/context (chain, no model)', role: 'reference', call: () => timedRequest({ method: 'GET', url: `${server.url}/api/product/v1/context`, headers: runtimeHeaders, agent: gatewayAgent }), samples: [] },
      { name: 'fake model chat completion, direct (kept-alive connection)', role: 'baseline', call: direct(fakeAgent), samples: [] },
      { name: 'fake model chat completion, direct (new connection per call)', role: 'baseline', call: direct(undefined), samples: [] },
      { name: 'practice-review through the gateway', role: 'gateway', call: practice, samples: [] },
    ];
    for (let k = 0; k < sizes.sequential; k++) {
      for (const s of series) s.samples.push(await s.call());
    }
    json = series.map((s) => latencyRow(s.name, s.role, s.samples, 1));
    const through = series.find((s) => s.role === 'gateway')!.samples;
    overhead.push(overheadRow('practice-review minus the direct completion (kept-alive)', moments(through), moments(series[2]!.samples)));
    overhead.push(overheadRow('practice-review minus the direct completion (new connection)', moments(through), moments(series[3]!.samples)));

    const calls = sizes.concurrency * sizes.perClient;
    const concurrently = async (name: string, role: LatencyRow['role'], call: () => Promise<TimedExchange>): Promise<LatencyRow> => {
      const started = performance.now();
      const samples = await inParallel(calls, sizes.concurrency, call);
      return latencyRow(name, role, samples, sizes.concurrency, { wallMs: performance.now() - started });
    };
    concurrent = [
      await concurrently('GET /api/product/v1/context (chain, no model)', 'reference', series[1]!.call),
      await concurrently('fake model chat completion, direct (kept-alive)', 'baseline', direct(fakeAgent)),
      await concurrently('practice-review through the gateway', 'gateway', practice),
    ];

    if (generateAvailable()) {
      stream = await measureStreams(server.url, runtimeHeaders, fake, sizes, gatewayAgent, fakeAgent, {
        setBehaviour: (next) => (behaviour = next),
        counted: () => (metered += 1),
        failure: (line) => failures.push(`${engine}: ${line}`),
        log: (line) => log(`  ${engine}: ${line}`),
      });
    } else {
      log(`  ${engine}: generate is not served yet: no NDJSON rows`);
    }
  } finally {
    gatewayAgent.destroy();
    fakeAgent.destroy();
    await server.stop();
  }
  const loud = await loudLogEntries([logFile]);
  if (loud.length > 0) failures.push(`${engine}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0]).slice(0, 400)}`);

  log(`  ${engine}: the ledger's phases in process (${sizes.sequential} calls)`);
  const opened = await openInstallation(env);
  let ledger: LedgerTimings;
  try {
    const rows = await opened.db.query<{ n: number | string }>(`SELECT count(*) AS n FROM intelligence_ledger WHERE principal_id = $1 AND state = 'settled'`, [chain.principalId]);
    const settled = Number(rows[0]?.n ?? 0);
    if (settled !== metered) failures.push(`${engine}: ${settled} settled ledger rows for ${metered} metered calls answered`);
    ledger = await measureLedger(opened.db, chain, JSON.parse(fixture('practice-output')) as Record<string, unknown>, sizes.sequential, sizes.warmup);
  } finally {
    await opened.close();
  }
  if (stream) overhead.push(stream.overhead);
  return { engine, json, overhead, concurrent, stream: stream && { latency: stream.latency, throughput: stream.throughput }, ledger, failures };
}

interface StreamHooks {
  setBehaviour(next: FakeBehavior): void;
  counted(): void;
  failure(line: string): void;
  log(line: string): void;
}

/** The NDJSON series (generate served): latency of short streams, then long streams one at a time and concurrently. */
async function measureStreams(
  url: string,
  runtimeHeaders: Record<string, string>,
  fake: ModelFake,
  sizes: Sizes,
  gatewayAgent: ReturnType<typeof keepAliveAgent>,
  fakeAgent: ReturnType<typeof keepAliveAgent>,
  hooks: StreamHooks,
): Promise<NonNullable<EngineRun['stream']> & { overhead: OverheadRow }> {
  const body = JSON.stringify(generateRequest());
  const gateway = async (): Promise<StreamSample> => {
    let readyMs = Number.NaN;
    let firstDeltaMs = Number.NaN;
    let deltas = 0;
    let textChars = 0;
    let complete = false;
    let problem: string | undefined;
    const exchange = await timedRequest({
      method: 'POST',
      url: `${url}${GENERATE_PATH}`,
      headers: { ...runtimeHeaders, accept: 'application/x-ndjson', 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body,
      agent: gatewayAgent,
      onLine(line, at) {
        if (line.trim() === '') return;
        const event = parseNdjsonEvent(line);
        if (event.kind === 'ready' && Number.isNaN(readyMs)) readyMs = at;
        else if (event.kind === 'delta') {
          deltas += 1;
          textChars += event.text.length;
          if (Number.isNaN(firstDeltaMs)) firstDeltaMs = at;
        } else if (event.kind === 'done') complete = event.ok;
        else problem ??= line.slice(0, 300);
      },
    });
    if (exchange.status !== 200 || !complete || Number.isNaN(readyMs) || deltas === 0) {
      hooks.failure(`generate (NDJSON) answered ${exchange.status}, ${deltas} deltas, ${complete ? 'done' : 'no successful done'}${problem ? `: ${problem}` : ''}`);
    } else {
      hooks.counted();
    }
    return { exchange, readyMs, firstDeltaMs, deltas, textChars, complete };
  };

  const setReply = (chunks: number) => hooks.setBehaviour({ kind: 'reply', text: generateReply(chunks), usage: { inputTokens: 1500, outputTokens: Math.max(200, chunks) }, chunks });
  hooks.log(`NDJSON generate (${sizes.warmup} to warm up, ${sizes.sequential} sequential of ${sizes.shortChunks} chunks)`);
  setReply(sizes.shortChunks);
  for (let k = 0; k < sizes.warmup; k++) await gateway();
  const sent = fake.requests.at(-1)?.body;
  if (!sent || sent.stream !== true) throw new Error('the gateway did not stream its generate request to the fake model');
  const directBody = JSON.stringify(sent);
  const direct = async (): Promise<StreamSample> => {
    let firstDeltaMs = Number.NaN;
    let deltas = 0;
    let textChars = 0;
    let complete = false;
    const exchange = await timedRequest({
      method: 'POST',
      url: `${fake.baseUrl}/chat/completions`,
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: directBody,
      agent: fakeAgent,
      onLine(line, at) {
        if (!line.startsWith('data: ')) return;
        const data = line.slice(6);
        if (data === '[DONE]') {
          complete = true;
          return;
        }
        const content = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]?.delta?.content;
        if (content) {
          deltas += 1;
          textChars += content.length;
          if (Number.isNaN(firstDeltaMs)) firstDeltaMs = at;
        }
      },
    });
    if (exchange.status !== 200 || !complete) hooks.failure(`the fake's stream answered ${exchange.status} ${complete ? '' : 'without [DONE]'}`);
    return { exchange, readyMs: Number.NaN, firstDeltaMs, deltas, textChars, complete };
  };

  const directSamples: StreamSample[] = [];
  const gatewaySamples: StreamSample[] = [];
  for (let k = 0; k < sizes.sequential; k++) {
    directSamples.push(await direct());
    gatewaySamples.push(await gateway());
  }
  const latency: LatencyRow[] = [
    latencyRow(`fake model SSE stream, direct (${sizes.shortChunks} chunks)`, 'baseline', directSamples.map((s) => s.exchange), 1, { first: directSamples.map((s) => s.firstDeltaMs) }),
    latencyRow(`generate NDJSON through the gateway (${sizes.shortChunks} chunks)`, 'gateway', gatewaySamples.map((s) => s.exchange), 1, {
      first: gatewaySamples.map((s) => s.firstDeltaMs),
      ready: gatewaySamples.map((s) => s.readyMs),
    }),
  ];

  hooks.log(`long streams: ${sizes.longReplies} of ${sizes.longChunks} chunks each way, then ${sizes.concurrency} at once`);
  setReply(sizes.longChunks);
  const longDirect: StreamSample[] = [];
  const longGateway: StreamSample[] = [];
  await gateway(); // warm the long path once
  for (let k = 0; k < sizes.longReplies; k++) {
    longDirect.push(await direct());
    longGateway.push(await gateway());
  }
  const oneAtATime = (name: string, role: ThroughputRow['role'], samples: StreamSample[]): ThroughputRow => ({
    name,
    role,
    streams: samples.length,
    concurrency: 1,
    chunks: median(samples.map((s) => s.deltas)),
    deltasPerSecond: median(samples.map((s) => (s.deltas * 1000) / s.exchange.totalMs)),
    bytesPerSecond: median(samples.map((s) => (s.exchange.bytes * 1000) / s.exchange.totalMs)),
    textPerSecond: median(samples.map((s) => (s.textChars * 1000) / s.exchange.totalMs)),
    bytesPerStream: median(samples.map((s) => s.exchange.bytes)),
    totalMs: spread(samples.map((s) => s.exchange.totalMs)),
  });
  const atOnce = async (name: string, role: ThroughputRow['role'], call: () => Promise<StreamSample>): Promise<ThroughputRow> => {
    const started = performance.now();
    const samples = await inParallel(sizes.concurrency, sizes.concurrency, call);
    const wall = performance.now() - started;
    const deltas = samples.reduce((sum, s) => sum + s.deltas, 0);
    const bytes = samples.reduce((sum, s) => sum + s.exchange.bytes, 0);
    const text = samples.reduce((sum, s) => sum + s.textChars, 0);
    return {
      name,
      role,
      streams: samples.length,
      concurrency: sizes.concurrency,
      chunks: median(samples.map((s) => s.deltas)),
      deltasPerSecond: (deltas * 1000) / wall,
      bytesPerSecond: (bytes * 1000) / wall,
      textPerSecond: (text * 1000) / wall,
      bytesPerStream: median(samples.map((s) => s.exchange.bytes)),
      totalMs: spread(samples.map((s) => s.exchange.totalMs)),
    };
  };
  const throughput: ThroughputRow[] = [
    oneAtATime('fake model SSE, direct', 'baseline', longDirect),
    oneAtATime('generate NDJSON through the gateway', 'gateway', longGateway),
    await atOnce('fake model SSE, direct', 'baseline', direct),
    await atOnce('generate NDJSON through the gateway', 'gateway', gateway),
  ];
  const streamMoments = (samples: readonly StreamSample[]) => samples.map((s) => ({ first: s.firstDeltaMs, total: s.exchange.totalMs }));
  const overhead = overheadRow('generate NDJSON first delta minus the fake\u2019s first content chunk (SSE, kept-alive)', streamMoments(gatewaySamples), streamMoments(directSamples));
  return { latency, throughput, overhead };
}
