import type { Database, Sql } from '../db/port.ts';
import type { Metrics } from '../metrics.ts';

async function timed<T>(metrics: Pick<Metrics, 'observeDatabase'>, kind: 'query' | 'transaction', work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  let failed = true;
  try {
    const result = await work();
    failed = false;
    return result;
  } finally {
    metrics.observeDatabase(kind, (performance.now() - started) / 1000, failed);
  }
}

/**
 * The database with every statement outside a transaction, and every transaction as a whole, timed for the
 * operator's metrics. Statements inside a transaction are not timed one by one: the transaction's time holds them.
 */
export function instrumentDatabase(db: Database, metrics: Pick<Metrics, 'observeDatabase'>): Database {
  const sql: Sql = {
    query: (text, params) => timed(metrics, 'query', () => db.query(text, params)),
    exec: (script) => timed(metrics, 'query', () => db.exec(script)),
    afterCommit: (callback) => db.afterCommit(callback),
  };
  return {
    engine: db.engine,
    ...sql,
    transaction: (work) => timed(metrics, 'transaction', () => db.transaction(work)),
    listen: (channel, onMessage, onState) => db.listen(channel, onMessage, onState),
    ...(db.pool ? { pool: () => db.pool!() } : {}),
    close: () => db.close(),
  };
}
