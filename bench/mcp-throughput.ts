/**
 * MCP throughput: requests per second and latency of the real `kgate serve`'s MCP gateway (`POST /api/mcp`) under
 * 50 concurrent connections, on embedded PGlite and on server PostgreSQL, for `tools/list` and for a `tools/call` of
 * `get_note_content`, beside the hello-world route (`GET /healthz`) of the same server measured in the same run.
 * The `tools/call` is measured twice: with the owner's personal access token (`kgp_…`, as scripts and agents send
 * it; `tools/list` uses it too), and with an OAuth access token (`kgat_…`, as interactive MCP clients send it),
 * which the benchmark obtains through the real authorization code flow (`mcp/oauth-access-token.ts`). Both are
 * resolved through the same in-memory credential cache, so they should cost the same: the report gives the OAuth
 * rate divided by the personal-token rate, per database.
 * In the same run it measures the approach kgate's gateway replaces: the MCP SDK's stateless pattern, a new
 * `McpServer` and `StreamableHTTPServerTransport` per request (`mcp/sdk-per-request-server.ts`, a child process),
 * answering `tools/list` twice over: registering one tool (with its hello-world beside it), and registering kgate's
 * whole tool set (`--kgate-tools`), so that it lists what kgate lists. The report gives kgate's `tools/list` rate
 * divided by each of theirs, per database (the target: 10 or more).
 *
 * Per database: a fresh installation set up with `kgate admin bootstrap --json --password-stdin` (a random password,
 * so that the owner can sign in and approve the OAuth client), the owner's MCP allowances raised to 10^9 with
 * `kgate admin account --mcp-per-minute --mcp-per-month` (before the server starts: PGlite allows one process per
 * data directory), `kgate serve` as a child process, the OAuth access token obtained from it, then each scenario
 * warmed up and measured with autocannon (`http/load.ts`). Every response body is checked; any error, non-2xx
 * answer, wrong body, failed step of the OAuth flow, or server log line at warn or above (or, for the SDK servers,
 * anything on stderr) fails the benchmark.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_OWNER_EMAIL } from '../src/domains/onboarding/index.ts';
import { bootstrapInstallation, loudLogEntries, openInstallation, runKgate, startServer, type EngineName } from './http/installation.ts';
import { measureScenario, standardLoad, type LoadOptions, type LoadScenario, type Measurement, type ServerHooks } from './http/load.ts';
import { READ_NOTE_PATH } from './http/scenarios.ts';
import { oauthAccessToken } from './mcp/oauth-access-token.ts';
import { mcpHeaders, nextBody, nextHeaders, PROTOCOL_VERSION, toolsCallBody, TOOLS_LIST_BODY, verifyNextToolsList, verifyNoteContent, verifyToolsList } from './mcp/requests.ts';
import type { Benchmark, BenchmarkOptions, BenchmarkReport } from './support/benchmark.ts';
import { count, fixed } from './support/format.ts';
import { describePglite } from './support/pglite-version.ts';
import { measureOnServedEngines } from './support/served-engines.ts';

const REPO_ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The MCP allowances (per minute and per month) the benchmark account gets: far above what a run can use. */
const MCP_ALLOWANCE = 1_000_000_000;

type Key = 'hello' | 'toolsList' | 'toolsCall' | 'nextToolsList' | 'nextToolsCall' | 'oauthToolsCall' | 'sdkHello' | 'sdkToolsList' | 'sdkKgateToolsList';

const ROUTE_NAMES: Record<Key, string> = {
  hello: 'kgate hello-world: `GET /healthz`',
  toolsList: 'kgate MCP `tools/list`: `POST /api/mcp`',
  toolsCall: `kgate MCP \`tools/call\` \`get_note_content\` (\`${READ_NOTE_PATH}\`), personal access token: \`POST /api/mcp\``,
  nextToolsList: 'kgate MCP `tools/list` at the 2026-07-28 wire (`_meta`, `Mcp-Method`): `POST /api/mcp`',
  nextToolsCall: `kgate MCP \`tools/call\` \`get_note_content\` at the 2026-07-28 wire (\`_meta\`, \`Mcp-Method\`, \`Mcp-Name\`), personal access token: \`POST /api/mcp\``,
  oauthToolsCall: `kgate MCP \`tools/call\` \`get_note_content\` (\`${READ_NOTE_PATH}\`), OAuth access token: \`POST /api/mcp\``,
  sdkHello: 'SDK server per request, hello-world: `GET /healthz`',
  sdkToolsList: 'SDK server per request with one tool, MCP `tools/list`: `POST /mcp`',
  sdkKgateToolsList: "SDK server per request with kgate's tool set, MCP `tools/list`: `POST /mcp`",
};

