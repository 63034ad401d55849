/**
 * Grade levels (CASE `educationLevel`) and subjects, normalized so that frameworks that spell them differently
 * compare equal, and compared as sets. Pure.
 */

/** Grade numbers: -1 pre-kindergarten, 0 kindergarten, 1 to 13 the grades. */
const PRE_K = -1;

/** Labels of bands that stand for several grades. */
const BANDS: Readonly<Record<string, readonly number[]>> = {
  HS: [9, 10, 11, 12],
  MS: [6, 7, 8],
  ES: [0, 1, 2, 3, 4, 5],
};

/** Words for kindergarten and pre-kindergarten, as CEDS and publishers write them. */
const NAMED: Readonly<Record<string, number>> = { PK: PRE_K, PREK: PRE_K, 'PRE-K': PRE_K, PRESCHOOL: PRE_K, PR: PRE_K, K: 0, KG: 0, TK: 0, KINDERGARTEN: 0 };

/** A number of a grade label: "06", "6", "Grade 6", "6th grade", "KG". */
function gradeNumber(label: string): number | undefined {
  if (label in NAMED) return NAMED[label];
  const match = /^(?:GRADE)?(\d{1,2})(?:ST|ND|RD|TH)?(?:GRADE)?$/.exec(label);
  if (!match) return undefined;
  const n = Number.parseInt(match[1]!, 10);
  return n <= 13 ? n : undefined;
}

/** The grades of a set of education levels: numbers where known, other labels (PS, AE, UG...) kept as they are. */
export interface GradeSet {
  numbers: readonly number[];
  labels: readonly string[];
  /** Every grade as a label (see gradeLabels), computed once: what comparisons and answers use. */
  all: readonly string[];
}

/** Normalizes CASE education levels: "KG", "01" to "12", ranges such as "9-12" or "K-2", and bands HS, MS, ES. */
export function gradesOf(levels: readonly string[] | undefined): GradeSet {
  const numbers = new Set<number>();
  const labels = new Set<string>();
  for (const raw of levels ?? []) {
    const label = raw.normalize('NFKC').toUpperCase().replace(/[\s_.]+/g, '');
    if (label === '') continue;
    const band = BANDS[label];
    const range = /^(\w+?)[-–—](\w+)$/.exec(label);
    const single = gradeNumber(label);
    if (band) band.forEach((n) => numbers.add(n));
    else if (single !== undefined) numbers.add(single);
    else if (range && gradeNumber(range[1]!) !== undefined && gradeNumber(range[2]!) !== undefined) {
      const [from, to] = [gradeNumber(range[1]!)!, gradeNumber(range[2]!)!];
      for (let n = Math.min(from, to); n <= Math.max(from, to); n++) numbers.add(n);
    } else labels.add(label);
  }
  const sortedNumbers = [...numbers].sort((a, b) => a - b);
  const sortedLabels = [...labels].sort();
  return { numbers: sortedNumbers, labels: sortedLabels, all: gradeLabels(sortedNumbers, sortedLabels) };
}

/** Grades as labels for people: PK, K, 1...13, then the other labels. */
function gradeLabels(numbers: readonly number[], labels: readonly string[]): string[] {
  return [...numbers.map((n) => (n === PRE_K ? 'PK' : n === 0 ? 'K' : String(n))), ...labels];
}

/** True when a grade set says nothing. */
export function isUnknownGrades(grades: GradeSet): boolean {
  return grades.all.length === 0;
}

/** How two grade sets compare. */
export type GradeMatch = 'same' | 'overlap' | 'adjacent' | 'disjoint' | 'unknown';

/**
 * `same` (1) when equal; `overlap` (0.5 plus half the Jaccard share) when they share a grade; `adjacent` (0.3) when
 * the nearest grades are one apart; `disjoint` (0); `unknown` (0.5, no evidence either way) when either is empty.
 */
export function compareGrades(a: GradeSet, b: GradeSet): { match: GradeMatch; score: number } {
  if (isUnknownGrades(a) || isUnknownGrades(b)) return { match: 'unknown', score: 0.5 };
  const shared = a.all.filter((label) => b.all.includes(label)).length;
  if (shared === a.all.length && shared === b.all.length) return { match: 'same', score: 1 };
  if (shared > 0) {
    const jaccard = shared / (a.all.length + b.all.length - shared);
    return { match: 'overlap', score: Math.round((0.5 + jaccard / 2) * 10_000) / 10_000 };
  }
  const near = a.numbers.some((x) => b.numbers.some((y) => Math.abs(x - y) === 1));
  return near ? { match: 'adjacent', score: 0.3 } : { match: 'disjoint', score: 0 };
}

/** Subject names that mean the same subject. */
const SUBJECT_ALIASES: Readonly<Record<string, string>> = {
  math: 'mathematics',
  maths: 'mathematics',
  ela: 'english language arts',
  'english language arts literacy': 'english language arts',
  'english language arts and literacy': 'english language arts',
  english: 'english language arts',
  literacy: 'english language arts',
  'reading language arts': 'english language arts',
  sci: 'science',
  'social science': 'social studies',
  'social sciences': 'social studies',
  history: 'social studies',
};

/** Normalizes subject names: NFKD without marks, lower case, words only, aliases folded; unique and sorted. */
export function subjectsOf(subjects: readonly string[] | undefined): string[] {
  const names = new Set<string>();
  for (const raw of subjects ?? []) {
    const name = raw
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '')
      .toLowerCase()
      .replace(/&/g, ' and ')
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .join(' ');
    if (name !== '') names.add(SUBJECT_ALIASES[name] ?? name);
  }
  return [...names].sort();
}

/** How two subject sets compare: `same` (1) when they share one, `different` (0), `unknown` (0.5) when either is empty. */
export function compareSubjects(a: readonly string[], b: readonly string[]): { match: 'same' | 'different' | 'unknown'; score: number } {
  if (a.length === 0 || b.length === 0) return { match: 'unknown', score: 0.5 };
  return a.some((name) => b.includes(name)) ? { match: 'same', score: 1 } : { match: 'different', score: 0 };
}
