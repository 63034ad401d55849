import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { openPglite } from '../../src/db/pglite.ts';
import type { Database } from '../../src/db/port.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { databaseUrl } from './setup-postgres.ts';

/** The engine this test project runs on. */
export const TEST_ENGINE: 'pglite' | 'postgres' = process.env.KGATE_TEST_DB === 'postgres' ? 'postgres' : 'pglite';

/** A migrated, empty database of its own for one test file. */
export interface TestDatabase {
  db: Database;
  /** For PostgreSQL: the URL of this database, so that child processes (the CLI) can use it too. */
  url?: string;
}

/** Opens a fresh migrated database on the project's engine: a loaded PGlite dump or a cloned PostgreSQL database. */
export async function openTestDatabase(): Promise<TestDatabase> {
  if (TEST_ENGINE === 'pglite') {
    const dump = await readFile(inject('pgliteTemplate'));
    return { db: await openPglite({ loadDataDir: new Blob([dump]) }) };
  }
  const name = `kgate_t_${inject('postgresRunId')}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('postgresAdminUrl') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${inject('postgresTemplate')}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrl(inject('postgresAdminUrl'), name);
  return { db: await openPostgres({ connectionString: url, poolSize: 8 }), url };
}
