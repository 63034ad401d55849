import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';

/** What one reserved Product Runtime operation left of the organization's month (the operation receipt). */
export interface RuntimeReservation {
  /** The calendar month in UTC, `YYYY-MM`. */
  month: string;
  used: number;
  /** The ceiling; null when the organization has no cap. */
  limit: number | null;
}

/**
 * Reserves one Product Runtime operation of the organization's month (spec 8 rule 3): one conditional statement, so
 * that concurrent calls never take the count past `limit`; a refusal changes nothing. `limit` undefined is no cap
 * (the count still runs, for receipts and the operator); 0 never reaches here (the chain refuses a paused
 * organization first), but would refuse every call.
 */
export async function reserveOperation(sql: Sql, organizationId: string, limit: number | undefined): Promise<RuntimeReservation> {
  const rows = await sql.query<{ used: number; month_start: string }>(
    `INSERT INTO runtime_usage AS u (organization_id, month_start, used)
     SELECT $1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 1 WHERE $2::integer IS NULL OR $2::integer >= 1
     ON CONFLICT (organization_id, month_start) DO UPDATE SET used = u.used + 1
      WHERE $2::integer IS NULL OR u.used + 1 <= $2::integer
     RETURNING used, to_char(month_start, 'YYYY-MM') AS month_start`,
    [organizationId, limit ?? null],
  );
  const row = rows[0];
  if (!row) {
    throw new KgateError(
      'runtime_operations_exhausted',
      "Your organization's Product Runtime operations for this month are used up; they renew at the start of next month (UTC).",
      { limit: limit ?? null },
    );
  }
  return { month: row.month_start, used: row.used, limit: limit ?? null };
}