/** The rows that answer `tools/list`: kgate's, and each SDK server's. */
const LIST_KEYS: readonly Key[] = ['toolsList', 'sdkToolsList', 'sdkKgateToolsList'];

/** The server-per-request runs: the SDK server with one tool, and with kgate's tool set (`--kgate-tools`). */
const SDK_RUN_NAMES = ['SDK per request', 'SDK per request, kgate tools'] as const;

type SdkRunName = (typeof SDK_RUN_NAMES)[number];

/** Options of {@link measureMcpThroughput}. */
export interface McpThroughputOptions extends LoadOptions {
  /** PostgreSQL server for the scratch database; defaults to KGATE_BENCH_DATABASE_URL or the local one. */
  serverUrl?: string;
  log?: (line: string) => void;
}

/** One group of rows: a kgate database, or one of the SDK per-request servers (no database). */
export interface McpRun {
  name: EngineName | SdkRunName;
  version: string;
  measurements: Array<Measurement<Key>>;
  /** Bytes of one `tools/list` answer of this run's server, fetched before the load (undefined without such a row). */
  toolsListBytes?: number;
}

/** The whole benchmark's result. */
export interface McpThroughputResult {
  options: LoadOptions;
  runs: McpRun[];
  skipped: Array<{ engine: EngineName; reason: string }>;
  failures: string[];
}

/** A server-per-request baseline: how its SDK server is started, and what is measured on it. */
interface SdkBaseline {
  name: SdkRunName;
  /** Command-line arguments of `mcp/sdk-per-request-server.ts`. */
  args: readonly string[];
  scenarios: Array<LoadScenario<Key>>;
}

function isSdkRun(run: McpRun): boolean {
  return (SDK_RUN_NAMES as readonly string[]).includes(run.name);
}

/** The bearer tokens kgate's rows authenticate with. */
interface KgateTokens {
  /** The owner's personal access token (`kgp_…`), from `kgate admin bootstrap`. */
  personal: string;
  /** An OAuth access token (`kgat_…`) of the same owner, from the authorization code flow. */
  oauth: string;
}

/**
 * kgate's rows. The two `tools/call` rows send the same body and differ only in the bearer token; the OAuth row runs
 * right after the personal-token one, on the same server warmed up by the rows before them.
 */
function kgateScenarios(tokens: KgateTokens, mappingId: string): Array<LoadScenario<Key>> {
  const call = toolsCallBody('get_note_content', { mappingId, path: READ_NOTE_PATH });
  return [
    {
      key: 'hello',
      label: ROUTE_NAMES.hello,
      options: { method: 'GET', path: '/healthz' },
      verify: (body) => body.startsWith('{"status":"ok"'),
    },
    {
      key: 'toolsList',
      label: ROUTE_NAMES.toolsList,
      options: { method: 'POST', path: '/api/mcp', headers: mcpHeaders(tokens.personal), body: TOOLS_LIST_BODY },
      verify: verifyToolsList,
    },
    {
      key: 'toolsCall',
      label: ROUTE_NAMES.toolsCall,
      options: { method: 'POST', path: '/api/mcp', headers: mcpHeaders(tokens.personal), body: call },
      verify: verifyNoteContent,
    },
    {
      key: 'nextToolsList',
      label: ROUTE_NAMES.nextToolsList,
      options: { method: 'POST', path: '/api/mcp', headers: nextHeaders(tokens.personal, 'tools/list'), body: nextBody('tools/list', {}) },
      verify: verifyNextToolsList,
    },
    {
      key: 'nextToolsCall',
      label: ROUTE_NAMES.nextToolsCall,
      options: {
        method: 'POST',
        path: '/api/mcp',
        headers: nextHeaders(tokens.personal, 'tools/call', 'get_note_content'),
        body: nextBody('tools/call', { name: 'get_note_content', arguments: { mappingId, path: READ_NOTE_PATH } }),
      },
      verify: verifyNoteContent,
    },
    {
      key: 'oauthToolsCall',
      label: ROUTE_NAMES.oauthToolsCall,
      options: { method: 'POST', path: '/api/mcp', headers: mcpHeaders(tokens.oauth), body: call },
      verify: verifyNoteContent,
    },
  ];
}

