import type { Allowance, Surface } from './contract.ts';

/** Units a process has reserved in the database and hands out from memory until its minute ends. */
export interface Lease {
  accountId: string;
  surface: Surface;
  allowance: Allowance;
  size: number;
  /** Units of the block not yet handed out. */
  remaining: number;
  /** The period counters right after the block was reserved (they include the whole block). */
  minuteUsed: number;
  monthUsed: number;
  /** The month period the block was counted in, YYYY-MM-DD. */
  monthStart: string;
  /** Monotonic times (ms) at which the lease stops serving, and at which its month ends. */
  expiresAt: number;
  monthEndsAt: number;
}

// Blocks never exceed this many units, so a process never holds more than this of an account's minute.
const MAX_LEASE = 1000;

/**
 * How many units to reserve at once for an allowance: 1 (exact, no lease) unless the allowance is large.
 *
 * A block is at most 1/600 of the minute allowance and 1/100,000 of the month's, so the units a process holds
 * but may not use are a negligible share of either. The rule follows from arithmetic, not tuning: sustaining R
 * requests per second needs a minute allowance of at least 60·R, so any allowance where a database write per
 * request would limit throughput (hundreds of requests per second) gets blocks of tens to hundreds of units,
 * while every allowance a person could exhaust by hand stays exact to the unit.
 */
export function leaseSizeFor(allowance: Allowance): number {
  const size = Math.min(Math.floor(allowance.perMinute / 600), Math.floor(allowance.perMonth / 100_000), MAX_LEASE);
  return Math.max(1, size);
}

/** Leases are per account, surface and allowance, so a plan change starts a new lease under the new limits. */
export function leaseKey(accountId: string, surface: Surface, allowance: Allowance): string {
  return `${accountId}\u0000${surface}\u0000${allowance.perMinute}\u0000${allowance.perMonth}`;
}
