/**
 * Cold start: how soon the real `kgate serve` is ready, how soon it answers its first search, how long it holds its
 * event loop meanwhile, and how much memory it holds, on the embedded database (PGlite), the default of
 * `npm ci && npm start`:
 *
 * - the demo installation: the first start on an empty data directory (it creates the owner, the demo vault and a
 *   token), a restart after a clean stop, and a restart after `kill -9`;
 * - a 20,000-note synthetic vault (bench/vault-generator.ts): the whole `kgate import` command into a fresh
 *   installation (notes/s), then a first start (the first search builds the search index and stores it), and a
 *   restart (the first search loads the stored index).
 *
 * "Ready" is the first `GET /readyz` that answers 200, polled every 5 ms from the moment the process is spawned.
 * The event loop's worst delay comes from the server's own `GET /metrics` (`perf_hooks.monitorEventLoopDelay`,
 * reset at each scrape): scraped once when ready and once after the first search. Memory is the server's resident
 * set from /proc after the searches.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SYNTHETIC_COMMON_TERM, SYNTHETIC_RARE_TERM, writeSyntheticVault } from './vault-generator.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';

const debug = (line: string) => {
  if (process.env.KGATE_BENCH_DEBUG) process.stderr.write(`[cold-start] ${line}\n`);
};
const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));
const KGATE = join(REPO_ROOT, 'bin', 'kgate.js');

/** The searches after a start, the first one timed: on the demo vault, and on the synthetic vault. */
const DEMO_QUERIES = ['offline sync', 'pilot', 'harbor utilities', 'replication', 'sqlite'];
const VAULT_QUERIES = [SYNTHETIC_RARE_TERM, SYNTHETIC_COMMON_TERM, 'amber lighthouse', 'workflow review', SYNTHETIC_RARE_TERM];

/** One start of the server and what it showed. */
export interface StartFigures {
  label: string;
  readyMs: number;
  /** The first search after ready: milliseconds to its answer, and the event loop's worst delay meanwhile. */
  firstSearchMs?: number;
  loopMaxDuringSearchMs?: number;
  /** The event loop's worst delay from the start of the process to ready. */
  loopMaxToReadyMs: number;
  rssMb: number;
  /** After a first build: resident memory once the index is stored in the background, and the wait for it. */
  settled?: { rssMb: number; waitMs: number };
}

/** The whole result. */
export interface ColdStartResult {
  notes: number;
  vaultMb: number;
  importSeconds: number;
  starts: StartFigures[];
  failures: string[];
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, 'close');
  return port;
}

function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) base[name] = process.env[name]!;
  return { ...base, ...env };
}

/** Runs a kgate command to completion; resolves with its stdout, rejects with its stderr. */
async function kgate(args: string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [KGATE, ...args], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`kgate ${args.join(' ')} exited ${code}: ${err.slice(-1000)}`);
  return out;
}

interface Running {
  child: ChildProcess;
  url: string;
  metricsUrl: string;
  readyMs: number;
}

/** Spawns `kgate serve` and polls `/readyz` every 5 ms until it answers 200. */
async function startServe(dataDir: string): Promise<Running> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawn(process.execPath, [KGATE, 'serve'], {
    cwd: REPO_ROOT,
    env: childEnv({ KGATE_DATA_DIR: dataDir, PORT: String(port), KGATE_METRICS_PORT: String(metricsPort), KGATE_LOG_LEVEL: 'warn' }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return { child, url, metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, readyMs: performance.now() - started };
    if (exited || performance.now() - started > 120_000) throw new Error('kgate serve did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The event loop's worst delay since the last scrape, in ms (the gauge resets at each scrape). */
async function loopMaxMs(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(10_000) })).text();
  const line = text.split('\n').find((l) => l.startsWith('kgate_nodejs_eventloop_lag_max_seconds '));
  return line ? 1000 * Number(line.split(' ')[1]) : Number.NaN;
}

async function rssMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

async function stop(running: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (running.child.exitCode !== null || running.child.signalCode !== null) return;
  const exit = once(running.child, 'exit');
  running.child.kill(signal);
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 30_000);
  await exit;
  clearTimeout(timer);
}