function sdkHelloScenario(): LoadScenario<Key> {
  return {
    key: 'sdkHello',
    label: ROUTE_NAMES.sdkHello,
    options: { method: 'GET', path: '/healthz' },
    verify: (body) => body === '{"status":"ok"}',
  };
}

function sdkToolsListScenario(key: 'sdkToolsList' | 'sdkKgateToolsList'): LoadScenario<Key> {
  return {
    key,
    label: ROUTE_NAMES[key],
    options: { method: 'POST', path: '/mcp', headers: mcpHeaders(undefined), body: TOOLS_LIST_BODY },
    verify: verifyToolsList,
  };
}

/**
 * The two server-per-request baselines: the SDK server with one tool (its hello-world and `tools/list`), and the
 * same server with kgate's tool set (`tools/list` only: its hello-world is the same code as the first's).
 */
function sdkBaselines(): SdkBaseline[] {
  return [
    { name: 'SDK per request', args: [], scenarios: [sdkHelloScenario(), sdkToolsListScenario('sdkToolsList')] },
    { name: 'SDK per request, kgate tools', args: ['--kgate-tools'], scenarios: [sdkToolsListScenario('sdkKgateToolsList')] },
  ];
}

function badCounts(m: Measurement<Key>): string | undefined {
  if (m.errors + m.non2xx + m.mismatches === 0) return undefined;
  return `${m.errors} errors, ${m.non2xx} non-2xx ${JSON.stringify(m.otherStatuses)}, ${m.mismatches} wrong bodies`;
}

