import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresAdminUrl: string;
    postgresTemplate: string;
    postgresRunId: string;
  }
}

/** The URL of `database` on the same server as `adminUrl`. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Migrates a template database once per run; each test file clones it with CREATE DATABASE ... TEMPLATE, which is
 * fast and isolates files from each other. Teardown drops every database of this run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const adminUrl = process.env.KGATE_TEST_DATABASE_URL!;
  const runId = randomBytes(4).toString('hex');
  const template = `kgate_tpl_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${template}`);
  const db = await openPostgres({ connectionString: databaseUrl(adminUrl, template), poolSize: 1 });
  await migrate(db);
  await db.close();
  project.provide('postgresAdminUrl', adminUrl);
  project.provide('postgresTemplate', template);
  project.provide('postgresRunId', runId);
  return async () => {
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'kgate\\_t\\_' || $1 || '%' OR datname = $2",
      [runId, template],
    );
    for (const { datname } of rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
  };
}
