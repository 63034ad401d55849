import type { CostBound, ModelUsage, PriceTable } from '../contract.ts';

/**
 * What `usage` costs at `prices`, in whole microdollars rounded up (prices may be fractions of a microdollar). The
 * reservation of a bound and the charge of a usage are both this, so a usage within its bound never costs more than
 * was reserved. The small tolerance keeps floating-point noise (3.0000000000004) from rounding a whole number up.
 */
export function costOf(usage: CostBound | ModelUsage, prices: PriceTable): number {
  const exact =
    usage.inputTokens * prices.inputMicrodollarsPerToken + usage.outputTokens * prices.outputMicrodollarsPerToken + usage.images * prices.imageMicrodollars;
  return Math.max(0, Math.ceil(exact - 1e-6));
}

/** The UTC calendar month of `at`, `YYYY-MM`: the month a request reserved then counts its cost in. */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** The first day of a `YYYY-MM` month, as the counters' `month_start` date. */
export function monthStart(month: string): string {
  return `${month}-01`;
}
