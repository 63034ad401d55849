import { createTwoFilesPatch } from 'diff';
import { MAX_DIFF_CHARS } from './transaction-contract.ts';

/**
 * A unified diff from `before` to `after` (null: the file does not exist on that side), with `a/` and `b/` file
 * headers like git's; a move names the new path in the `b/` header (and has no hunk when the content stays).
 * Bounded: long diffs are cut at MAX_DIFF_CHARS and flagged.
 */
export function unifiedDiff(
  path: string,
  before: string | null,
  after: string | null,
  newPath: string = path,
): { diff: string; diffTruncated: boolean } {
  const patch = createTwoFilesPatch(
    before === null ? '/dev/null' : `a/${path}`,
    after === null ? '/dev/null' : `b/${newPath}`,
    before ?? '',
    after ?? '',
    undefined,
    undefined,
    { context: 3 },
  );
  // jsdiff starts with an "Index:"-less "===" separator line; drop it so the text is a plain unified diff.
  const text = patch.replace(/^=+\n/, '');
  return text.length > MAX_DIFF_CHARS
    ? { diff: text.slice(0, MAX_DIFF_CHARS), diffTruncated: true }
    : { diff: text, diffTruncated: false };
}
