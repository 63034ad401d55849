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
      return db.transaction(async (tx) => {
        const month = await store.reserveUnit(tx, accountId, surface, 'month', allowance.perMonth);
        if (!month) {
          throw new KgateError('monthly_limit_reached', `The monthly allowance of ${allowance.perMonth} operations is used up.`, {
            limit: allowance.perMonth,
            retryAfterSeconds: await store.secondsUntilReset(tx, 'month'),
          });
        }
        const minute = await store.reserveUnit(tx, accountId, surface, 'minute', allowance.perMinute);
        if (!minute) {
          // Throwing rolls back the month unit taken above: a rejected request consumes nothing.
          throw new KgateError('rate_limited', `The allowance of ${allowance.perMinute} operations per minute is used up.`, {
            limit: allowance.perMinute,
            retryAfterSeconds: await store.secondsUntilReset(tx, 'minute'),
          });
        }
        return { minute, month };
      });
    },
    purgeOldCounters: () => store.purgeOldMinutes(db),
  };
}
