import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Allowance, Reservation, Surface } from './contract.ts';
import * as store from './store.ts';

/** Usage accounting: one unit per recognized operation, reserved before it runs. */
export interface UsageService {
  /**
   * Reserves one operation in both the minute and the month period, atomically: if either is used up, nothing is
   * taken and `rate_limited` or `monthly_limit_reached` is thrown with `retryAfterSeconds`.
   */
  reserve(accountId: string, surface: Surface, allowance: Allowance): Promise<Reservation>;
  purgeOldCounters(): Promise<void>;
}

/** Builds the usage service. */
export function createUsageService(db: Database): UsageService {
  return {
    async reserve(accountId, surface, allowance) {
      if (allowance.perMinute <= 0 || allowance.perMonth <= 0) {
        throw new KgateError('plan_required', 'Your plan includes no operations on this API.');
      }
      // Every request pays for this, so it is one statement in the common case (see docs/benchmarks.md).
      const row = await store.reserveBoth(db, accountId, surface, allowance.perMinute, allowance.perMonth);
      if (row.minute_used === null) {
        throw new KgateError('rate_limited', `The allowance of ${allowance.perMinute} operations per minute is used up.`, {
          limit: allowance.perMinute,
          retryAfterSeconds: Math.max(1, row.minute_reset),
        });
      }
      if (row.month_used === null) {
        // The month refused after the minute counted: give the minute unit back, so the rejection consumes nothing.
        await store.returnMinuteUnit(db, accountId, surface);
        throw new KgateError('monthly_limit_reached', `The monthly allowance of ${allowance.perMonth} operations is used up.`, {
          limit: allowance.perMonth,
          retryAfterSeconds: Math.max(1, row.month_reset),
        });
      }
      const usage = (limit: number, used: number, reset: number) => ({
        limit,
        remaining: Math.max(0, limit - used),
        resetSeconds: Math.max(1, reset),
      });
      return {
        minute: usage(allowance.perMinute, row.minute_used, row.minute_reset),
        month: usage(allowance.perMonth, row.month_used, row.month_reset),
      };
    },
    purgeOldCounters: () => store.purgeOldMinutes(db),
  };
}
