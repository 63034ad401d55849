import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DatabaseThread, PgliteError, type ThreadEvent } from './pglite-thread.ts';
import { CommitCallbacks, runAtOnce } from './commit-callbacks.ts';
import { packageFile } from '../kernel/package-files.ts';
import type { Database, Row, Sql } from './port.ts';

/** A database thread started early by `startStandbyDatabaseThread` (pglite-standby.js, plain JavaScript), waiting for its directory. */
export interface StandbyDatabaseThread {
  worker: Worker;
  /** Set once the thread has ended: it is not taken over then. */
  exited: boolean;
  /** Set when a database has taken it over: a thread opens one database only. */
  adopted: boolean;
}

/** Options of the embedded database. */
export interface PgliteOptions {
  /** Directory of the data files; omitted means in memory. */
  dataDir?: string;
  /** A data directory dump to start from (tests load a migrated template instead of running initdb). */
  loadDataDir?: Blob;
  /**
   * Called once when the database thread dies unexpectedly: every pending and later call has failed by then. The
   * default throws the error outside any promise, which stops the process loudly: a gateway must not go on serving
   * without its database.
   */
  onCrash?: (error: Error) => void;
  /**
   * A database thread started early by `startStandbyDatabaseThread` (pglite-standby.js), taken over instead of
   * starting one. A standby that has ended, or was taken already, is passed over.
   */
  standby?: StandbyDatabaseThread;
}

function crashLoudly(error: Error): void {
  // Outside any promise chain, so that no caller can swallow it: the process stops with the stack on stderr.
  setImmediate(() => {
    throw error;
  });
}

function sqlOn(thread: DatabaseThread, tx?: { id: number; committed: CommitCallbacks }): Sql {
  return {
    async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      return (await thread.call({ op: 'query', text, params, tx: tx?.id })) as R[];
    },
    async exec(script: string): Promise<void> {
      await thread.call({ op: 'exec', script, tx: tx?.id });
    },
    afterCommit: tx ? (callback) => tx.committed.add(callback) : runAtOnce,
  };
}

/** Starts the database thread, or takes over the standby one, and waits until PGlite is open there (or failed to open). */
function startThread(options: PgliteOptions, loadDataDir: ArrayBuffer | undefined, standby?: StandbyDatabaseThread): Promise<Worker> {
  const open = { ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}), ...(loadDataDir ? { loadDataDir } : {}) };
  const transferList = loadDataDir ? [loadDataDir] : [];
  let worker: Worker;
  if (standby && !standby.exited && !standby.adopted) {
    standby.adopted = true;
    worker = standby.worker;
    worker.ref();
    worker.postMessage({ op: 'open', ...open }, transferList);
  } else {
    worker = new Worker(packageFile('src', 'db', 'pglite-worker.js'), { workerData: open, transferList });
  }
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`the embedded database thread exited while opening (code ${code})`));
    worker.once('error', reject);
    worker.once('exit', onExit);
    worker.once('message', (message: ThreadEvent) => {
      worker.off('error', reject);
      worker.off('exit', onExit);
      if (message.kind === 'ready') return resolve(worker);
      void worker.terminate();
      reject(new PgliteError(message.kind === 'failed' ? message.error : { message: 'unexpected first message' }));
    });
  });
}

/**
 * Closes PGlite on a thread that no DatabaseThread drives yet, and ends the thread. A close that fails is thrown
 * rather than waited on: the thread would never end by itself then.
 */
async function closeThread(worker: Worker): Promise<void> {
  const reply = await new Promise<{ ok: boolean; error?: Record<string, unknown> }>((resolve) => {
    worker.once('message', resolve);
    worker.once('exit', () => resolve({ ok: false, error: { message: 'the embedded database thread exited while closing' } }));
    worker.postMessage({ id: 0, op: 'close' });
  });
  await worker.terminate();
  if (!reply.ok) throw new PgliteError(reply.error ?? { message: 'closing the embedded database failed' });
}

/**
 * Opens an embedded PGlite database on a thread of its own (docs/architecture.md, "The embedded database runs on
 * its own thread"): SQL never runs on the thread that serves requests. PGlite does not lock its directory: callers
 * that use a directory must hold a `DataDirLock` first (see `data-dir-lock.ts`), or two processes would corrupt
 * each other's data.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<Database & { dump(): Promise<Blob> }> {
  const createdBefore = options.dataDir !== undefined && existsSync(join(options.dataDir, 'PG_VERSION'));
  const loadDataDir = options.loadDataDir ? await options.loadDataDir.arrayBuffer() : undefined;
  let worker = await startThread(options, loadDataDir, options.standby);
  if (options.dataDir !== undefined && !createdBefore) {
    // The first open of a directory runs initdb, which leaves the thread holding about 500 MB of WebAssembly
    // memory that it never gives back. Closing that thread and opening the new database on a fresh one costs a few
    // hundred milliseconds once, and the gateway then runs in its usual memory (docs/operations.md, "Memory").
    await closeThread(worker);
    worker = await startThread(options, undefined);
  }
  const thread = new DatabaseThread(worker, options.onCrash ?? crashLoudly);
  let nextTransaction = 1;
  return {
    engine: 'pglite',
    ...sqlOn(thread),
    async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      // The work's statements follow BEGIN without waiting for it: the thread runs them once it is open, in order.
      const tx = { id: nextTransaction++, committed: new CommitCallbacks() };
      const begun = thread.call({ op: 'begin', tx: tx.id });
      // Observed below; if BEGIN fails, the work's statements fail with its error first.
      begun.catch(() => undefined);
      let result: T;
      try {
        result = await work(sqlOn(thread, tx));
        await begun;
      } catch (error) {
        await thread.call({ op: 'end', tx: tx.id, commit: false }).catch(() => undefined);
        throw error;
      }
      try {
        await thread.call({ op: 'end', tx: tx.id, commit: true });
      } catch (error) {
        // Whether a failed COMMIT committed is unknown to us here: forgetting is always safe.
        tx.committed.runQuietly();
        throw error;
      }
      tx.committed.run();
      return result;
    },
    // In-process notifications cannot be lost (the thread dying stops the process), so the state never changes.
    async listen(channel, onMessage) {
      const unsubscribe = thread.subscribe(channel, onMessage);
      await thread.call({ op: 'listen', channel });
      return async () => {
        if (unsubscribe()) await thread.call({ op: 'unlisten', channel }).catch(() => undefined);
      };
    },
    close: () => thread.close(),
    async dump() {
      return new Blob([(await thread.call({ op: 'dump' })) as ArrayBuffer]);
    },
  };
}
