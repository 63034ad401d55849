import { PGlite, types } from '@electric-sql/pglite';
import type { Database, Row, Sql } from './port.ts';

/** Options of the embedded database. */
export interface PgliteOptions {
  /** Directory of the data files; omitted means in memory. */
  dataDir?: string;
  /** A data directory dump to start from (tests load a migrated template instead of running initdb). */
  loadDataDir?: Blob | File;
}

// Normalize value types to what the PostgreSQL adapter returns (see port.ts).
const parsers = {
  [types.INT8]: (value: string) => Number(value),
};

/**
 * Opens an embedded PGlite database. PGlite does not lock its directory; callers that use a directory must hold
 * a `DataDirLock` first (see `data-dir-lock.ts`), or two processes would corrupt each other's data.
 */
export async function openPglite(options: PgliteOptions = {}): Promise<Database & { dump(): Promise<Blob> }> {
  const pg = await PGlite.create({
    ...(options.dataDir !== undefined ? { dataDir: options.dataDir } : {}),
    ...(options.loadDataDir !== undefined ? { loadDataDir: options.loadDataDir } : {}),
    parsers,
  });
  return wrapPglite(pg);
}

interface PgliteQueryable {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  exec(script: string): Promise<unknown>;
}

function sqlOf(target: PgliteQueryable): Sql {
  return {
    async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await target.query<R>(text, [...params]);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      await target.exec(script);
    },
  };
}

function wrapPglite(pg: PGlite): Database & { dump(): Promise<Blob> } {
  return {
    engine: 'pglite',
    ...sqlOf(pg),
    transaction: (work) => pg.transaction((tx) => work(sqlOf(tx))),
    // In-process: notifications cannot be lost, so the state never changes.
    async listen(channel, onMessage) {
      const stop = await pg.listen(channel, onMessage);
      return async () => {
        if (!pg.closed) await stop();
      };
    },
    close: () => pg.close(),
    dump: () => pg.dumpDataDir('none'),
  };
}