/** One answer to a scenario's request, on a connection of its own (nothing kept open past the server's stop). */
function fetchOnce(url: string, scenario: LoadScenario<Key>): Promise<{ status: number; body: string }> {
  const { method, path, headers, body } = scenario.options;
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: method ?? 'GET', headers: headers ?? {}, agent: false, timeout: 30_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

/** The size of one checked `tools/list` answer of the server at `url`, when `list` has a `tools/list` row. */
async function toolsListBytes(name: string, url: string, list: Array<LoadScenario<Key>>, failures: string[]): Promise<number | undefined> {
  const scenario = list.find((s) => LIST_KEYS.includes(s.key));
  if (!scenario) return undefined;
  const { status, body } = await fetchOnce(url, scenario);
  if (status !== 200 || !scenario.verify(body)) failures.push(`${name} ${scenario.key}: a single request answered ${status}: ${body.slice(0, 300)}`);
  return Buffer.byteLength(body);
}

async function measureAll(
  name: string,
  url: string,
  list: Array<LoadScenario<Key>>,
  options: LoadOptions,
  server: ServerHooks,
  log: (line: string) => void,
  failures: string[],
): Promise<Array<Measurement<Key>>> {
  const measurements: Array<Measurement<Key>> = [];
  for (const scenario of list) {
    const m = await measureScenario(url, scenario, options, server);
    measurements.push(m);
    log(`  ${name} ${scenario.key}: ${Math.round(m.requestsPerSecond)} req/s, p50 ${m.p50Ms} ms, p99 ${m.p99Ms} ms`);
    const bad = badCounts(m);
    if (bad) failures.push(`${name} ${scenario.key}: ${bad}`);
  }
  return measurements;
}

async function runEngine(
  engine: EngineName,
  serverVersion: string | undefined,
  env: Record<string, string>,
  root: string,
  options: LoadOptions,
  log: (line: string) => void,
  failures: string[],
): Promise<McpRun> {
  // Only for this run's owner, who signs in once to approve the benchmark's OAuth client.
  const password = randomBytes(18).toString('base64url');
  const boot = await bootstrapInstallation(env, { password });
  await runKgate(
    ['admin', 'account', '--email', DEFAULT_OWNER_EMAIL, '--mcp-per-minute', String(MCP_ALLOWANCE), '--mcp-per-month', String(MCP_ALLOWANCE)],
    env,
  );
  let version = serverVersion;
  if (version === undefined) {
    const opened = await openInstallation(env);
    try {
      version = await describePglite(opened.db);
    } finally {
      await opened.close();
    }
  }
  const logFile = join(root, `${engine}-mcp-serve.log`);
  const server = await startServer(env, logFile);
  log(`  ${engine}: kgate serve (pid ${server.pid}) at ${server.url}, ${boot.seeded} demo notes`);
  let measurements: Array<Measurement<Key>>;
  let listBytes: number | undefined;
  try {
    // Through the running server, as a person approving an MCP client would: the token is then as any client's.
    const oauth = await oauthAccessToken(server.url, { email: DEFAULT_OWNER_EMAIL, password });
    log(`  ${engine}: OAuth access token for ${oauth.resource} (client ${oauth.clientId}, scope "${oauth.scope}")`);
    const scenarios = kgateScenarios({ personal: boot.token, oauth: oauth.accessToken }, boot.mappingId);
    listBytes = await toolsListBytes(engine, server.url, scenarios, failures);
    measurements = await measureAll(engine, server.url, scenarios, options, server, log, failures);
  } finally {
    await server.stop();
  }
  const loud = await loudLogEntries([logFile]);
  if (loud.length > 0) failures.push(`${engine}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0])}`);
  return { name: engine, version, measurements, toolsListBytes: listBytes };
}

/**
 * Starts the SDK per-request server as a child process with `args` (e.g. `--kgate-tools`); resolves once it
 * prints its URL.
 */
async function startSdkServer(args: readonly string[]): Promise<ServerHooks & { url: string; stop(): Promise<void>; stderr(): string }> {
  const script = join(REPO_ROOT, 'bench', 'mcp', 'sdk-per-request-server.ts');
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run-ts.js'), script, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  while (!stdout.includes('\n')) {
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill('SIGKILL');
      throw new Error(`the SDK per-request server did not start: ${stderr.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { url } = JSON.parse(stdout.split('\n')[0]!) as { url: string };
  return {
    url,
    pid: child.pid!,
    // No request log to watch: let the requests autocannon abandoned at its deadline finish.
    settle: () => new Promise((resolve) => setTimeout(resolve, 1000)),
    async stop() {
      if (exited) return;
      const exit = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    },
    stderr: () => stderr,
  };
}

/** Measures one server-per-request baseline: its SDK server started with the baseline's arguments, then its rows. */
async function runSdk(baseline: SdkBaseline, options: LoadOptions, log: (line: string) => void, failures: string[]): Promise<McpRun> {
  const { name, args, scenarios } = baseline;
  const server = await startSdkServer(args);
  log(`  ${name}: server (pid ${server.pid}${args.length > 0 ? `, ${args.join(' ')}` : ''}) at ${server.url}`);
  let measurements: Array<Measurement<Key>>;
  let listBytes: number | undefined;
  try {
    listBytes = await toolsListBytes(name, server.url, scenarios, failures);
    measurements = await measureAll(name, server.url, scenarios, options, server, log, failures);
  } finally {
    await server.stop();
  }
  if (server.stderr().trim() !== '') failures.push(`${name}: the server wrote to stderr: ${server.stderr().slice(0, 500)}`);
  return { name, version: '', measurements, toolsListBytes: listBytes };
}

/**
 * Runs the benchmark: kgate on PGlite and on PostgreSQL (skipped when unreachable), then the SDK per-request server
 * with one tool and with kgate's tool set.
 */
export async function measureMcpThroughput(options: McpThroughputOptions): Promise<McpThroughputResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const load: LoadOptions = { connections: options.connections, warmupSeconds: options.warmupSeconds, seconds: options.seconds };
  const result: McpThroughputResult = { options: load, runs: [], skipped: [], failures: [] };
  const measured = await measureOnServedEngines(
    'mcp',
    ({ engine, env, root, version }) => runEngine(engine, version, env, root, load, log, result.failures),
    { serverUrl: options.serverUrl, log },
  );
  result.runs.push(...measured.runs);
  result.skipped.push(...measured.skipped);
  for (const baseline of sdkBaselines()) result.runs.push(await runSdk(baseline, load, log, result.failures));
  return result;
}

/** Milliseconds as printed: one decimal below 10 ms, whole numbers above. */
function ms(value: number): string {
  return value < 10 ? fixed(value, 1) : fixed(value, 0);
}

function share(part: number, whole: number): string {
  const pct = (100 * part) / whole;
  return pct < 10 ? `${fixed(pct, 1)}%` : `${fixed(pct, 0)}%`;
}

function kb(bytes: number): string {
  return `${fixed(bytes / 1024, 1)} KB`;
}

function rate(m: Measurement<Key>): string {
  return count(Math.round(m.requestsPerSecond));
}

function find(run: McpRun, key: Key): Measurement<Key> | undefined {
  return run.measurements.find((m) => m.key === key);
}

/** The first measurement of `key` in any run, with its run. */
function findAny(runs: readonly McpRun[], key: Key): { run: McpRun; m: Measurement<Key> } | undefined {
  for (const run of runs) {
    const m = find(run, key);
    if (m) return { run, m };
  }
  return undefined;
}

/**
 * The hello-world a run's rows are compared with: kgate's own on the same database; for the SDK servers, the SDK
 * hello-world (measured on the one-tool server only: the same code answers `GET /healthz` in both).
 */
function helloFor(run: McpRun, runs: readonly McpRun[]): Measurement<Key> | undefined {
  return isSdkRun(run) ? findAny(runs, 'sdkHello')?.m : find(run, 'hello');
}

function cpuPerRequest(m: Measurement<Key>): string {
  return m.cpu.serverCores === undefined ? '–' : fixed((1000 * m.cpu.serverCores) / m.requestsPerSecond, 3);
}

function vsHello(m: Measurement<Key>, hello: Measurement<Key> | undefined): string {
  if (hello === undefined) return '–';
  return m === hello ? 'baseline' : share(m.requestsPerSecond, hello.requestsPerSecond);
}

function tableRows(runs: readonly McpRun[]): string[] {
  const rows: string[] = [];
  for (const run of runs) {
    const hello = helloFor(run, runs);
    for (const m of run.measurements) {
      rows.push(
        `| ${ROUTE_NAMES[m.key]} | ${isSdkRun(run) ? 'none' : run.name} | ${rate(m)} | ` +
          `${ms(m.p50Ms)} | ${ms(m.p99Ms)} | ${m.errors} / ${m.non2xx} | ${vsHello(m, hello)} | ${cpuPerRequest(m)} |`,
      );
    }
  }
  return rows;
}

/** kgate's `tools/list` rate divided by one SDK server's, per database: "X times its rate on PGlite (…) and Y times on PostgreSQL (…)". */
function ratiosAgainst(engines: readonly McpRun[], sdkList: Measurement<Key>): string {
  const parts: string[] = [];
  for (const run of engines) {
    const list = find(run, 'toolsList');
    if (!list) continue;
    const ratio = fixed(list.requestsPerSecond / sdkList.requestsPerSecond, 2);
    parts.push(
      `${ratio} times ${parts.length === 0 ? 'its rate ' : ''}on ${run.name} (${rate(list)} ÷ ${rate(sdkList)} requests/s; ` +
        `p99 ${ms(list.p99Ms)} ms against ${ms(sdkList.p99Ms)} ms)`,
    );
  }
  return parts.join(' and ');
}

/** The "**Against a server per request.**" paragraph; undefined when kgate's or the SDK's `tools/list` is missing. */
function againstServerPerRequest(runs: readonly McpRun[]): string | undefined {
  const engines = runs.filter((r) => !isSdkRun(r) && find(r, 'toolsList'));
  const one = findAny(runs, 'sdkToolsList');
  const full = findAny(runs, 'sdkKgateToolsList');
  if (engines.length === 0 || (!one && !full)) return undefined;
  const clauses: string[] = [];
  if (one) {
    const hello = findAny(runs, 'sdkHello')?.m;
    const ownHello = hello ? `, which reaches ${share(one.m.requestsPerSecond, hello.requestsPerSecond)} of its own hello-world` : '';
    clauses.push(`against the one-tool SDK server${ownHello}, kgate answers \`tools/list\` at ${ratiosAgainst(engines, one.m)}`);
  }
  if (full) {
    const kgateBytes = engines[0]!.toolsListBytes;
    const sizes =
      full.run.toolsListBytes !== undefined && kgateBytes !== undefined
        ? `, ${kb(full.run.toolsListBytes)} against kgate's ${kb(kgateBytes)}`
        : '';
    clauses.push(
      `against the SDK server with kgate's own tool set (the like-for-like alternative: the same list${sizes}) ` +
        `${one ? '' : 'kgate answers `tools/list` '}at ${ratiosAgainst(engines, full.m)}`,
    );
  }
  return (
    "**Against a server per request.** Measured against the SDK's stateless pattern, which builds an `McpServer` and a " +
    `transport for every request: ${clauses.join('; ')}. The issue's target is at least 10 times.`
  );
}