/** The owner's token and mapping of an installation, from `kgate admin bootstrap --json` (idempotent). */
async function ownerOf(dataDir: string): Promise<{ token: string; mappingId: string }> {
  const out = JSON.parse(await kgate(['admin', 'bootstrap', '--json'], { KGATE_DATA_DIR: dataDir })) as { token: string; mappingId: string };
  return { token: out.token, mappingId: out.mappingId };
}

/** One start: ready, then (with `search`) a first search and a few more, then the figures. Leaves it running. */
async function measureStart(
  label: string,
  dataDir: string,
  search?: { token: string; mappingId: string; queries: readonly string[] },
): Promise<{ figures: StartFigures; running: Running }> {
  const running = await startServe(dataDir);
  debug(`${label}: ready in ${Math.round(running.readyMs)} ms`);
  const loopMaxToReadyMs = await loopMaxMs(running.metricsUrl);
  const figures: StartFigures = { label, readyMs: running.readyMs, loopMaxToReadyMs, rssMb: 0 };
  if (search) {
    const ask = async (query: string) => {
      const response = await fetch(`${running.url}/api/dev/search?mappingId=${search.mappingId}&query=${encodeURIComponent(query)}`, {
        headers: { authorization: `Bearer ${search.token}` },
        signal: AbortSignal.timeout(120_000),
      });
      if (response.status !== 200) throw new Error(`search answered ${response.status}: ${await response.text()}`);
      return (await response.json()) as { results: unknown[] };
    };
    const started = performance.now();
    const [firstQuery, ...more] = search.queries;
    const first = await ask(firstQuery!);
    figures.firstSearchMs = performance.now() - started;
    figures.loopMaxDuringSearchMs = await loopMaxMs(running.metricsUrl);
    if (first.results.length === 0) throw new Error(`the first search (${firstQuery}) found nothing`);
    for (const query of more) await ask(query);
  }
  figures.rssMb = await rssMb(running.child.pid!);
  return { figures, running };
}

