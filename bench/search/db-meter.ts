/**
 * How much of a kgate search is database work: a wrapper around the database port that counts statements and the
 * milliseconds spent awaiting them (inside transactions too). Costs two `performance.now()` calls per statement.
 */
import type { Database, Row, Sql } from '../../src/db/port.ts';

/** A metered database and its running totals. */
export interface DatabaseMeter {
  /** The database to hand to `createServices`. */
  db: Database;
  /** Statements run so far. */
  statements: number;
  /** Milliseconds spent awaiting them so far. */
  ms: number;
}

/** Wraps `db` so every statement is counted and timed into the returned meter. */
export function meteredDatabase(db: Database): DatabaseMeter {
  const wrap = (target: Sql): Sql => ({
    async query<R extends Row = Row>(text: string, params?: readonly unknown[]): Promise<R[]> {
      const started = performance.now();
      try {
        return await target.query<R>(text, params);
      } finally {
        meter.statements++;
        meter.ms += performance.now() - started;
      }
    },
    exec: (script: string) => target.exec(script),
    afterCommit: (callback: () => void) => target.afterCommit(callback),
  });
  const meter: DatabaseMeter = {
    db: {
      engine: db.engine,
      ...wrap(db),
      transaction: (work) => db.transaction((tx) => work(wrap(tx))),
      listen: (channel, onMessage, onState) => db.listen(channel, onMessage, onState),
      close: () => db.close(),
    },
    statements: 0,
    ms: 0,
  };
  return meter;
}
