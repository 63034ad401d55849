/**
 * Runs the real `kgate` command as a child process (`node bin/kgate.js ...`) and gives tests an installation to
 * run it against: a fresh PGlite data directory, or a fresh migrated PostgreSQL database on the postgres project.
 * Every child, installation, database held open and temp folder made here is cleaned up by `cleanupCli()` (call it
 * in afterAll).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/port.ts';
import { openDatabase, type OpenedDatabase } from '../../src/app/database.ts';
import { openTestDatabase, TEST_ENGINE } from './database.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const KGATE = join(REPO_ROOT, 'bin', 'kgate.js');

/** How a finished child ended and what it wrote. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
const installations = new Set<Installation>();

/** Only what Node needs: the parent's DATABASE_URL, PORT and KGATE_* never leak into a child. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...env };
}

/**
 * Embedded databases the test process holds open between checks, by data directory. Opening one costs a database
 * thread and a compile of PostgreSQL's WebAssembly (about 1.3 s of CPU), so consecutive checks with no child between
 * them share one opening; a child on the directory would find it locked, so it is closed before one starts.
 */
const held = new Map<string, { opened: Promise<OpenedDatabase>; idle: Promise<unknown> }>();

/** Closes the database the tests hold open on `dataDir`, if any, once the checks running on it have finished. */
async function releaseDataDir(dataDir: string): Promise<void> {
  const key = resolve(dataDir);
  const entry = held.get(key);
  if (!entry) return;
  held.delete(key);
  await entry.idle;
  const opened = await entry.opened.catch(() => undefined);
  await opened?.close();
}

/** Runs `work` on the held database of `dataDir`, opening it first when it is not held. */
function withHeldDatabase<T>(dataDir: string, work: (db: Database) => Promise<T>): Promise<T> {
  const key = resolve(dataDir);
  let entry = held.get(key);
  if (!entry) {
    const opened = openDatabase(loadConfig({ KGATE_DATA_DIR: dataDir }), 'kgate test');
    const created = { opened, idle: Promise.resolve() as Promise<unknown> };
    held.set(key, created);
    // An opening that failed (a gateway holds the directory) is not kept: the next check tries again.
    void opened.catch(() => held.get(key) === created && held.delete(key));
    entry = created;
  }
  const run = entry.opened.then((opened) => work(opened.db));
  entry.idle = Promise.all([entry.idle, run.catch(() => undefined)]);
  return run;
}

