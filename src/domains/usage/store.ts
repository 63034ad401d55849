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
  minute_reset_ms: number;
  month_reset_ms: number;
  /** The month period's first day, YYYY-MM-DD (UTC). */
  month_start: string;
  [key: string]: unknown;
}

/**
 * Takes `units` of the minute and, only if that succeeded, `units` of the month, in one statement (one round trip,
 * no explicit transaction). All or nothing per period: a period grants the units only if they all fit under its
 * limit. The month insert reads the minute's RETURNING, so a refused minute changes nothing. Reset times are in
 * milliseconds so that a process can keep leased units exactly until the period ends.
 */
export async function reserveBoth(
  sql: Sql,
  accountId: string,
  surface: Surface,
  perMinute: number,
  perMonth: number,
  units = 1,
): Promise<ReservationRow> {
  const rows = await sql.query<ReservationRow>(
    `WITH minute AS (
       INSERT INTO usage_counters AS u (account_id, surface, period, period_start, used)
       SELECT $1, $2, 'minute', ${PERIOD_START.minute}, $5::int WHERE $5::int <= $3
       ON CONFLICT (account_id, surface, period, period_start) DO UPDATE SET used = u.used + $5 WHERE u.used + $5 <= $3
       RETURNING used
     ), month AS (
       INSERT INTO usage_counters AS u (account_id, surface, period, period_start, used)
       SELECT $1, $2, 'month', ${PERIOD_START.month}, $5::int FROM minute WHERE $5::int <= $4
       ON CONFLICT (account_id, surface, period, period_start) DO UPDATE SET used = u.used + $5 WHERE u.used + $5 <= $4
       RETURNING used
     )
     SELECT (SELECT used FROM minute) AS minute_used, (SELECT used FROM month) AS month_used,
            ceil(extract(epoch FROM (${PERIOD_START.minute} + ${PERIOD_LENGTH.minute} - now())) * 1000)::float8 AS minute_reset_ms,
            ceil(extract(epoch FROM (${PERIOD_START.month} + ${PERIOD_LENGTH.month} - now())) * 1000)::float8 AS month_reset_ms,
            to_char(${PERIOD_START.month}, 'YYYY-MM-DD') AS month_start`,
    [accountId, surface, perMinute, perMonth, units],
  );
  return rows[0]!;
}

/** Gives back `units` of the current minute: the minute part of a reservation that the month refused. */
export async function returnMinuteUnits(sql: Sql, accountId: string, surface: Surface, units: number): Promise<void> {
  await sql.query(
    `UPDATE usage_counters SET used = greatest(0, used - $3)
      WHERE account_id = $1 AND surface = $2 AND period = 'minute' AND period_start = ${PERIOD_START.minute}`,
    [accountId, surface, units],
  );
}

/**
 * Gives back `units` of a month that were leased but not used. The minute's share is not returned: the lease
 * expires with its minute, and a past minute's counter limits nothing.
 */
export async function returnMonthUnits(sql: Sql, accountId: string, surface: Surface, monthStart: string, units: number): Promise<void> {
  await sql.query(
    `UPDATE usage_counters SET used = greatest(0, used - $4)
      WHERE account_id = $1 AND surface = $2 AND period = 'month' AND period_start = ($3::date)::timestamp AT TIME ZONE 'UTC'`,
    [accountId, surface, monthStart, units],
  );
}

/** Deletes minute counters older than an hour (month counters are kept for reporting). */
export async function purgeOldMinutes(sql: Sql): Promise<void> {
  await sql.query("DELETE FROM usage_counters WHERE period = 'minute' AND period_start < now() - interval '1 hour'");
}
