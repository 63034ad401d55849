import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TEST_ENGINE } from '../../test/support/database.ts';
import { openPglite } from './pglite.ts';
import { seedFromTemplate } from './pglite-template.ts';
import { DatabaseThread, PgliteError } from './pglite-thread.ts';
import type { Database } from './port.ts';

// The embedded database on its own thread, as the gateway opens it: values, transactions, errors, notifications,
// dumps, and what happens when the thread dies. The adapter is the same whichever engine a project tests: once.
describe.runIf(TEST_ENGINE === 'pglite')('the embedded database thread', () => {
  let db: Database & { dump(): Promise<Blob> };

  beforeAll(async () => {
    // The suite's migrated template (test/support/setup-pglite.ts) rather than an initdb of an empty database, which
    // costs seconds more; these tests use only their own table.
    db = await openPglite({ loadDataDir: new Blob([await readFile(inject('pgliteTemplate'))]) });
    await db.exec('CREATE TABLE t (id int8 PRIMARY KEY, at timestamptz, doc jsonb, n numeric)');
  });
  afterAll(() => db.close());

  it('returns the value types of the port: int8 as number, timestamptz as Date, jsonb parsed, numeric as string', async () => {
    await db.query('INSERT INTO t VALUES ($1, $2, $3, $4)', [1, new Date('2026-01-02T03:04:05Z'), JSON.stringify({ a: [1] }), '1.50']);
    const [row] = await db.query('SELECT * FROM t WHERE id = $1', [1]);
    expect(row).toEqual({ id: 1, at: new Date('2026-01-02T03:04:05Z'), doc: { a: [1] }, n: '1.50' });
  });

  it('commits a transaction whose work resolves, and rolls back one whose work throws', async () => {
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (2)');
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (3)');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    const rows = await db.query<{ id: number }>('SELECT id FROM t WHERE id IN (2, 3) ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual([2]);
  });

  it('keeps other statements out of an open transaction until it ends', async () => {
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (4)');
      outside = db.query<{ c: number }>('SELECT count(*)::int8 AS c FROM t WHERE id = 4').then((rows) => order.push(`outside saw ${rows[0]!.c}`));
      await tx.query('SELECT pg_sleep(0.05)');
      order.push('transaction done');
    });
    await outside;
    expect(order).toEqual(['transaction done', 'outside saw 1']);
  });

  it('reports SQL errors with their SQLSTATE, and the failed transaction changes nothing', async () => {
    const failure = await db
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (5)');
        await tx.query('INSERT INTO t (id) VALUES (1)');
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PgliteError);
    expect(failure).toMatchObject({ code: '23505', constraint: 't_pkey' });
    expect(await db.query('SELECT id FROM t WHERE id = 5')).toEqual([]);
    await expect(db.query('SELECT nonsense FROM t')).rejects.toMatchObject({ code: '42703' });
  });

  it('delivers notifications to every listener of a channel until each stops', async () => {
    const a: string[] = [];
    const b: string[] = [];
    const stopA = await db.listen('kgate_test', (payload) => a.push(payload));
    const stopB = await db.listen('kgate_test', (payload) => b.push(payload));
    await db.query("SELECT pg_notify('kgate_test', 'one')");
    await expect.poll(() => b).toEqual(['one']);
    await stopA();
    await db.query("SELECT pg_notify('kgate_test', 'two')");
    await expect.poll(() => b).toEqual(['one', 'two']);
    await stopB();
    await db.query("SELECT pg_notify('kgate_test', 'three')");
    await db.query('SELECT 1');
    expect({ a, b }).toEqual({ a: ['one'], b: ['one', 'two'] });
  });

  it('lets the calling thread run while a statement executes', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    const answer = db.query('SELECT count(*)::int8 AS c FROM generate_series(1, 2000000)').then((rows) => ({ rows, turnedBefore: turned }));
    // An in-process PGlite would run the statement before this thread's next turn, and answer first.
    expect(await answer).toEqual({ rows: [{ c: 2000000 }], turnedBefore: true });
  });

  it('dumps a data directory that another database opens with the same rows', async () => {
    const copy = await openPglite({ loadDataDir: await db.dump() });
    try {
      expect(await copy.query('SELECT id FROM t ORDER BY id')).toEqual(await db.query('SELECT id FROM t ORDER BY id'));
    } finally {
      await copy.close();
    }
  });
});

describe.runIf(TEST_ENGINE === 'pglite')('a database directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kgate-pglite-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps what was committed across a close and a reopen, and refuses calls once closed', async () => {
    // A directory copied from the migrated template, as the gateway starts one, rather than an initdb in place (the
    // first open of an empty directory, which src/db/pglite-template.test.ts goes through).
    await seedFromTemplate(join(dir, 'db'));
    const first = await openPglite({ dataDir: join(dir, 'db') });
    await first.exec('CREATE TABLE kept (v text)');
    await first.query("INSERT INTO kept VALUES ('still here')");
    await first.close();
    await expect(first.query('SELECT 1')).rejects.toThrow('closed');
    const second = await openPglite({ dataDir: join(dir, 'db') });
    try {
      expect(await second.query('SELECT v FROM kept')).toEqual([{ v: 'still here' }]);
    } finally {
      await second.close();
    }
  });

  it('fails to open, without a thread left behind, when the directory is not a database', async () => {
    await expect(openPglite({ dataDir: join(dir, 'missing', '\0bad') })).rejects.toThrow();
  });
});

describe.runIf(TEST_ENGINE === 'pglite')('a database thread that dies', () => {
  it('fails the waiting call and every later one, and reports the death once', async () => {
    // A stand-in thread that dies on its first message, as a PGlite that aborted would.
    const worker = new Worker("require('node:worker_threads').parentPort.once('message', () => process.exit(3))", { eval: true });
    const crashes: Error[] = [];
    const thread = new DatabaseThread(worker, (error) => crashes.push(error));
    await expect(thread.call({ op: 'query', text: 'SELECT 1' })).rejects.toThrow('exited unexpectedly (code 3)');
    await expect(thread.call({ op: 'query', text: 'SELECT 1' })).rejects.toThrow('exited unexpectedly (code 3)');
    expect(crashes).toHaveLength(1);
  });
});
