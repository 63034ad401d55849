/** Small statistics over repeated measurements. */

/** The median of some values (the lower middle one for an even count); NaN when there are none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
}

/** The sum of some values, counting missing ones (a phase a run did not have) as zero. */
export function sum(values: readonly (number | undefined)[]): number {
  return values.reduce<number>((a, b) => a + (b ?? 0), 0);
}

/**
 * The nearest-rank percentile `p` (0–100] of some values: the smallest value with at least p% of them at or below
 * it, e.g. the 48th of 50 sorted values for p95; NaN when there are none. `percentile(v, 50)` equals `median(v)`.
 */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
