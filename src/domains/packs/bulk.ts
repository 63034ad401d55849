// Helpers of the bulk statements that store a pack version: rows go in as parallel arrays through unnest(), a chunk
// of rows per statement, so that 50,000 assertions are a handful of statements and no statement grows without bound.

/** Rows of one multi-row statement at most. */
export const ROWS_PER_STATEMENT = 10_000;
/** Characters of text of one multi-row statement at most (about 8 to 24 MiB of UTF-8). */
export const CHARS_PER_STATEMENT = 8 * 1024 * 1024;

/**
 * Splits `items` into chunks of at most `maxRows` items and, unless one item alone is larger, at most `maxChars`
 * characters as `charsOf` counts them.
 */
export function* chunks<T>(items: readonly T[], charsOf: (item: T) => number, maxRows = ROWS_PER_STATEMENT, maxChars = CHARS_PER_STATEMENT): Generator<T[]> {
  let chunk: T[] = [];
  let chars = 0;
  for (const item of items) {
    const size = charsOf(item);
    if (chunk.length > 0 && (chunk.length >= maxRows || chars + size > maxChars)) {
      yield chunk;
      chunk = [];
      chars = 0;
    }
    chunk.push(item);
    chars += size;
  }
  if (chunk.length > 0) yield chunk;
}

/**
 * How many lines a source text has, counted as the format's validation counts them (format/validate.ts, linesOf):
 * lines end at \r\n, \n or \r, and a final line break does not start another line. Evidence may point at lines
 * 1..lineCount.
 */
export function lineCount(text: string): number {
  const breaks = text.match(/\r\n|\n|\r/g)?.length ?? 0;
  // split() gives breaks + 1 pieces; linesOf drops the last one when it is empty and there is more than one.
  const endsWithBreak = breaks > 0 && /(\r\n|\n|\r)$/.test(text);
  return endsWithBreak ? breaks : breaks + 1;
}
