import type { Sql } from '../../db/port.ts';
import type { Surface } from './contract.ts';

// Periods start on the database clock, in UTC, so every kgate process shares the same window boundaries.
const PERIOD_START = {
  minute: "date_trunc('minute', now(), 'UTC')",
  month: "date_trunc('month', now(), 'UTC')",
} as const;

const PERIOD_LENGTH = { minute: "interval '1 minute'", month: "interval '1 month'" } as const;

/** Both periods after one reservation attempt; a null `used` means that period refused. */
export interface ReservationRow {
  minute_used: number | null;
  month_used: number | null;
  minute_reset: number;
  month_reset: number;
  [key: string]: unknown;
}

/**
 * Takes one unit of the minute and, only if that succeeded, one of the month, in one statement (one round trip,
 * no explicit transaction). The month insert reads the minute's RETURNING, so a refused minute changes nothing.
 */
export async function reserveBoth(
  sql: Sql,
  accountId: string,
  surface: Surface,
  perMinute: number,
  perMonth: number,
): Promise<ReservationRow> {
  const rows = await sql.query<ReservationRow>(
    `WITH minute AS (
       INSERT INTO usage_counters AS u (account_id, surface, period, period_start, used)
       VALUES ($1, $2, 'minute', ${PERIOD_START.minute}, 1)
       ON CONFLICT (account_id, surface, period, period_start) DO UPDATE SET used = u.used + 1 WHERE u.used < $3
       RETURNING used
     ), month AS (
       INSERT INTO usage_counters AS u (account_id, surface, period, period_start, used)
       SELECT $1, $2, 'month', ${PERIOD_START.month}, 1 FROM minute
       ON CONFLICT (account_id, surface, period, period_start) DO UPDATE SET used = u.used + 1 WHERE u.used < $4
       RETURNING used
     )
     SELECT (SELECT used FROM minute) AS minute_used, (SELECT used FROM month) AS month_used,
            ceil(extract(epoch FROM (${PERIOD_START.minute} + ${PERIOD_LENGTH.minute} - now())))::int AS minute_reset,
            ceil(extract(epoch FROM (${PERIOD_START.month} + ${PERIOD_LENGTH.month} - now())))::int AS month_reset`,
    [accountId, surface, perMinute, perMonth],
  );
  return rows[0]!;
}

/** Gives back the minute unit of a reservation that the month refused. */
export async function returnMinuteUnit(sql: Sql, accountId: string, surface: Surface): Promise<void> {
  await sql.query(
    `UPDATE usage_counters SET used = used - 1
      WHERE account_id = $1 AND surface = $2 AND period = 'minute' AND period_start = ${PERIOD_START.minute} AND used > 0`,
    [accountId, surface],
  );
}

/** Deletes minute counters older than an hour (month counters are kept for reporting). */
export async function purgeOldMinutes(sql: Sql): Promise<void> {
  await sql.query("DELETE FROM usage_counters WHERE period = 'minute' AND period_start < now() - interval '1 hour'");
}
