import pg from 'pg';
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

function sqlOf(client: pg.Pool | pg.PoolClient): Sql {
  return {
    async query<R extends Row = Row>(text: string, params: readonly unknown[] = []): Promise<R[]> {
      const result = await client.query<R>(text, params as unknown[]);
      return result.rows;
    },
    async exec(script: string): Promise<void> {
      // Without parameters `pg` uses the simple query protocol, which accepts several statements.
      await client.query(script);
    },
  };
}

/** Opens a pool to a PostgreSQL server (`DATABASE_URL`). Safe for many kgate processes on one database. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolSize ?? 10,
    types: typeParsers,
    application_name: 'kgate',
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
      try {
        await client.query('BEGIN');
        const result = await work(sqlOf(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    listen: (channel, onMessage, onState) => listenOnPostgres(options.connectionString, channel, onMessage, onState),
    close: () => pool.end(),
  };
}
