/**
 * Terms of a standard's statement, for comparing statements without keeping them: a statement becomes a set of
 * normalized terms (no order, no stop words), and only those sets are compared. Pure and deterministic.
 */

/** Frequent English words that say nothing about what a standard is about. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all also an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each either etc every few for from further given had has have having how i if in into ' +
    'is it its itself just may more most must no nor not of off on once one only or other our out over own same should so some ' +
    'such than that the their them then there these they this those through to too under until up use used using very via was ' +
    'we were what when where which while who whom why will with within without would e g eg ie including include includes ' +
    'student students learner learners able understand understanding demonstrate know knowledge skill skills'
  ).split(' '),
);

/**
 * A light, deterministic stemmer: folds plural and verb endings that most often separate two wordings of one idea
 * (ratios/ratio, representing/represent, solved/solve). It is no linguistic stemmer and needs none: both sides of a
 * comparison are folded the same way.
 */
export function stem(word: string): string {
  if (/^\d+$/.test(word)) return word;
  let w = word;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/**
 * The terms of a text: Unicode NFKD without combining marks, lower case, split at every character that is not a
 * letter or a digit, stop words and one-letter words dropped, each word stemmed; unique and sorted by code unit.
 */
export function termsOf(text: string): string[] {
  const words = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  const terms = new Set<string>();
  for (const word of words) {
    if (word.length < 2 && !/^\d$/.test(word)) continue;
    if (STOP_WORDS.has(word)) continue;
    terms.add(stem(word));
  }
  return [...terms].sort();
}

/**
 * Orders strings by UTF-16 code units, as every sort of this domain does (never by locale). A list of strings is
 * sorted with the default `sort()`, which orders them the same way, natively.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
