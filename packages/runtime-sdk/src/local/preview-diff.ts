/**
 * The diff a local preview shows: one unified-diff hunk around the changed lines. The lines both versions share at
 * the start and at the end are left out (up to three kept as context); the lines between are aligned by their
 * longest common subsequence when that is small enough to compute, else shown as removed and added whole.
 */

/** A preview's diff is cut at this many characters and flagged `diffTruncated`, as on the server. */
export const MAX_DIFF_CHARS = 64 * 1024;
const CONTEXT_LINES = 3;
/** Above this many cells (changed lines before times after) the middle is not aligned. */
const MAX_ALIGNMENT_CELLS = 2_000_000;

/** The middle lines as diff lines: kept (' '), removed ('-') and added ('+'), aligned by their LCS. */
function alignedLines(a: string[], b: string[]): string[] {
  const n = a.length;
  const m = b.length;
  if (n * m > MAX_ALIGNMENT_CELLS) return [...a.map((line) => `-${line}`), ...b.map((line) => `+${line}`)];
  // lcs[i * (m + 1) + j]: length of the longest common subsequence of a[i..] and b[j..].
  const lcs = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i * (m + 1) + j] = a[i] === b[j] ? lcs[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(lcs[(i + 1) * (m + 1) + j]!, lcs[i * (m + 1) + j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push(` ${a[i]}`);
      i += 1;
      j += 1;
    } else if (j >= m || (i < n && lcs[(i + 1) * (m + 1) + j]! >= lcs[i * (m + 1) + j + 1]!)) {
      out.push(`-${a[i]}`);
      i += 1;
    } else {
      out.push(`+${b[j]}`);
      j += 1;
    }
  }
  return out;
}

function lines(text: string | null): string[] {
  if (text === null || text === '') return [];
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  return all;
}

/** The unified diff from `before` to `after` (null: no note), and whether it was cut. */
export function previewDiff(path: string, before: string | null, after: string | null): { diff: string; diffTruncated: boolean } {
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const header = [`--- ${before === null ? '/dev/null' : `a/${path}`}`, `+++ ${after === null ? '/dev/null' : `b/${path}`}`];
  if (start === endA && start === endB) return { diff: '', diffTruncated: false };
  const from = Math.max(0, start - CONTEXT_LINES);
  const toA = Math.min(a.length, endA + CONTEXT_LINES);
  const toB = Math.min(b.length, endB + CONTEXT_LINES);
  const range = (first: number, count: number): string => `${count === 0 ? first : first + 1},${count}`;
  const body = [
    `@@ -${range(from, toA - from)} +${range(from, toB - from)} @@`,
    ...a.slice(from, start).map((line) => ` ${line}`),
    ...alignedLines(a.slice(start, endA), b.slice(start, endB)),
    ...a.slice(endA, toA).map((line) => ` ${line}`),
  ];
  const diff = `${[...header, ...body].join('\n')}\n`;
  if (diff.length <= MAX_DIFF_CHARS) return { diff, diffTruncated: false };
  return { diff: diff.slice(0, MAX_DIFF_CHARS), diffTruncated: true };
}
