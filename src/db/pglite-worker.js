// @ts-check
/**
 * The embedded database's thread. PGlite runs every statement on the thread that calls it, so the gateway keeps it
 * here, in a worker, and the request thread only sends statements and receives rows (`pglite.ts` is the other end).
 *
 * Plain JavaScript on purpose: a worker thread does not inherit the TypeScript loader of its parent (tsx, vitest),
 * and this file must load the same way under every one of them and from compiled output.
 *
 * Messages in: `{ id, op, ... }`, one reply `{ id, ok, value | error }` each. `begin` opens the transaction whose
 * number the other thread chose (`tx`) and replies once it is open; statements that name that number run inside it,
 * in the order they came, even those sent before it was open (so a transaction needs no round trip to start); every
 * other statement waits (PGlite runs one transaction at a time, exactly as in-process); `end` commits or rolls it
 * back. Messages out without an id: `{ kind: 'notify', channel, payload }` for LISTEN.
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, types } from '@electric-sql/pglite';

if (!parentPort) throw new Error('pglite-worker.js runs only as a worker thread');
const port = parentPort;

/** @typedef {{ query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>, exec(script: string): Promise<unknown> }} Queryable */
/**
 * A transaction asked for: `sql` settles once PGlite has opened it (or failed to), `finish` is set then.
 * @typedef {{ sql: Promise<Queryable>, finish?: (commit: boolean) => void, endId?: number }} OpenTransaction
 */

/** Marks a rollback that the caller asked for, so that it is not reported as a failure of the transaction. */
const ROLLBACK = Symbol('rollback');

/** @type {Map<number, OpenTransaction>} */
const transactions = new Map();
/** @type {Map<string, () => Promise<void>>} */
const listening = new Map();

/**
 * A database error as plain data: the fields PostgreSQL reports (code, detail, constraint...), so that the other
 * thread can rebuild an error that callers inspect exactly as they would in-process.
 * @param {unknown} error
 */
function serializeError(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  /** @type {Record<string, unknown>} */
  const fields = { name: error.name, message: error.message, stack: error.stack };
  for (const key of ['code', 'detail', 'hint', 'constraint', 'table', 'column', 'schema', 'severity', 'position', 'where']) {
    const value = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (error))[key];
    if (value !== undefined && value !== null) fields[key] = value;
  }
  return fields;
}

/** @param {number} id @param {unknown} value @param {Transferable[]} [transfer] */
function reply(id, value, transfer) {
  port.postMessage({ id, ok: true, value }, transfer ?? []);
}

/** @param {number} id @param {unknown} error */
function fail(id, error) {
  port.postMessage({ id, ok: false, error: serializeError(error) });
}

/**
 * Where a statement runs: PGlite itself, or the open transaction it names (waiting for it to open). Statements of one
 * transaction wait for the same promise, so they resume, and reach PGlite's queue, in the order they came.
 * @param {PGlite} pg @param {number | undefined} tx @returns {Promise<Queryable>}
 */
async function target(pg, tx) {
  if (tx === undefined) return pg;
  const open = transactions.get(tx);
  if (!open) throw new Error(`transaction ${tx} is not open`);
  return open.sql;
}

/** Opens transaction `tx`, which stays open until an `end` message settles it. @param {PGlite} pg @param {number} tx @param {number} id */
function begin(pg, tx, id) {
  if (transactions.has(tx)) return fail(id, new Error(`transaction ${tx} is open already`));
  /** @type {(sql: Queryable) => void} */
  let opened = () => undefined;
  /** @type {(error: unknown) => void} */
  let failed = () => undefined;
  /** @type {OpenTransaction} */
  const open = {
    sql: new Promise((resolve, reject) => {
      opened = resolve;
      failed = reject;
    }),
  };
  // Nobody may be waiting for it (a transaction whose statements all went before BEGIN failed).
  open.sql.catch(() => undefined);
  transactions.set(tx, open);
  let began = false;
  pg.transaction(async (sql) => {
    const settled = new Promise((resolve, reject) => {
      open.finish = (commit) => (commit ? resolve(undefined) : reject(ROLLBACK));
    });
    began = true;
    opened(sql);
    reply(id, tx);
    await settled;
  }).then(
    () => {
      transactions.delete(tx);
      if (open.endId !== undefined) reply(open.endId, null);
    },
    (error) => {
      transactions.delete(tx);
      if (!began) {
        // BEGIN itself failed: the begin message is still unanswered, and statements waiting to run in it fail.
        failed(error);
        fail(id, error);
      } else if (open.endId === undefined) fail(id, error);
      else if (error === ROLLBACK) reply(open.endId, null);
      else fail(open.endId, error);
    },
  );
}

