/**
 * One side of the before-and-after benchmark on one database: an installation made and served entirely by that
 * side's own source tree. Its `kgate admin bootstrap --json`, its `kgate admin account` (allowances raised), its
 * `kgate serve` as a child process on a free port, then the seed notes written and, after the load, the applied
 * writes counted, all through that server's own API: this process never opens a side's database, because the old
 * tree may have other migrations than the code this process runs.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DEFAULT_OWNER_EMAIL } from '../../src/domains/onboarding/index.ts';
import { seed } from '../http-throughput.ts';
import { bootstrapInstallation, loudLogEntries, runKgate, startServer, type EngineName, type ServerProcess } from '../http/installation.ts';
import type { Measurement } from '../http/load.ts';
import { APPLY_FOLDER_PREFIX, type Target } from '../http/scenarios.ts';
import { cleanupOnInterrupt } from '../support/interrupt.ts';
import type { Side } from './compare.ts';
import { beforeAfterScenarios, notesPerRequest, type Key, type SideScenarios } from './scenarios.ts';

/** The REST and MCP allowances (per minute and per month) of the owner: far above what a run can use. */
const ALLOWANCE = String(1_000_000_000);

/** A running side. */
export interface RunningSide extends SideScenarios {
  side: Side;
  /** The server process now serving this side (a restart replaces it). */
  server: ServerProcess;
  /** Every log file of this side's server processes, one per start. */
  logFiles: string[];
  /** Stops the server (also run on Ctrl-C); safe to call more than once. */
  stop(): Promise<void>;
  /** Stops the server and starts a new process of the same tree on the same database. */
  restart(): Promise<void>;
  target: Target;
  /** Notes in the vault before the first applied write. */
  notesBefore: number;
}

/** Sets up and starts `tree`'s gateway on the database of `env`; `root` holds its server log. */
export async function startSide(engine: EngineName, side: Side, tree: string, env: Record<string, string>, root: string): Promise<RunningSide> {
  const boot = await bootstrapInstallation(env, { tree });
  const allowances = ['--rest-per-minute', '--rest-per-month', '--mcp-per-minute', '--mcp-per-month'].flatMap((flag) => [flag, ALLOWANCE]);
  await runKgate(['admin', 'account', '--email', DEFAULT_OWNER_EMAIL, ...allowances], env, undefined, tree);
  const logFiles = [join(root, `${engine}-${side}-serve-1.log`)];
  let server = await startServer(env, logFiles[0]!, tree);
  const stop = cleanupOnInterrupt(() => server.stop());
  try {
    const { token, mappingId } = boot;
    const seeds = await seed(server.url, token, mappingId);
    const target: Target = { token, mappingId, readers: [{ token, mappingId }], seeds, runId: randomBytes(4).toString('hex') };
    const notesBefore = boot.seeded + seeds.length;
    const running: RunningSide = {
      side,
      server,
      logFiles,
      stop,
      async restart() {
        await server.stop();
        const logFile = join(root, `${engine}-${side}-serve-${logFiles.length + 1}.log`);
        logFiles.push(logFile);
        server = await startServer(env, logFile, tree);
        running.server = server;
      },
      ...beforeAfterScenarios(target, notesBefore),
      target,
      notesBefore,
    };
    return running;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The notes of a vault, counted through the server's `GET /api/dev/notes`, page by page. */
async function countNotes(running: RunningSide): Promise<number> {
  const { server, target } = running;
  let notes = 0;
  let cursor: string | null = null;
  do {
    const query = `mappingId=${target.mappingId}&limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const response = await fetch(`${server.url}/api/dev/notes?${query}`, { headers: { authorization: `Bearer ${target.token}` } });
    const body = (await response.json()) as { notes?: unknown[]; nextCursor?: string | null };
    if (response.status !== 200 || !Array.isArray(body.notes)) throw new Error(`listing notes answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    notes += body.notes.length;
    cursor = body.nextCursor ?? null;
  } while (cursor !== null);
  return notes;
}

/**
 * What went wrong on a side once its load is over: server log lines at warn or above, and applied writes that did
 * not all happen. Autocannon counts only the answers it received before its deadline, so the notes written lie
 * between the notes of the 2xx answers of the apply runs (warm-ups included) and those of the requests built. `runs`
 * are the side's runs; those that write nothing count for nothing.
 */
export async function checkSide(engine: EngineName, running: RunningSide, runs: ReadonlyArray<Measurement<Key>>): Promise<string[]> {
  const failures: string[] = [];
  const name = `${engine} ${running.side}`;
  const written = (await countNotes(running)) - running.notesBefore;
  const low = runs.reduce((sum, m) => sum + (m.warmupOk + m.ok) * notesPerRequest(m.key), 0);
  const high = running.applied();
  if (written < low || written > high) {
    failures.push(`${name}: ${written} notes written under ${APPLY_FOLDER_PREFIX}${running.target.runId}-*, expected ${low} to ${high}`);
  }
  const loud = await loudLogEntries(running.logFiles);
  if (loud.length > 0) failures.push(`${name}: ${loud.length} server log lines at warn or above, e.g. ${JSON.stringify(loud[0])}`);
  return failures;
}
