import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { acquireDataDirLock, type DataDirLock } from '../db/data-dir-lock.ts';
import { migrate, migrationStatus } from '../db/migrate.ts';
import { openPglite, type StandbyDatabaseThread } from '../db/pglite.ts';
import { ensurePgliteTemplate, seedFromTemplate } from '../db/pglite-template.ts';
import type { Database } from '../db/port.ts';
import { KgateError } from '../kernel/errors.ts';
import type { ReadinessReport } from '../surfaces/gateway/health-routes.ts';

export type { StandbyDatabaseThread };

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
 * locked first: a second process gets a DataDirLockedError and never opens the files. `standby` is a database
 * thread the command started early (bin/kgate.js), taken over for the embedded database.
 */
export async function openDatabase(
  config: Config,
  command = 'kgate',
  options: { standby?: StandbyDatabaseThread } = {},
): Promise<OpenedDatabase> {
  if (config.database.kind === 'postgres') {
    // A database thread started in case the database was embedded is not needed: its memory goes back now.
    if (options.standby && !options.standby.adopted) void options.standby.worker.terminate();
    // Imported here: the pg driver is not loaded by an embedded gateway, which starts sooner for it.
    const { openPostgres } = await import('../db/postgres.ts');
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
    // A new directory starts as a copy of the migrated template rather than running initdb (about 5 s). Where no
    // template can be made (a read-only installation), initdb runs in place as before.
    if (fresh) await seedFromTemplate(dir).catch(() => false);
    const db = await openPglite({ dataDir: dir, ...(options.standby ? { standby: options.standby } : {}) });
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

/**
 * Makes the migrated template that new embedded data directories are copied from, if this version has none yet.
 * The build script runs it at install, so that the first `npm start` does not wait for initdb. Returns its folder.
 */
export function prepareEmbeddedTemplate(): Promise<string> {
  return ensurePgliteTemplate();
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
