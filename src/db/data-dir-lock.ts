import { mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';

/** The lock file kgate keeps inside an embedded data directory while it has the database open. */
export const LOCK_FILE_NAME = 'kgate.lock';

/** Who holds a data directory. */
export interface LockHolder {
  pid: number;
  hostname: string;
  startedAt: string;
  command?: string;
}

/** Thrown when another process holds the data directory; the message says who and what to do. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | undefined,
  ) {
    super(
      holder
        ? `The data directory ${dataDir} is in use by kgate process ${holder.pid} on ${holder.hostname} ` +
            `(${holder.command ?? 'kgate'}, since ${holder.startedAt}). Stop that process first, or set ` +
            'KGATE_DATA_DIR to another directory. The embedded database allows one process at a time.'
        : `The data directory ${dataDir} has a lock file (${LOCK_FILE_NAME}) that kgate cannot read. If no kgate ` +
            'process is running on it, delete that file and start again.',
    );
  }
}

/** A held lock; `release` is idempotent. */
export interface DataDirLock {
  readonly path: string;
  release(): Promise<void>;
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readHolder(lockPath: string): Promise<LockHolder | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(lockPath, 'utf8'));
    if (parsed && typeof parsed === 'object' && 'pid' in parsed && typeof parsed.pid === 'number') {
      return parsed as LockHolder;
    }
  } catch {
    // Unreadable or half-written: the caller reports it without guessing.
  }
  return undefined;
}

/**
 * Takes the exclusive lock on an embedded data directory, creating the directory if needed. The lock is a file
 * created with O_EXCL that records the holder; a lock left by a crashed process on this host (its pid is gone)
 * is taken over. Throws `DataDirLockedError` when a live process holds it, including this very process.
 */
export async function acquireDataDirLock(dataDir: string, command?: string): Promise<DataDirLock> {
  const dir = resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const lockPath = join(dir, LOCK_FILE_NAME);
  const mine: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    startedAt: new Date().toISOString(),
    ...(command ? { command } : {}),
  };
  const body = `${JSON.stringify(mine)}\n`;

  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(lockPath, body, { flag: 'wx', mode: 0o600 });
      return lockHandle(lockPath, body);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = await readHolder(lockPath);
    const stale = holder !== undefined && holder.hostname === mine.hostname && !isProcessAlive(holder.pid);
    if (!stale) throw new DataDirLockedError(dir, holder);
    await unlink(lockPath).catch(() => undefined);
  }
  throw new DataDirLockedError(dir, await readHolder(lockPath));
}

function lockHandle(lockPath: string, body: string): DataDirLock {
  let released = false;
  return {
    path: lockPath,
    async release() {
      if (released) return;
      released = true;
      // Remove the file only while it is still ours.
      const current = await readFile(lockPath, 'utf8').catch(() => undefined);
      if (current === body) await unlink(lockPath).catch(() => undefined);
    },
  };
}
