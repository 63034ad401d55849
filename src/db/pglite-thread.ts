import type { Worker } from 'node:worker_threads';

/** An error reported by the database thread, with the fields PostgreSQL gave it (code, detail, constraint...). */
export class PgliteError extends Error {
  /** SQLSTATE, e.g. 23505 for a unique violation; undefined for errors that did not come from PostgreSQL. */
  readonly code?: string;
  readonly detail?: string;
  readonly constraint?: string;

  constructor(fields: Record<string, unknown>) {
    super(typeof fields.message === 'string' ? fields.message : 'database error');
    Object.assign(this, fields);
    this.name = typeof fields.name === 'string' ? fields.name : 'PgliteError';
  }
}

/** A reply of the database thread to one call. */
type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: Record<string, unknown> };
/** A message of the database thread that answers no call. */
export type ThreadEvent =
  | { kind: 'ready' }
  | { kind: 'failed'; error: Record<string, unknown> }
  | { kind: 'notify'; channel: string; payload: string };

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The request thread's end of the database thread (`pglite-worker.js`): numbered calls, one reply each. A thread that
 * dies fails every waiting and later call and reports it once to `onCrash`.
 */
export class DatabaseThread {
  private readonly pending = new Map<number, Pending>();
  private readonly channels = new Map<string, Set<(payload: string) => void>>();
  private nextId = 1;
  private dead: Error | undefined;
  private closing = false;

  constructor(
    private readonly worker: Worker,
    private readonly onCrash: (error: Error) => void,
  ) {
    // The thread keeps the process alive only while a call is waiting for it, as an in-process database would.
    worker.unref();
    worker.on('message', (message: Reply | ThreadEvent) => this.receive(message));
    worker.on('error', (error) => this.die(error));
    worker.on('exit', (code) => {
      if (!this.closing) this.die(new Error(`the embedded database thread exited unexpectedly (code ${code})`));
    });
  }

  /** Sends one call and waits for its reply. */
  call(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.dead) return Promise.reject(this.dead);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  /** Adds a listener of NOTIFY on `channel`; the returned function removes it and says whether it was the last. */
  subscribe(channel: string, onMessage: (payload: string) => void): () => boolean {
    const set = this.channels.get(channel) ?? new Set();
    this.channels.set(channel, set);
    set.add(onMessage);
    return () => {
      set.delete(onMessage);
      return set.size === 0;
    };
  }

  /** Closes PGlite cleanly on its thread, then ends the thread; later calls fail. */
  async close(): Promise<void> {
    if (this.dead) return;
    this.closing = true;
    try {
      await this.call({ op: 'close' });
    } finally {
      // Even when PGlite's own close failed, the thread ends and later calls fail rather than wait forever.
      await this.worker.terminate();
      this.dead = new Error('the database is closed');
    }
  }

  private receive(message: Reply | ThreadEvent): void {
    if ('kind' in message) {
      if (message.kind === 'notify') this.channels.get(message.channel)?.forEach((listener) => listener(message.payload));
      return;
    }
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if (this.pending.size === 0) this.worker.unref();
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(new PgliteError(message.error));
  }

  private die(cause: Error): void {
    if (this.dead) return;
    const error = new Error(`the embedded database stopped: ${cause.message}`, { cause });
    this.dead = error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
    this.onCrash(error);
  }
}