/**
 * The "**OAuth access tokens.**" paragraph: per database, the OAuth `tools/call` rate divided by the personal-token
 * `tools/call` rate (1.00: the same cost); undefined when no database has both rows.
 */
function oauthAgainstPersonal(runs: readonly McpRun[]): string | undefined {
  const parts: string[] = [];
  for (const run of runs) {
    const personal = find(run, 'toolsCall');
    const oauth = find(run, 'oauthToolsCall');
    if (isSdkRun(run) || !personal || !oauth) continue;
    parts.push(
      `${fixed(oauth.requestsPerSecond / personal.requestsPerSecond, 2)} on ${run.name} (${rate(oauth)} ÷ ${rate(personal)} requests/s; ` +
        `p99 ${ms(oauth.p99Ms)} ms against ${ms(personal.p99Ms)} ms; server CPU per request ${cpuPerRequest(oauth)} ms against ` +
        `${cpuPerRequest(personal)} ms)`,
    );
  }
  if (parts.length === 0) return undefined;
  return (
    '**OAuth access tokens.** The same `tools/call` authenticated with an OAuth access token instead of a personal access token ' +
    '(both resolved through the in-memory credential cache). OAuth `tools/call` rate ÷ personal-token `tools/call` rate: ' +
    `${parts.join(' and ')}. The two rows are measured one after the other on the same server, the personal token first.`
  );
}

