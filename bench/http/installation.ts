/**
 * A kgate installation for the HTTP benchmark, set up the way an operator does it: `kgate admin bootstrap --json`
 * (owner, workspace, the demo vault from examples/vault, a token) on a fresh PGlite data directory or a fresh
 * PostgreSQL database, then the real `kgate serve` as a child process on a free port.
 *
 * One step is not an operator's: the accounts' REST allowances are raised through the accounts service
 * (`setAllowanceOverrides`), because `kgate admin account` has no flag for allowance overrides yet. That opens the
 * database from this process, so it runs before the server starts (PGlite allows one process per data directory).
 * The same step makes the extra accounts of the many-accounts read, with the bootstrap code the CLI runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { open, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { bootstrap } from '../../src/cli/bootstrap-command.ts';
import { createServices } from '../../src/app/services.ts';
import { openDatabase, type OpenedDatabase } from '../../src/app/database.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The `kgate` command of a source tree: this repository's by default, or another checkout's (an older commit). */
function kgateOf(tree: string): string {
  return join(tree, 'bin', 'kgate.js');
}

/** The two databases kgate runs on. */
export type EngineName = 'PGlite' | 'PostgreSQL';

/** What `kgate admin bootstrap --json` printed that the benchmark needs. */
export interface Bootstrapped {
  accountId: string;
  mappingId: string;
  token: string;
  /** Notes seeded from examples/vault. */
  seeded: number;
}

/** Only what Node needs plus `env`: this process's DATABASE_URL, PORT and KGATE_* never leak into a child. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...env };
}

/**
 * Runs `kgate <args>` of `tree` (default: this repository) to completion, with `input` (if any) on its stdin;
 * rejects with its stderr when it fails.
 */
