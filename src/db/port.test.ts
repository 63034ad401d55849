import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import type { Database } from './port.ts';

// Runs on the engine of the test project (PGlite, and PostgreSQL when KGATE_TEST_DATABASE_URL is set).
describe('Sql.afterCommit', () => {
  let db: Database;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    await db.exec('CREATE TABLE commit_probe (n int)');
  });
  afterAll(() => db.close());

  it('runs after COMMIT, before transaction() resolves, in the order added', async () => {
    const seen: string[] = [];
    const done = db.transaction(async (tx) => {
      await tx.query('INSERT INTO commit_probe VALUES (1)');
      tx.afterCommit(() => seen.push('first'));
      tx.afterCommit(() => seen.push('second'));
      expect(seen).toEqual([]);
      return 'result';
    });
    await expect(done).resolves.toBe('result');
    expect(seen).toEqual(['first', 'second']);
    expect(await db.query('SELECT n FROM commit_probe')).toEqual([{ n: 1 }]);
  });

  it('never runs when the transaction rolls back', async () => {
    const seen: string[] = [];
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO commit_probe VALUES (2)');
        tx.afterCommit(() => seen.push('ran'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(seen).toEqual([]);
    expect(await db.query('SELECT n FROM commit_probe WHERE n = 2')).toEqual([]);
  });

  it('runs at once outside a transaction', () => {
    const seen: string[] = [];
    db.afterCommit(() => seen.push('ran'));
    expect(seen).toEqual(['ran']);
  });

  it('runs every callback when one throws, and transaction() reports that error over a committed change', async () => {
    const seen: string[] = [];
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO commit_probe VALUES (3)');
        tx.afterCommit(() => {
          throw new Error('cache failed');
        });
        tx.afterCommit(() => seen.push('second'));
      }),
    ).rejects.toThrow('cache failed');
    expect(seen).toEqual(['second']);
    expect(await db.query('SELECT n FROM commit_probe WHERE n = 3')).toEqual([{ n: 3 }]);
  });
});
