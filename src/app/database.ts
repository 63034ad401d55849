import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { acquireDataDirLock, type DataDirLock } from '../db/data-dir-lock.ts';
import { migrate, migrationStatus } from '../db/migrate.ts';
import { openPglite } from '../db/pglite.ts';
import type { Database } from '../db/port.ts';
import { openPostgres } from '../db/postgres.ts';
import { KgateError } from '../kernel/errors.ts';
import type { ReadinessReport } from '../surfaces/gateway/health-routes.ts';

/** An open database, migrated, with the lock that guards an embedded data directory. */
export interface OpenedDatabase {
  db: Database;
  /** True when this call created a new embedded database (an empty data directory). */
  fresh: boolean;
  /** The locked embedded data directory, which also keeps search indexes; undefined for a PostgreSQL server. */
  dataDir?: string;
  close(): Promise<void>;
}

/** Where PGlite keeps its files inside KGATE_DATA_DIR (the lock file sits beside it). */
export function pgliteDirOf(dataDir: string): string {
  return join(dataDir, 'pglite');
}

/**
 * Opens the configured database and applies pending migrations. For the embedded database the data directory is
 * locked first: a second process gets a DataDirLockedError and never opens the files.
 */
export async function openDatabase(config: Config, command = 'kgate'): Promise<OpenedDatabase> {
  if (config.database.kind === 'postgres') {
    const db = await openPostgres({ connectionString: config.database.url, poolSize: config.database.poolSize }).catch(
      (error: Error) => {
        // pg's messages name host and port, never the password.
        throw new KgateError('unavailable', `Cannot connect to the PostgreSQL server of DATABASE_URL: ${error.message}`);
      },
    );
    try {
      await migrate(db);
    } catch (error) {
      await db.close();
      throw error;
    }
    return { db, fresh: false, close: () => db.close() };
  }
  const lock: DataDirLock = await acquireDataDirLock(config.database.dataDir, command);
  try {
    const dir = pgliteDirOf(config.database.dataDir);
    const fresh = !existsSync(join(dir, 'PG_VERSION'));
    const db = await openPglite({ dataDir: dir });
    await migrate(db);
    return {
      db,
      fresh,
      dataDir: config.database.dataDir,
      async close() {
        await db.close();
        await lock.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** The readiness probe over a database: reachable and at migration head. */
export function readinessOf(db: Database): () => Promise<ReadinessReport> {
  return async () => {
    try {
      await db.query('SELECT 1');
      const status = await migrationStatus(db);
      return { database: 'ok', migrations: { atHead: status.atHead, pending: status.pending } };
    } catch {
      return { database: 'unreachable', migrations: { atHead: false, pending: [] } };
    }
  };
}