/** Runs the benchmark in a temporary folder. */
export async function measureColdStart(options: { notes: number; seed: number; log?: (line: string) => void }): Promise<ColdStartResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const root = await mkdtemp(join(tmpdir(), 'kgate-cold-start-'));
  const starts: StartFigures[] = [];
  const failures: string[] = [];
  try {
    // The demo installation.
    const demo = join(root, 'demo');
    let { figures, running } = await measureStart('demo, first start (empty data directory)', demo);
    starts.push(figures);
    await stop(running);
    ({ figures, running } = await measureStart('demo, restart', demo));
    starts.push(figures);
    await stop(running, 'SIGKILL');
    ({ figures, running } = await measureStart('demo, restart after kill -9', demo));
    starts.push(figures);
    const demoOwner = await (async () => {
      await stop(running);
      return ownerOf(demo);
    })();
    ({ figures, running } = await measureStart('demo, restart, then searches', demo, { ...demoOwner, queries: DEMO_QUERIES }));
    starts.push(figures);
    await stop(running);
    log(`  demo: ${starts.map((s) => `${s.label} ${Math.round(s.readyMs)} ms`).join('; ')}`);

    // The synthetic vault: the whole import command, then two starts.
    const vaultDir = join(root, 'vault');
    const written = await writeSyntheticVault(vaultDir, { notes: options.notes, seed: options.seed });
    const big = join(root, 'big');
    const owner = await ownerOf(big);
    const importStarted = performance.now();
    await kgate(['import', vaultDir, '--mapping', owner.mappingId, '--json'], { KGATE_DATA_DIR: big });
    const importSeconds = (performance.now() - importStarted) / 1000;
    log(`  import: ${written.notes} notes in ${fixed(importSeconds, 1)} s`);
    const bigSearch = { ...owner, queries: VAULT_QUERIES };
    ({ figures, running } = await measureStart(`${count(options.notes)} notes, first start (the first search builds the index)`, big, bigSearch));
    starts.push(figures);
    // The index is stored in the background after the build: wait for it, as a server that keeps running would.
    const snapshotDir = join(big, 'search-index');
    const stored = async () => (await readdir(snapshotDir).catch((): string[] => [])).some((name) => name.endsWith('.idx'));
    const waiting = performance.now();
    for (let k = 0; k < 600 && !(await stored()); k++) await new Promise((resolve) => setTimeout(resolve, 50));
    figures.settled = { waitMs: performance.now() - waiting, rssMb: await rssMb(running.child.pid!) };
    await stop(running);
    if (!(await stored())) failures.push('the search index was not stored after the first build');
    ({ figures, running } = await measureStart(`${count(options.notes)} notes, restart (the first search loads the stored index)`, big, bigSearch));
    starts.push(figures);
    await stop(running);
    for (const s of starts.slice(-2)) log(`  ${s.label}: ready ${Math.round(s.readyMs)} ms, first search ${Math.round(s.firstSearchMs ?? 0)} ms, loop max ${Math.round(s.loopMaxDuringSearchMs ?? 0)} ms, RSS ${Math.round(s.rssMb)} MB`);
    return { notes: written.notes, vaultMb: written.bytes / 1e6, importSeconds, starts, failures };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

const ms = (n: number | undefined) => (n === undefined ? '–' : n < 10 ? fixed(n, 1) : count(Math.round(n)));

/** Renders the result. */
export function coldStartReport(result: ColdStartResult): BenchmarkReport {
  const table = [
    '| Start | Ready (`/readyz` 200) | Worst event-loop delay until ready | First search | Worst event-loop delay during it | Resident memory after |',
    '|---|--:|--:|--:|--:|--:|',
    ...result.starts.map(
      (s) => `| ${s.label} | ${ms(s.readyMs)} ms | ${ms(s.loopMaxToReadyMs)} ms | ${s.firstSearchMs === undefined ? '–' : `${ms(s.firstSearchMs)} ms`} | ${s.loopMaxDuringSearchMs === undefined ? '–' : `${ms(s.loopMaxDuringSearchMs)} ms`} | ${count(Math.round(s.rssMb))} MB |`,
    ),
  ];
  const details = [
    `- Import: \`kgate import\` of ${count(result.notes)} synthetic notes (${fixed(result.vaultMb, 1)} MB, bench/vault-generator.ts) into a fresh installation, the whole command from spawn to exit: ${fixed(result.importSeconds, 1)} s, ${count(Math.round(result.notes / result.importSeconds))} notes/s.`,
    '- Server: `kgate serve` as a child process on the embedded database (KGATE_DATA_DIR), log level warn, with `KGATE_METRICS_PORT` set so that the event loop can be read. Ready is the first `GET /readyz` answering 200, polled every 5 ms from the spawn: it includes starting Node.js, loading the code, opening and migrating the database.',
    `- Searches: on the synthetic vault the first is \`${SYNTHETIC_RARE_TERM}\` (a rare word), then ${VAULT_QUERIES.length - 1} more; on the demo vault \`${DEMO_QUERIES[0]}\`, then ${DEMO_QUERIES.length - 1} more. The event loop's worst delay is \`kgate_nodejs_eventloop_lag_max_seconds\` of \`GET /metrics\` (perf_hooks.monitorEventLoopDelay, reset at each scrape), scraped at ready and after the first search. Resident memory is VmRSS from /proc after the searches.`,
    ...result.starts
      .filter((s) => s.settled)
      .map(
        (s) =>
          `- ${s.label}: once the index built by the first search was stored in the background (${count(Math.round(s.settled!.waitMs))} ms after the searches), the server held ${count(Math.round(s.settled!.rssMb))} MB.`,
      ),
    '- The demo rows start on the demo installation (about 30 notes). "First start" begins with an empty data directory: the server copies the migrated template that `npm ci` made (`dist/pglite-template`, docs/architecture.md), then creates the owner, the demo vault and a token.',
    ...result.failures.map((f) => `- Failure: ${f}`),
  ];
  return { table, details, failures: result.failures };
}

/** The benchmark. */
export const coldStart: Benchmark = {
  title: 'Cold start',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return coldStartReport(await measureColdStart({ notes: options.notes, seed: options.seed }));
  },
};
