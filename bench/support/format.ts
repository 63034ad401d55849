/**
 * Number formatting for benchmark reports. Always en-US, so that docs/benchmarks.md does not change with the
 * locale of the machine that wrote it.
 */

/** An integer with thousands separators, e.g. "20,000". */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** A number with exactly `digits` decimals and thousands separators, e.g. fixed(5047.2, 0) is "5,047". */
export function fixed(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `part` as a whole percentage of `whole`, e.g. "28%". */
export function percent(part: number, whole: number): string {
  return `${Math.round((100 * part) / whole)}%`;
}
