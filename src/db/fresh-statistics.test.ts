import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../test/support/database.ts';
import { refreshGrownStatistics } from './fresh-statistics.ts';
import type { Database } from './port.ts';

// The embedded database has no autovacuum; the gateway analyzes tables that grew (maintenance.ts).
describe('refreshGrownStatistics', () => {
  let db: Database;
  const pagesSeen = async () =>
    (await db.query<{ pages: number }>("SELECT relpages::int AS pages FROM pg_class WHERE relname = 'grown'"))[0]!;
  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    await db.exec('CREATE TABLE grown (id int PRIMARY KEY, body text NOT NULL)');
  });
  afterAll(() => db.close());

  it('leaves a table alone until it grows past a tenth of what its statistics saw, then analyzes it', async () => {
    await db.query("INSERT INTO grown SELECT g, repeat('x', 200) FROM generate_series(1, 20) g");
    expect(await refreshGrownStatistics(db)).not.toContain('grown');

    await db.query("INSERT INTO grown SELECT g, repeat('x', 200) FROM generate_series(21, 5000) g");
    expect(await refreshGrownStatistics(db)).toContain('grown');
    const seen = await pagesSeen();
    expect(seen.pages).toBeGreaterThan(100);

    // Grown by less than a tenth since: nothing to do.
    await db.query("INSERT INTO grown SELECT g, repeat('x', 200) FROM generate_series(5001, 5100) g");
    expect(await refreshGrownStatistics(db)).not.toContain('grown');
    expect((await pagesSeen()).pages).toBe(seen.pages);
  });
});
