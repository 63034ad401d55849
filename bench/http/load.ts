/** One autocannon measurement of one scenario: a warm-up that is thrown away, then the measured run. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import autocannon from 'autocannon';
import { cpuBetween, readCpu, type CpuUse } from './cpu.ts';
import type { Scenario } from './scenarios.ts';

/** How hard and how long to push. */
export interface LoadOptions {
  connections: number;
  warmupSeconds: number;
  seconds: number;
}

/**
 * The load of the throughput benchmarks: 50 connections, a 3 s warm-up, then 10 s measured per row. `seconds`
 * (`--duration`) replaces the 10 s, and the warm-up too when it is shorter, e.g. 2 s and 2 s for a smoke run.
 */
export function standardLoad(seconds = 10): LoadOptions {
  return { connections: 50, warmupSeconds: Math.min(3, seconds), seconds };
}

/** What the measurement needs from the server it loads. */
export interface ServerHooks {
  /** Waits until the server has finished the requests the load generator left running when it stopped. */
  settle(): Promise<void>;
  /** The server process id, for its CPU time. */
  pid: number;
}

/** What a measurement needs of a scenario: its key and label, the request, and the check of each response body. */
export interface LoadScenario<K extends string = Scenario['key']> {
  key: K;
  label: string;
  options: Scenario['options'];
  verify(body: string): boolean;
}

/** The measured run of one scenario. */
export interface Measurement<K extends string = Scenario['key']> {
  key: K;
  label: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** 2xx answers of the measured run. */
  ok: number;
  /** 2xx answers of the warm-up (applied writes change data then too). */
  warmupOk: number;
  /** Connection errors and timeouts, non-2xx answers, and 2xx answers whose body failed the check, over both runs. */
  errors: number;
  non2xx: number;
  mismatches: number;
  /** Status codes other than 200 seen in either run, e.g. { "429": 3 }. */
  otherStatuses: Record<string, number>;
  /** Where the CPU went during the measured run. */
  cpu: CpuUse;
  /** Wall-clock bounds of the measured run (epoch ms), to find its lines in the server log. */
  window: { from: number; to: number };
  /**
   * A newcomer's view of the measured run: `GET /healthz` on a new connection every half second, as a load
   * balancer's health check does, in ms (median and worst); failures count as errors.
   */
  newConnectionMs: { p50: number; max: number; probes: number };
  /** The server's own view of the measured run, from its request log: handler durations (ms). Set by the caller. */
  serverMs?: { p50: number; p99: number; requests: number };
  /**
   * The hello-world rate this row is compared with: the mean of the hello-world runs measured just before and just
   * after it, when the caller measured them (see http-throughput.ts). Set by the caller.
   */
  pairedHelloRps?: number;
}

async function fire(url: string, scenario: LoadScenario<string>, connections: number, seconds: number): Promise<autocannon.Result> {
  const { path, method, headers, body, requests, setupClient } = scenario.options;
  // autocannon answers with a thenable instance, not a Promise: await it to get a real one.
  return await autocannon({
    url: `${url}${path}`,
    connections,
    duration: seconds,
    pipelining: 1,
    timeout: 30,
    ...(method ? { method } : {}),
    ...(headers ? { headers } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(requests ? { requests } : {}),
    ...(setupClient ? { setupClient } : {}),
    verifyBody: (received) => scenario.verify(String(received)),
  });
}

/**
 * The prober's code: every `interval` ms, `GET /healthz` on a connection of its own (no keep-alive agent), printing
 * the milliseconds to the whole answer, or `fail`, one line each. It runs in a process of its own, so that the load
 * generator's busy event loop does not delay the probes and their timing is the server's alone.
 */
const PROBER = `
const { request } = require('node:http');
const [url, interval] = [process.argv[1], Number(process.argv[2])];
let pending = 0;
const counted = (run) => () => { pending++; run(() => pending--); };
const timer = setInterval(counted(probeThen), interval);
function probeThen(done) {
  const started = performance.now();
  const req = request(url + '/healthz', { agent: false, timeout: 30000 }, (res) => {
    res.resume();
    res.on('end', () => { console.log(res.statusCode === 200 ? String(performance.now() - started) : 'fail'); done(); });
  });
  req.on('timeout', () => req.destroy(new Error('timeout')));
  req.on('error', () => { console.log('fail'); done(); });
  req.end();
}
counted(probeThen)();
// Stopped: no new probe, but those under way are waited for, so that a slow answer is counted, not lost.
process.on('SIGTERM', () => {
  clearInterval(timer);
  const exitWhenDone = () => (pending === 0 ? process.exit(0) : setTimeout(exitWhenDone, 5));
  exitWhenDone();
});
`;

/** A prober process: `stop()` ends it and resolves with the probes' times (ms) and the number that failed. */
export function startProber(url: string, intervalMs: number): { stop(): Promise<{ ms: number[]; failed: number }> } {
  const child = spawn(process.execPath, ['-e', PROBER, url, String(intervalMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const closed = once(child, 'close');
  return {
    async stop() {
      child.kill('SIGTERM');
      await closed;
      const lines = out.split('\n').filter(Boolean);
      return { ms: lines.filter((l) => l !== 'fail').map(Number), failed: lines.filter((l) => l === 'fail').length };
    },
  };
}

/**
 * Warms `scenario` up, then measures it, against the server at `url`. After each run the server is let finish the
 * requests the load generator abandoned at its deadline, so that they neither slow the next run nor outlive the server.
 */
export async function measureScenario<K extends string>(
  url: string,
  scenario: LoadScenario<K>,
  options: LoadOptions,
  server: ServerHooks,
): Promise<Measurement<K>> {
  const warmup = await fire(url, scenario, options.connections, options.warmupSeconds);
  await server.settle();
  const before = readCpu(server.pid);
  const from = Date.now();
  const prober = startProber(url, 500);
  const run = await fire(url, scenario, options.connections, options.seconds);
  const probes = await prober.stop();
  const to = Date.now();
  const cpu = cpuBetween(before, readCpu(server.pid));
  await server.settle();
  const otherStatuses: Record<string, number> = {};
  for (const result of [warmup, run]) {
    for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) {
      if (status !== '200') otherStatuses[status] = (otherStatuses[status] ?? 0) + (stats.count ?? 0);
    }
  }
  return {
    key: scenario.key,
    label: scenario.label,
    requestsPerSecond: run.requests.average,
    p50Ms: run.latency.p50,
    p99Ms: run.latency.p99,
    ok: run['2xx'],
    warmupOk: warmup['2xx'],
    errors: warmup.errors + run.errors + probes.failed,
    non2xx: warmup.non2xx + run.non2xx,
    mismatches: warmup.mismatches + run.mismatches,
    otherStatuses,
    cpu,
    window: { from, to },
    newConnectionMs: {
      p50: [...probes.ms].sort((a, b) => a - b)[Math.floor((probes.ms.length - 1) / 2)] ?? Number.NaN,
      max: Math.max(...probes.ms),
      probes: probes.ms.length,
    },
  };
}
