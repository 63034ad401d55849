import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Allowance, Reservation, Surface } from './contract.ts';
import { leaseSizeFor, type Lease, leaseKey } from './lease.ts';
import * as store from './store.ts';

/** Usage accounting: one unit per recognized operation, reserved before it runs. */
export interface UsageService {
  /**
   * Reserves one operation in both the minute and the month period, atomically: if either is used up, nothing is
   * taken and `rate_limited` or `monthly_limit_reached` is thrown with `retryAfterSeconds`.
   */
  reserve(accountId: string, surface: Surface, allowance: Allowance): Promise<Reservation>;
  /** Gives the unused units of every lease back to the month counters (on shutdown, and for expired leases). */
  releaseLeases(options?: { expiredOnly?: boolean }): Promise<void>;
  purgeOldCounters(): Promise<void>;
}

// A lease ends this long before the database's minute does, so that local clock drift between the statement and
// the end of the minute cannot spend a unit in the next minute.
const LEASE_MARGIN_MS = 250;

/**
 * Builds the usage service.
 *
 * Large allowances are served from leases: the process reserves a block of units in one statement and hands them
 * out from memory until the block or its minute runs out (see lease.ts for the sizes). Small allowances reserve
 * each unit in the database, so their counters and headers are exact. Either way the database never grants more
 * than the limits, however many processes share them, because a block is granted whole or not at all.
 */
export function createUsageService(db: Database, now: () => number = () => performance.now()): UsageService {
  const leases = new Map<string, Lease>();
  const refills = new Map<string, Promise<Lease | undefined>>();

  async function reserveInDatabase(accountId: string, surface: Surface, allowance: Allowance, units: number) {
    const row = await store.reserveBoth(db, accountId, surface, allowance.perMinute, allowance.perMonth, units);
    if (row.minute_used !== null && row.month_used === null) {
      // The month refused after the minute counted: give the minute back, so the refusal consumes nothing.
      await store.returnMinuteUnits(db, accountId, surface, units);
    }
    return row;
  }

  function refused(row: store.ReservationRow, allowance: Allowance): KgateError {
    if (row.minute_used === null) {
      return new KgateError('rate_limited', `The allowance of ${allowance.perMinute} operations per minute is used up.`, {
        limit: allowance.perMinute,
        retryAfterSeconds: Math.max(1, Math.ceil(row.minute_reset_ms / 1000)),
      });
    }
    return new KgateError('monthly_limit_reached', `The monthly allowance of ${allowance.perMonth} operations is used up.`, {
      limit: allowance.perMonth,
      retryAfterSeconds: Math.max(1, Math.ceil(row.month_reset_ms / 1000)),
    });
  }

  function reservation(allowance: Allowance, minuteUsed: number, monthUsed: number, minuteResetMs: number, monthResetMs: number): Reservation {
    const usage = (limit: number, used: number, resetMs: number) => ({
      limit,
      remaining: Math.max(0, limit - used),
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)),
    });
    return { minute: usage(allowance.perMinute, minuteUsed, minuteResetMs), month: usage(allowance.perMonth, monthUsed, monthResetMs) };
  }

  async function giveBack(lease: Lease): Promise<void> {
    const unused = lease.remaining;
    if (unused <= 0) return;
    lease.remaining = 0;
    await store.returnMonthUnits(db, lease.accountId, lease.surface, lease.monthStart, unused);
  }

  /** A new lease of `size` units, or undefined when the block no longer fits under a limit. */
  async function refill(key: string, accountId: string, surface: Surface, allowance: Allowance, size: number): Promise<Lease | undefined> {
    const previous = leases.get(key);
    if (previous) {
      leases.delete(key);
      await giveBack(previous);
    }
    const row = await reserveInDatabase(accountId, surface, allowance, size);
    if (row.minute_used === null || row.month_used === null) return undefined;
    const at = now();
    const lease: Lease = {
      accountId,
      surface,
      allowance,
      size,
      remaining: size,
      minuteUsed: row.minute_used,
      monthUsed: row.month_used,
      monthStart: row.month_start,
      expiresAt: at + row.minute_reset_ms - LEASE_MARGIN_MS,
      monthEndsAt: at + row.month_reset_ms,
    };
    leases.set(key, lease);
    return lease;
  }

  function takeFrom(lease: Lease): Reservation {
    lease.remaining -= 1;
    const at = now();
    // Units this process holds but has not used are not spent: report them as remaining.
    return reservation(lease.allowance, lease.minuteUsed - lease.remaining, lease.monthUsed - lease.remaining, lease.expiresAt + LEASE_MARGIN_MS - at, lease.monthEndsAt - at);
  }

  return {
    async reserve(accountId, surface, allowance) {
      if (allowance.perMinute <= 0 || allowance.perMonth <= 0) {
        throw new KgateError('plan_required', 'Your plan includes no operations on this API.');
      }
      const size = leaseSizeFor(allowance);
      if (size > 1) {
        const key = leaseKey(accountId, surface, allowance);
        for (;;) {
          const lease = leases.get(key);
          if (lease && lease.remaining > 0 && now() < lease.expiresAt) return takeFrom(lease);
          // One refill at a time per key; concurrent callers wait for it and then take from the new lease.
          let pending = refills.get(key);
          if (!pending) {
            pending = refill(key, accountId, surface, allowance, size).finally(() => refills.delete(key));
            refills.set(key, pending);
          }
          const fresh = await pending;
          if (!fresh) break; // near a limit: fall through to exact single units
          if (fresh.remaining > 0) return takeFrom(fresh);
        }
      }
      // Every request pays for this, so it is one statement in the common case (see docs/benchmarks.md).
      const row = await reserveInDatabase(accountId, surface, allowance, 1);
      if (row.minute_used === null || row.month_used === null) throw refused(row, allowance);
      return reservation(allowance, row.minute_used, row.month_used, row.minute_reset_ms, row.month_reset_ms);
    },
    async releaseLeases(options = {}) {
      const at = now();
      for (const [key, lease] of leases) {
        if (options.expiredOnly && at < lease.expiresAt) continue;
        leases.delete(key);
        await giveBack(lease);
      }
    },
    purgeOldCounters: () => store.purgeOldMinutes(db),
  };
}
