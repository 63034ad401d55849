import pg from 'pg';
import { CommitCallbacks, runAtOnce } from './commit-callbacks.ts';
import type { Database, Row, Sql } from './port.ts';
import { listenOnPostgres } from './postgres-listener.ts';

/** Options of the server PostgreSQL adapter. */
export interface PostgresOptions {
  connectionString: string;
  /** Most connections this process opens. */
  poolSize?: number;
}

// A private type registry, so that our parsers never leak into other users of `pg` in the same process.
const typeParsers = new pg.TypeOverrides();
typeParsers.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

function sqlOf(client: pg.Pool | pg.PoolClient, committed?: CommitCallbacks): Sql {
  return {
    async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await client.query<R>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      // Without parameters `pg` uses the simple query protocol, which accepts several statements.
      await client.query(script);
    },
    afterCommit: committed ? (callback) => committed.add(callback) : runAtOnce,
  };
}

/** Opens a pool to a PostgreSQL server (`DATABASE_URL`). Safe for many kgate processes on one database. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    types: typeParsers,
    application_name: 'kgate',
    // Statements a caller sends together go out together and run in order (node-postgres pipelining): a write
    // transaction sends its statements in a few round trips instead of one each (notes/change-store.ts).
    pipeline: true,
  });
  // An idle client that loses its server connection emits here; without a listener the process would crash.
  pool.on('error', () => undefined);
  // Fail at start-up, not at the first request, when the server is unreachable.
  const probe = await pool.connect();
  probe.release();
  return {
    engine: 'postgres',
    ...sqlOf(pool),
    async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      const committed = new CommitCallbacks();
      let result: T;
      let committing = false;
      try {
        // Pipelined: the work's first statements go out behind BEGIN, without waiting for its answer.
        const begun = client.query('BEGIN');
        begun.catch(() => undefined);
        result = await work(sqlOf(client, committed));
        await begun;
        committing = true;
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        // A COMMIT that failed on the way (a lost connection) may still have committed: forgetting is always safe.
        if (committing) committed.runQuietly();
        throw error;
      } finally {
        client.release();
      }
      committed.run();
      return result;
    },
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, onMessage, onState) => listenOnPostgres(options.connectionString, channel, onMessage, onState),
    close: () => pool.end(),
  };
}