export async function runKgate(args: string[], env: Record<string, string>, input?: string, tree = REPO_ROOT): Promise<string> {
  const child = spawn(process.execPath, [kgateOf(tree), ...args], { cwd: tree, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
  // Without input, stdin ends at once: as with no terminal, nothing waits for typing. A child that exits before
  // reading it breaks the pipe: its exit code and stderr say why, not the EPIPE.
  child.stdin.on('error', () => undefined).end(input ?? '');
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`kgate ${args.join(' ')} exited with ${code}: ${stderr.trim()}`);
  return stdout;
}

/**
 * `kgate admin bootstrap --json` on the installation of `env`; with `password`, the owner gets it (through
 * `--password-stdin`, as an operator would) and can sign in to the web pages, e.g. to approve an OAuth client.
 * `tree` is the source tree whose `kgate` runs (default: this repository).
 */
export async function bootstrapInstallation(
  env: Record<string, string>,
  options: { password?: string; tree?: string } = {},
): Promise<Bootstrapped> {
  const args = ['admin', 'bootstrap', '--json', ...(options.password === undefined ? [] : ['--password-stdin'])];
  const output = JSON.parse((await runKgate(args, env, options.password, options.tree)).trim()) as {
    accountId: string;
    mappingId: string;
    token: string;
    seeded: { created: number } | null;
  };
  return { accountId: output.accountId, mappingId: output.mappingId, token: output.token, seeded: output.seeded?.created ?? 0 };
}

/** Opens the installation's database from this process (PGlite: only while no server runs on it). */
export function openInstallation(env: Record<string, string>): Promise<OpenedDatabase> {
  return openDatabase(loadConfig(env), 'kgate-bench');
}

/** An account that reads: its token and the mapping of its own demo vault. */
export interface Reader {
  accountId: string;
  token: string;
  mappingId: string;
}

/**
 * Raises the REST and MCP allowances of the bootstrapped account far above what a benchmark can use, so that no request
 * is refused with `rate_limited`, and makes `extra` more accounts the way `kgate admin bootstrap --email` does
 * (each with its own workspace, demo vault and token), with the same allowances. Reservation still runs on every
 * request (the counters are updated); only the limits change. Opens the database from this process, so it runs
 * before the server starts.
 */
export async function prepareAccounts(env: Record<string, string>, owner: Bootstrapped, extra: number, limit: number): Promise<Reader[]> {
  const opened = await openInstallation(env);
  try {
    const services = createServices(opened.db);
    const overrides = { restOperationsPerMinute: limit, restOperationsPerMonth: limit, mcpOperationsPerMinute: limit, mcpOperationsPerMonth: limit };
    await services.accounts.setAllowanceOverrides(owner.accountId, overrides);
    const readers: Reader[] = [{ accountId: owner.accountId, token: owner.token, mappingId: owner.mappingId }];
    for (let k = 1; k <= extra; k++) {
      const made = await bootstrap('http://localhost:8787', services, { email: `bench-reader-${k}@kgate.local` });
      await services.accounts.setAllowanceOverrides(made.accountId, overrides);
      readers.push({ accountId: made.accountId, token: made.token, mappingId: made.mappingId });
    }
    return readers;
  } finally {
    await opened.close();
  }
}

/** A running `kgate serve` child. */
export interface ServerProcess {
  url: string;
  pid: number;
  /** The server's log (stdout and stderr), one JSON line per request at level info. */
  logFile: string;
  /**
   * Resolves once the server has finished what it was doing: its log (one line per finished request) has not grown
   * for half a second. A load generator that stops cuts its connections with requests still running in the server.
   */
  settle(): Promise<void>;
  /** SIGTERM, then waits for the graceful stop (in-flight requests, database close). */
  stop(): Promise<void>;
}

/**
 * Hands `visit` each parsed JSON line of a server log file (pino), read as a stream: a loaded run's log holds
 * millions of lines, more than one string can (Node's limit is 512 MB). Other lines are skipped.
 */
export async function forEachLogEntry(logFile: string, visit: (entry: Record<string, unknown>) => void): Promise<void> {
  const lines = createInterface({ input: createReadStream(logFile, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line.startsWith('{')) continue;
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      // A partial last line: ignored.
      continue;
    }
    visit(entry);
  }
}

/** Whether a log entry is at warn or above (pino's level 40): a benchmark whose server wrote one fails. */
export function isLoud(entry: Record<string, unknown>): boolean {
  return typeof entry.level === 'number' && entry.level >= 40;
}

/** The lines at warn or above of server log files, read as streams. */
export async function loudLogEntries(logFiles: readonly string[]): Promise<Array<Record<string, unknown>>> {
  const loud: Array<Record<string, unknown>> = [];
  for (const file of logFiles) {
    await forEachLogEntry(file, (e) => {
      if (isLoud(e)) loud.push(e);
    });
  }
  return loud;
}

/** Parsed JSON log lines of a server log file (pino), for logs of a modest size; other lines are skipped. */
async function readLogEntries(logFile: string): Promise<Array<Record<string, unknown>>> {
  const entries: Array<Record<string, unknown>> = [];
  await forEachLogEntry(logFile, (entry) => entries.push(entry));
  return entries;
}

/**
 * Starts `kgate serve` of `tree` (default: this repository) on a free port with its output going to `logFile` (not
 * to a terminal or a pipe this process must drain), and resolves once its "kgate listening" line names the URL.
 */
export async function startServer(env: Record<string, string>, logFile: string, tree = REPO_ROOT): Promise<ServerProcess> {
  const log = await open(logFile, 'w');
  let child: ChildProcess;
  try {
    child = spawn(process.execPath, [kgateOf(tree), 'serve'], {
      cwd: tree,
      env: childEnv({ ...env, PORT: '0', KGATE_HOST: '127.0.0.1', KGATE_LOG_LEVEL: 'info' }),
      stdio: ['ignore', log.fd, log.fd],
    });
  } finally {
    await log.close();
  }
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 60_000;
  for (;;) {
    const listening = (await readLogEntries(logFile)).find((e) => e.msg === 'kgate listening');
    if (listening && typeof listening.url === 'string') {
      const url = listening.url;
      return {
        url,
        pid: child.pid!,
        logFile,
        async settle() {
          let size = -1;
          let stableSince = Date.now();
          const deadline = Date.now() + 60_000;
          while (Date.now() < deadline) {
            const now = (await stat(logFile)).size;
            if (now !== size) {
              size = now;
              stableSince = Date.now();
            } else if (Date.now() - stableSince >= 500) {
              return;
            }
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          throw new Error('kgate serve did not settle within 60 s after the load stopped');
        },
        async stop() {
          if (exited) return;
          const exit = once(child, 'exit');
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
          await exit;
          clearTimeout(timer);
        },
      };
    }
    if (exited || Date.now() > deadline) {
      if (!exited) child.kill('SIGKILL');
      throw new Error(`kgate serve did not start:\n${(await readFile(logFile, 'utf8')).slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