/** @param {PGlite} pg @param {any} message (why any: messages come from our own pglite.ts, checked there) */
async function handle(pg, message) {
  const { id, op } = message;
  try {
    switch (op) {
      case 'query': {
        const result = await (await target(pg, message.tx)).query(message.text, message.params);
        return reply(id, result.rows);
      }
      case 'exec':
        await (await target(pg, message.tx)).exec(message.script);
        return reply(id, null);
      case 'begin':
        return begin(pg, message.tx, id);
      case 'end': {
        const open = transactions.get(message.tx);
        if (!open) throw new Error(`transaction ${message.tx} is not open`);
        // After the statements sent before it: they waited for the same opening, and reached PGlite's queue first.
        await open.sql;
        open.endId = id;
        return open.finish?.(message.commit);
      }
      case 'listen': {
        if (!listening.has(message.channel)) {
          const channel = message.channel;
          listening.set(channel, await pg.listen(channel, (payload) => port.postMessage({ kind: 'notify', channel, payload })));
        }
        return reply(id, null);
      }
      case 'unlisten': {
        const stop = listening.get(message.channel);
        listening.delete(message.channel);
        if (stop && !pg.closed) await stop();
        return reply(id, null);
      }
      case 'dump': {
        const buffer = await (await pg.dumpDataDir('none')).arrayBuffer();
        return reply(id, buffer, [buffer]);
      }
      case 'close':
        await pg.close();
        reply(id, null);
        port.close();
        return;
      default:
        throw new Error(`unknown operation ${String(op)}`);
    }
  } catch (error) {
    fail(id, error);
  }
}

/** PGlite's default start parameters, which `startParams` replaces; a PGlite without them fails loudly here. */
const DEFAULT_START_PARAMS = /** @type {{ defaultStartParams?: unknown }} */ (/** @type {unknown} */ (PGlite)).defaultStartParams;
if (!Array.isArray(DEFAULT_START_PARAMS)) throw new Error('PGlite.defaultStartParams is missing: check pglite-worker.js against this PGlite version');
/** The buffer pool of the embedded database. */
const SHARED_BUFFERS = process.env.KGATE_PGLITE_SHARED_BUFFERS || '16MB';

/** @typedef {{ dataDir?: string, loadDataDir?: ArrayBuffer }} OpenOptions */

/**
 * What opening PGlite needs besides a directory, made ahead by a thread started early (`standby`): its WebAssembly
 * compiled and its file-system bundle read, about a quarter of opening, done while the process loads the rest of
 * its code. Optional: where PGlite keeps these files elsewhere, it finds them itself as usual.
 * @returns {Promise<{ pgliteWasmModule?: WebAssembly.Module, fsBundle?: Blob }>}
 */
async function prepare() {
  try {
    const entry = import.meta.resolve('@electric-sql/pglite');
    const [wasm, bundle] = await Promise.all([
      readFile(new URL('./pglite.wasm', entry)),
      readFile(new URL('./pglite.data', entry)),
    ]);
    return { pgliteWasmModule: await WebAssembly.compile(wasm), fsBundle: new Blob([bundle]) };
  } catch {
    return {};
  }
}

/** Opens PGlite, then serves the other thread's messages. @param {OpenOptions} options @param {object} [prepared] */
async function open(options, prepared = {}) {
  try {
    const pg = await PGlite.create({
      ...prepared,
      ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
      ...(options.loadDataDir !== undefined ? { loadDataDir: new Blob([options.loadDataDir]) } : {}),
      // Normalize value types to what the PostgreSQL adapter returns (see port.ts).
      parsers: { [types.INT8]: (/** @type {string} */ value) => Number(value) },
      // PGlite's own start parameters (they replace its defaults, so those are repeated) and a smaller buffer pool:
      // PostgreSQL touches all of shared_buffers when it starts, so the default 128 MB is 128 MB of resident memory
      // in every gateway, while the pages it would cache are already in the operating system's cache, a read away
      // (PGlite reads its files with plain read calls). docs/operations.md, "Memory".
      startParams: [...DEFAULT_START_PARAMS, '-c', `shared_buffers=${SHARED_BUFFERS}`],
    });
    port.on('message', (message) => void handle(pg, message));
    port.postMessage({ kind: 'ready' });
  } catch (error) {
    port.postMessage({ kind: 'failed', error: serializeError(error) });
  }
}

/** @type {OpenOptions & { standby?: boolean }} */
const options = workerData ?? {};
if (options.standby) {
  // Started before the process knows its data directory (pglite-standby.js): get ready, then wait to be told.
  const prepared = prepare();
  port.once('message', (/** @type {OpenOptions & { op?: string }} */ message) => {
    if (message.op === 'open') void prepared.then((ready) => open(message, ready));
    else port.postMessage({ kind: 'failed', error: { name: 'Error', message: 'a standby database thread takes "open" first' } });
  });
} else {
  await open(options);
}
