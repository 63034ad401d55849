import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readFile } from 'node:fs/promises';
import { describe, expect, inject, it } from 'vitest';
import { TEST_ENGINE } from '../../test/support/database.ts';
import { openPglite, type StandbyDatabaseThread } from './pglite.ts';
// @ts-expect-error pglite-standby.js is plain JavaScript without declarations (bin/kgate.js loads it before any build).
import { startStandbyDatabaseThread as startUntyped } from './pglite-standby.js';

const startStandby = startUntyped as () => StandbyDatabaseThread;

/** The suite's migrated template as a dump: loading it is much quicker than the initdb of an empty database. */
async function template(): Promise<Blob> {
  return new Blob([await readFile(inject('pgliteTemplate'))]);
}

// The database thread that bin/kgate.js starts before it loads kgate, and that openPglite takes over.
describe.runIf(TEST_ENGINE === 'pglite')('the standby database thread', () => {
  it('is taken over by the database that opens, once: that database runs on it', async () => {
    const standby = startStandby();
    const db = await openPglite({ standby, loadDataDir: await template() });
    try {
      expect(standby.adopted).toBe(true);
      // The dump was transferred along with the "open" message: the migrated schema is there.
      expect(await db.query('SELECT count(*)::int AS n FROM accounts')).toEqual([{ n: 0 }]);
      // A second database does not take a thread that already has one: it starts its own.
      const other = await openPglite({ standby, loadDataDir: await template() });
      try {
        await db.exec('CREATE TABLE only_in_first (id int)');
        expect(await other.query("SELECT to_regclass('only_in_first')::text AS t")).toEqual([{ t: null }]);
      } finally {
        await other.close();
      }
    } finally {
      await db.close();
    }
    expect(standby.exited).toBe(true);
  });

  it('is passed over once it has ended, and the database opens on a new thread', async () => {
    const standby = startStandby();
    await standby.worker.terminate();
    await new Promise((resolve) => setImmediate(resolve));
    expect(standby.exited).toBe(true);
    const db = await openPglite({ standby, loadDataDir: await template() });
    try {
      expect(standby.adopted).toBe(false);
      expect(await db.query('SELECT count(*)::int AS n FROM accounts')).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });

  it('answers anything but "open" first with a failure', async () => {
    const standby = startStandby();
    standby.worker.ref();
    const reply = new Promise((resolve) => standby.worker.once('message', resolve));
    standby.worker.postMessage({ id: 1, op: 'query', text: 'SELECT 1' });
    expect(await reply).toMatchObject({ kind: 'failed', error: { message: 'a standby database thread takes "open" first' } });
    await standby.worker.terminate();
  });

  it('does not keep a process alive that never opens the embedded database', async () => {
    const module = fileURLToPath(new URL('./pglite-standby.js', import.meta.url));
    const script = `import(${JSON.stringify(module)}).then((m) => { m.startStandbyDatabaseThread(); console.log('started'); })`;
    // Were the thread holding the process open, this would not return before the test's timeout.
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { timeout: 20_000 });
    expect(stdout).toBe('started\n');
  });
});