function spawnKgate(args: string[], env: Record<string, string>, input?: string): ChildProcess {
  const child = spawn(process.execPath, [KGATE, ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (input !== undefined) child.stdin!.end(input);
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/**
 * Runs `kgate <args>` to completion with exactly `env` (plus PATH/HOME); killed after `timeoutMs`. A database the
 * tests hold open on env's KGATE_DATA_DIR is closed first.
 */
export async function runKgate(
  args: string[],
  env: Record<string, string>,
  options: { timeoutMs?: number; input?: string } = {},
): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 90_000;
  if (env.KGATE_DATA_DIR !== undefined) await releaseDataDir(env.KGATE_DATA_DIR);
  return new Promise((resolve, reject) => {
    const child = spawnKgate(args, env, options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Parses stdout that must be exactly one JSON value on one line. */
export function singleJson<T = Record<string, unknown>>(result: CliResult): T {
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  if (result.code !== 0 || lines.length !== 1) {
    throw new Error(`expected one JSON line and exit 0, got exit ${result.code}:\n${result.stdout}\n${result.stderr}`);
  }
  return JSON.parse(lines[0]!) as T;
}

/** Polls until `check` returns a value other than undefined/false. */
export async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The JSON log lines (pino) among the complete lines of `stdout`; other lines (the banner) are skipped. */
export function logEntries(stdout: string): Record<string, unknown>[] {
  const complete = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
  const entries: Record<string, unknown>[] = [];
  for (const line of complete.split('\n')) {
    if (!line.startsWith('{"level":')) continue;
    entries.push(JSON.parse(line) as Record<string, unknown>);
  }
  return entries;
}

/** A running `kgate serve` child. */
export interface ServeProcess {
  pid: number;
  /** The address it listens on, from its "kgate listening" log line. */
  url: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with stdout once it satisfies `test`. */
  waitForStdout(what: string, test: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Sends `signal` (SIGTERM by default) and resolves when the process has exited. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `kgate serve` on a free port (PORT=0) and resolves once it logs "kgate listening". A database the tests
 * hold open on env's KGATE_DATA_DIR is closed first.
 */
export async function startServe(env: Record<string, string>, timeoutMs = 60_000): Promise<ServeProcess> {
  if (env.KGATE_DATA_DIR !== undefined) await releaseDataDir(env.KGATE_DATA_DIR);
  const child = spawnKgate(['serve'], { PORT: '0', ...env });
  let stdout = '';
  let stderr = '';
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve((exit = { code, signal }))),
  );
  const listeningUrl = () => {
    const listening = logEntries(stdout).find((entry) => entry.msg === 'kgate listening');
    if (listening) return String(listening.url);
    if (exit) throw new Error(`kgate serve exited (${exit.code ?? exit.signal}) before listening:\n${stderr}`);
    return undefined;
  };
  const url = await until('kgate serve to listen', listeningUrl, timeoutMs);
  return {
    pid: child.pid!,
    url,
    stdout: () => stdout,
    stderr: () => stderr,
    waitForStdout: (what, test, ms) => until(what, () => test(stdout) && stdout, ms),
    async stop(signal = 'SIGTERM') {
      if (!exit) child.kill(signal);
      return exited;
    },
  };
}

/** A new empty folder under the OS temp folder, removed by `cleanupCli`. */
export async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `kgate-cli-${label}-`));
  tempDirs.add(dir);
  return dir;
}

/** Where the CLI keeps its data: one PGlite data directory or one PostgreSQL database. */
export interface Installation {
  /** What a child needs to use this installation: KGATE_DATA_DIR (pglite) or DATABASE_URL (postgres). */
  env: Record<string, string>;
  /**
   * Runs `work` on the installation's database. On PGlite this opens the data directory (no child may be running
   * on it) and keeps it open for the next check, until a child is started on it (runKgate, startServe) or
   * `cleanupCli` runs; on PostgreSQL it uses an open pool.
   */
  withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The PGlite installation in `dataDir` (which may still be empty). */
export function installationAt(dataDir: string): Installation {
  return {
    env: { KGATE_DATA_DIR: dataDir },
    withDatabase: (work) => withHeldDatabase(dataDir, work),
    close: () => releaseDataDir(dataDir),
  };
}

/** A fresh installation on this project's engine: an empty data directory (initialized by the first child). */
export async function newInstallation(): Promise<Installation> {
  if (TEST_ENGINE === 'pglite') return installationAt(await tempDir('data'));
  const { db, url } = await openTestDatabase();
  const installation: Installation = { env: { DATABASE_URL: url! }, withDatabase: (work) => work(db), close: () => db.close() };
  installations.add(installation);
  return installation;
}

/** Row counts of the tables a CLI command may write, for "nothing changed" assertions. */
export async function tableCounts(db: Database): Promise<Record<string, number>> {
  const tables = ['accounts', 'workspaces', 'vaults', 'mappings', 'notes', 'provenance_events', 'personal_access_tokens'];
  const counts: Record<string, number> = {};
  for (const table of tables) {
    const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`);
    counts[table] = row!.n;
  }
  return counts;
}

/** Every file under `root` as a sorted list of relative paths with forward slashes. */
export async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .sort();
}

/** Kills every child still running, closes installations and held databases, and removes temp folders. */
export async function cleanupCli(): Promise<void> {
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('close', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  );
  for (const installation of installations) await installation.close();
  installations.clear();
  for (const dataDir of [...held.keys()]) await releaseDataDir(dataDir);
  for (const dir of tempDirs) await rm(dir, { recursive: true, force: true });
  tempDirs.clear();
}
