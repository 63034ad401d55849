/**
 * The one order of text the projection uses: UTF-16 code units, as JavaScript compares strings. It depends on no
 * locale, so the same input sorts the same on every server (docs/education.md, "Projection").
 */

/** Compares two strings by their UTF-16 code units. */
export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two lists of strings element by element, a shorter prefix first. */
export function byTexts(a: readonly string[], b: readonly string[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const order = byText(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}