/** Builds the report. */
export function mcpThroughputReport(result: McpThroughputResult): BenchmarkReport {
  const { connections, warmupSeconds, seconds } = result.options;
  const table = [
    '| Route | Database | Requests/s | p50 (ms) | p99 (ms) | Errors / non-2xx | Requests/s vs hello-world | Server CPU per request (ms) |',
    '|---|---|--:|--:|--:|--:|--:|--:|',
    ...tableRows(result.runs),
  ];
  const engines = result.runs.filter((r) => !isSdkRun(r));
  const details = [
    `- Server: the real \`kgate serve\` as a child process (PORT=0, 127.0.0.1, log level \`info\` to a file), on an installation made with ` +
      '`kgate admin bootstrap --json --password-stdin` (owner with a random password, personal access token, the demo vault from ' +
      '`examples/vault`). The owner\'s MCP allowances are raised to 10^9 per ' +
      'minute and per month with `kgate admin account --email owner@kgate.local --mcp-per-minute 1000000000 --mcp-per-month 1000000000` ' +
      'before the server starts; every MCP request still authenticates its bearer token (from the credential cache, which every change of ' +
      'access clears) and reserves one unit of the MCP allowance (from a block leased from the database counters; a block is at most 1/600 ' +
      'of the minute allowance, 1/100,000 of the month\'s and 1,000 units, so with 10^9 it is 1,000 units).',
    `- Requests: \`POST /api/mcp\` with \`Accept: application/json, text/event-stream\`, \`Content-Type: application/json\`, ` +
      `\`MCP-Protocol-Version: ${PROTOCOL_VERSION}\` and the bearer token; \`tools/list\` is \`{"jsonrpc":"2.0","id":1,"method":"tools/list"}\`, ` +
      `\`tools/call\` calls \`get_note_content\` for \`${READ_NOTE_PATH}\` of the demo vault. Every response body is checked: \`tools/list\` must list ` +
      '`get_note_content`, `tools/call` must have a result with the note in `structuredContent` and no `isError`; any error, non-2xx answer, ' +
      'wrong body or server log line at warn or above fails the benchmark.',
    '- Tokens: every row sends the owner\'s personal access token (`kgp_…`) except the OAuth `tools/call` row, which sends an OAuth access ' +
      'token (`kgat_…`, scopes `mcp:read mcp:write`, bound to the resource the server publishes) of the same owner, so both draw on the same ' +
      'allowance. The benchmark gets it from the running server before the load, with plain HTTP as an MCP client and its user would ' +
      '(`bench/mcp/oauth-access-token.ts`): the protected-resource metadata, dynamic client registration (a public client with a loopback ' +
      'redirect URI), sign-in with the owner\'s password, the consent page\'s "Allow" (PKCE S256), and the code exchanged at `/oauth/token`. ' +
      'A failed step fails the benchmark.',
    '- SDK servers per request: the MCP SDK\'s documented stateless pattern (`@modelcontextprotocol/sdk` ' +
      '`simpleStatelessStreamableHttp`) on plain `node:http`, in a child process of its own (`bench/mcp/sdk-per-request-server.ts`): for every ' +
      'POST a new `McpServer` with its tools registered and a new `StreamableHTTPServerTransport({ sessionIdGenerator: undefined, ' +
      'enableJsonResponse: true })`, connected, then `transport.handleRequest(req, res, body)`, both closed when the response is done. It runs ' +
      'twice. The first registers one tool, so it lists one tool where kgate lists all of its tools, which flatters it. The second ' +
      '(`--kgate-tools`) registers kgate\'s whole tool set from `src/surfaces/mcp/tools.ts` (names, descriptions, input and output schemas), so ' +
      'it lists the same tools as kgate: the alternative kgate would be if it were built on the SDK\'s stateless pattern. Both get the same ' +
      'headers (no token) and the same `tools/list` body; neither has authentication, a database, usage accounting or a request log. The ' +
      'second\'s hello-world is not measured: its "vs hello-world" cell is against the first\'s `GET /healthz`, which the same code answers ' +
      '(the flag changes only what a POST builds).',
    `- Load: autocannon in the benchmark process, ${connections} connections (keep-alive, no pipelining); per row a ${warmupSeconds} s warm-up, then ${seconds} s measured. ` +
      'Requests/s is the mean of per-second samples; p50 and p99 are of the measured run. Server CPU per request is the server process\'s CPU time ' +
      '(from /proc) during the measured run divided by its requests.',
    `- Engines: ${engines.map((e) => `${e.name} ${e.version}`).join('; ')}.`,
    '- The machine has 2 cores, shared by autocannon, the server and, for PostgreSQL, the database server: read the ratios, not the absolute rates.',
    ...result.skipped.map((s) => `- ${s.engine} skipped: ${s.reason}`),
    '',
  ];
  const oauth = oauthAgainstPersonal(result.runs);
  if (oauth) details.push(oauth, '');
  const against = againstServerPerRequest(result.runs);
  if (against) details.push(against);
  return { table, details, failures: result.failures };
}

/** The MCP throughput benchmark as `bench/run.ts` runs it: 50 connections, 3 s warm-up, 10 s per row (or `--duration`). */
export const mcpThroughput: Benchmark = {
  title: 'MCP throughput',
  async run(options: BenchmarkOptions): Promise<BenchmarkReport> {
    return mcpThroughputReport(await measureMcpThroughput(standardLoad(options.duration)));
  },
};
