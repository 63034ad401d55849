/**
 * Human coding schemes of standards (CASE `humanCodingScheme`, e.g. "CCSS.Math.Content.6.RP.A.1", "MA.6.RP.1.1",
 * "6.rp.a.1"), normalized so that publishers' spellings of one code compare equal, and compared segment by segment.
 * Pure: used by the crosswalk and by artifact recommendations (requested standards against an artifact's).
 */

/** Separators publishers put between the segments of a code; all become one dot. */
const SEPARATORS = /[\s._\-/:|,;()[\]]+/g;

/** A segment that names a grade: digits, or kindergarten and pre-kindergarten letters. */
const GRADE_SEGMENT = /^(?:\d{1,2}|K|KG|PK|TK)$/;

/** A segment made of letters only (a domain such as RP, NBT, RL). */
const LETTER_SEGMENT = /^\p{L}+$/u;

/**
 * The normalized form of a code: Unicode NFKC, upper case, every run of separators one dot, no leading or trailing
 * dot, and no leading zeros in numeric segments ("06" is "6"). Null when nothing is left.
 */
export function normalizeCode(raw: string | undefined | null): string | null {
  if (raw === undefined || raw === null) return null;
  const joined = raw.normalize('NFKC').toUpperCase().replace(SEPARATORS, '.').replace(/^\.+|\.+$/g, '');
  if (joined === '') return null;
  return joined
    .split('.')
    .map((segment) => (/^\d+$/.test(segment) ? String(Number.parseInt(segment, 10)) : segment))
    .join('.');
}

/** The segments of a normalized code. */
export function segmentsOf(normalized: string): string[] {
  return normalized.split('.');
}

/** How two codes compare; `missing` when either side has none (not evidence either way). */
export type CodeMatch = 'exact' | 'suffix' | 'partial' | 'different' | 'missing';

/** The score each kind of code match contributes, before the partial share. */
export const CODE_SCORES: Readonly<Record<Exclude<CodeMatch, 'partial'>, number>> = { exact: 1, suffix: 0.85, different: 0, missing: 0.5 };

/** What a partial match is worth at most (scaled by the share of aligned segments). */
const PARTIAL_CEILING = 0.6;

/** True when the longer list of segments ends with every segment of the shorter one, which has at least two. */
function endsWith(longer: readonly string[], shorter: readonly string[]): boolean {
  if (shorter.length < 2 || shorter.length > longer.length) return false;
  const offset = longer.length - shorter.length;
  return shorter.every((segment, k) => longer[offset + k] === segment);
}

/** Length of the longest common subsequence of two short lists of segments. */
function commonSubsequence(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const current = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) current[j + 1] = x === b[j] ? previous[j]! + 1 : Math.max(previous[j + 1]!, current[j]!);
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Compares two normalized codes as segments: `exact` when equal; `suffix` when one ends with all of the other (a
 * publisher's prefix such as CCSS.MATH.CONTENT); `partial` when the last segments agree and at least two segments
 * align in order (6.RP.A.1 against 6.RP.1), worth up to 0.6 by the aligned share; otherwise `different`. Siblings
 * (6.RP.A.1 against 6.RP.A.2) differ in their last segment and are `different`.
 */
export function compareCodes(a: readonly string[] | null, b: readonly string[] | null): { match: CodeMatch; score: number } {
  if (a === null || b === null) return { match: 'missing', score: CODE_SCORES.missing };
  if (a.length === b.length && a.every((segment, k) => segment === b[k])) return { match: 'exact', score: CODE_SCORES.exact };
  if (endsWith(a, b) || endsWith(b, a)) return { match: 'suffix', score: CODE_SCORES.suffix };
  if (a[a.length - 1] === b[b.length - 1]) {
    const aligned = commonSubsequence(a, b);
    if (aligned >= 2) return { match: 'partial', score: Math.round((PARTIAL_CEILING * aligned * 10_000) / Math.max(a.length, b.length)) / 10_000 };
  }
  return { match: 'different', score: CODE_SCORES.different };
}

/** A code without the publisher's prefix: from its first grade segment on (CCSS.MATH.CONTENT.6.RP.A is 6.RP.A). */
function coreOf(segments: readonly string[]): readonly string[] {
  const grade = segments.findIndex((segment) => GRADE_SEGMENT.test(segment));
  return grade > 0 ? segments.slice(grade) : segments;
}

/**
 * True when one code is the other's ancestor in the coding scheme: after any publisher prefix, the shorter one (of at
 * least two segments) is a leading part of the longer one (6.RP.A against 6.RP.A.1, CCSS.MATH.CONTENT.6.RP against 6.RP.A.1).
 */
export function isCodeAncestor(a: readonly string[], b: readonly string[]): boolean {
  const [x, y] = [coreOf(a), coreOf(b)];
  const [shorter, longer] = x.length <= y.length ? [x, y] : [y, x];
  return shorter.length >= 2 && shorter.length < longer.length && shorter.every((segment, k) => longer[k] === segment);
}

/** Every suffix of at least two segments of a code, the whole code included, joined with dots. */
export function codeSuffixes(segments: readonly string[]): string[] {
  const suffixes: string[] = [];
  for (let start = 0; start <= segments.length - 2; start++) suffixes.push(segments.slice(start).join('.'));
  return suffixes;
}

/**
 * The domain a code names, when its scheme says: the segment of letters right after the first grade segment
 * (6.RP.A.1 and MA.6.RP.1.1 name RP, K.CC.1 names CC). Null when the code has no grade segment so followed.
 */
export function codeDomain(segments: readonly string[]): string | null {
  const grade = segments.findIndex((segment) => GRADE_SEGMENT.test(segment));
  if (grade < 0) return null;
  const next = segments[grade + 1];
  return next !== undefined && LETTER_SEGMENT.test(next) && !GRADE_SEGMENT.test(next) ? next : null;
}
