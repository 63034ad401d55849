// @ts-check
/**
 * The embedded database's thread, started as early as the process can: `bin/kgate.js` starts it before it loads
 * the rest of kgate, so that compiling PostgreSQL's WebAssembly runs on another core meanwhile, and `openPglite`
 * takes it over once the data directory is locked (docs/architecture.md, "Starting in under a second").
 *
 * Plain JavaScript for the same reason as pglite-worker.js: bin/kgate.js loads it before any compiled code.
 */
import { Worker } from 'node:worker_threads';

/**
 * A database thread waiting for its data directory. `exited` is set once the thread has ended: such a thread is
 * not taken over, and the database opens on a new one.
 * @typedef {{ worker: Worker, exited: boolean, adopted: boolean }} StandbyDatabaseThread
 */

/**
 * Starts a database thread that prepares PGlite and waits. It does not keep the process alive (a command that
 * never opens the embedded database exits as usual), and a failure is left for the taker to see: an error on a
 * thread nobody has taken would otherwise stop the process.
 * @returns {StandbyDatabaseThread}
 */
export function startStandbyDatabaseThread() {
  const worker = new Worker(new URL('./pglite-worker.js', import.meta.url), { workerData: { standby: true } });
  worker.unref();
  /** @type {StandbyDatabaseThread} */
  const standby = { worker, exited: false, adopted: false };
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    standby.exited = true;
  });
  return standby;
}
