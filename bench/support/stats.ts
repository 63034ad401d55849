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
