import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLockedError, LOCK_FILE_NAME, acquireDataDirLock } from './data-dir-lock.ts';

describe('data directory lock', () => {
  const dirs: string[] = [];
  const newDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kgate-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(async () => {
    await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('is exclusive: a second acquisition fails with the holder named', async () => {
    const dir = await newDir();
    const lock = await acquireDataDirLock(dir, 'kgate serve');
    const error = await acquireDataDirLock(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataDirLockedError);
    expect((error as Error).message).toContain(`process ${process.pid}`);
    expect((error as Error).message).toContain('kgate serve');
    await lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    const again = await acquireDataDirLock(dir);
    await again.release();
  });

  it('creates a missing directory', async () => {
    const dir = join(await newDir(), 'nested', 'data');
    const lock = await acquireDataDirLock(dir);
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);
    await lock.release();
  });

  it('takes over a lock left by a process that no longer runs on this host', async () => {
    const dir = await newDir();
    // Linux pids never exceed 2^22 (PID_MAX_LIMIT), so no process can have this one.
    const dead = { pid: 4_194_305, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' };
    await writeFile(join(dir, LOCK_FILE_NAME), JSON.stringify(dead));
    const lock = await acquireDataDirLock(dir);
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE_NAME), 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });

  it('does not take over a lock of another host, nor one it cannot read', async () => {
    const dir = await newDir();
    const remote = { pid: 4_194_305, hostname: 'some-other-host', startedAt: '2026-01-01T00:00:00.000Z' };
    await writeFile(join(dir, LOCK_FILE_NAME), JSON.stringify(remote));
    await expect(acquireDataDirLock(dir)).rejects.toThrow(/some-other-host/);
    await writeFile(join(dir, LOCK_FILE_NAME), '{half a lo');
    await expect(acquireDataDirLock(dir)).rejects.toThrow(/cannot read/);
  });

  it('release leaves a lock that is no longer ours alone', async () => {
    const dir = await newDir();
    const lock = await acquireDataDirLock(dir);
    await writeFile(join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: 1, hostname: 'x', startedAt: 'y' }));
    await lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);
  });
});
