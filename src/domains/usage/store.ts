import type { Sql } from '../../db/port.ts';
import type { PeriodUsage, Surface } from './contract.ts';

// Periods start on the database clock, in UTC, so every kgate process shares the same window boundaries.
const PERIOD_START = {
  minute: "date_trunc('minute', now(), 'UTC')",
  month: "date_trunc('month', now(), 'UTC')",
} as const;

const PERIOD_LENGTH = { minute: "interval '1 minute'", month: "interval '1 month'" } as const;

/**
 * Takes one unit of a period's allowance, unless it is used up. A single conditional upsert: the row lock it takes
 * serializes concurrent reservations, so the counter never passes `limit`. Returns undefined when used up.
 */
export async function reserveUnit(
  sql: Sql,
  accountId: string,
  surface: Surface,
  period: 'minute' | 'month',
  limit: number,
): Promise<PeriodUsage | undefined> {
  const start = PERIOD_START[period];
  const rows = await sql.query<{ used: number; reset: number }>(
    `INSERT INTO usage_counters AS u (account_id, surface, period, period_start, used)
     VALUES ($1, $2, $3, ${start}, 1)
     ON CONFLICT (account_id, surface, period, period_start) DO UPDATE SET used = u.used + 1
       WHERE u.used < $4
     RETURNING used, ceil(extract(epoch FROM (${start} + ${PERIOD_LENGTH[period]} - now())))::int AS reset`,
    [accountId, surface, period, limit],
  );
  const row = rows[0];
  return row && { limit, remaining: Math.max(0, limit - row.used), resetSeconds: Math.max(1, row.reset) };
}

/** Seconds until the current period ends. */
export async function secondsUntilReset(sql: Sql, period: 'minute' | 'month'): Promise<number> {
  const rows = await sql.query<{ reset: number }>(
    `SELECT ceil(extract(epoch FROM (${PERIOD_START[period]} + ${PERIOD_LENGTH[period]} - now())))::int AS reset`,
  );
  return Math.max(1, rows[0]?.reset ?? 1);
}

/** Deletes minute counters older than an hour (month counters are kept for reporting). */
export async function purgeOldMinutes(sql: Sql): Promise<void> {
  await sql.query("DELETE FROM usage_counters WHERE period = 'minute' AND period_start < now() - interval '1 hour'");
}
