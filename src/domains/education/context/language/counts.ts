/**
 * The learner-count rule: a count of one to four written before a learner noun (`1 student`, `two of my students`,
 * `3-4 learners`). One or two is a learner-specific statement; three or four is a group below the minimum of five.
 * Grade labels (`grade 2 students`, `K-2 learners`, `Tier 2 students`), ratios (`1 in 4 students`), group sizes
 * (`groups of 4 students`) and distributive wording (`one student at a time`, `two students per laptop`) are not counts.
 */
import { COUNT_WORDS, DISTRIBUTIVE_BEFORE, GROUPING_NOUNS, LEARNER_PLURAL, LEARNER_SINGULAR, NUMBER_LABELS, TENS_WORDS } from './lexicon.ts';
import type { Findings } from './rules.ts';
import type { Token } from './text.ts';

// Words that end the backward look from a learner noun to its count: the count, if any, is not this noun's.
const BLOCKERS = new Set([
  'a', 'an', 'and', 'or', 'with', 'for', 'to', 'in', 'on', 'at', 'by', 'than', 'per', 'each', 'every', 'all', 'no',
  'any', 'some', 'many', 'several', 'few', 'most', 'more', 'less', 'fewer', 'who', 'that', 'which', 'are', 'is',
]);
const DETERMINERS_AFTER_OF = new Set(['the', 'these', 'those', 'my', 'our', 'your', 'their']);
const RANGE_JOINERS = new Set(['-', '\u2013', 'to', 'or']);
/** How many tokens back from the noun a count may be (`two of our newest students`). */
const LOOK_BACK = 5;

function countValue(token: Token | undefined): number | undefined {
  if (!token) return undefined;
  if (token.kind === 'number') return /^[0-9]+$/.test(token.text) ? Number(token.text) : undefined;
  return token.kind === 'word' ? COUNT_WORDS.get(token.lower) : undefined;
}

/** The index of the count that belongs to the learner noun at `noun`, if there is one. */
function countBefore(tokens: Token[], noun: number): number | undefined {
  const sentence = tokens[noun]!.sentence;
  for (let k = noun - 1; k >= 0 && k >= noun - LOOK_BACK; k -= 1) {
    const token = tokens[k]!;
    if (token.sentence !== sentence) return undefined;
    if (countValue(token) !== undefined) return k;
    if (token.lower === 'of') return countValue(tokens[k - 1]) !== undefined ? k - 1 : undefined;
    if (token.text === '-') continue;
    if (token.kind !== 'word' || BLOCKERS.has(token.lower)) return undefined;
    // Any other word is taken as a modifier (`two new students`) or a determiner after `of` (`two of the students`).
    if (DETERMINERS_AFTER_OF.has(token.lower) && tokens[k - 1]?.lower !== 'of') return undefined;
  }
  return undefined;
}

const isLabel = (token: Token | undefined): boolean => token !== undefined && (NUMBER_LABELS.has(token.lower) || token.text === '#');

/** True when the count at `count` names something other than a group of learners. */
function notAGroupCount(tokens: Token[], count: number, noun: number): boolean {
  const countToken = tokens[count]!;
  const after = tokens[count + 1];
  // `1st grade students`, `2nd-grade learners`, `1/2 of the students`, `1:1`, `20%`.
  if (countToken.kind === 'number' && after && !after.spaceBefore && (after.kind === 'word' || ['/', ':', '%', '.'].includes(after.text))) {
    return true;
  }
  let start = count;
  const joiner = tokens[count - 1];
  if (joiner && RANGE_JOINERS.has(joiner.lower)) {
    const first = tokens[count - 2];
    if (first && (joiner.text === '-' || joiner.text === '\u2013') && TENS_WORDS.has(first.lower)) return true; // twenty-one
    if (countValue(first) !== undefined) start = count - 2;
  }
  const before = tokens[start - 1];
  const beforeThat = tokens[start - 2];
  if (isLabel(before)) return true;
  if (before && ['-', '\u2013', '/'].includes(before.text) && isLabel(beforeThat)) return true; // K-2, KS-2
  if (before?.text === '/') return true;
  if (before && (DISTRIBUTIVE_BEFORE.has(before.lower) || before.lower === 'than')) return true;
  // `Each table has four students`: a count per something is a group's size.
  for (let k = start - 1; k >= 0 && k >= start - 3 && tokens[k]!.sentence === countToken.sentence; k -= 1) {
    if (DISTRIBUTIVE_BEFORE.has(tokens[k]!.lower) && tokens[k]!.lower !== 'in' && tokens[k + 1]?.lower !== 'of') return true;
  }
  if (before?.lower === 'of' && beforeThat && (beforeThat.lower === 'out' || GROUPING_NOUNS.has(beforeThat.lower) || beforeThat.lower === 'every')) {
    return true;
  }
  const next = tokens[noun + 1];
  if (next?.lower === 'per') return true;
  if (next?.lower === 'at' && tokens[noun + 2]?.lower === 'a' && tokens[noun + 3]?.lower === 'time') return true;
  if (next?.lower === 'to' && ['a', 'an', 'each', 'every'].includes(tokens[noun + 2]?.lower ?? '')) return true;
  return false;
}

/** Adds `learner_count_one_or_two` or `small_group_count` for each count of one to four learners. */
export function findLearnerCounts(tokens: Token[], findings: Findings): void {
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind !== 'word' || !(LEARNER_SINGULAR.has(token.lower) || LEARNER_PLURAL.has(token.lower))) continue;
    if (tokens[i + 1]?.text === '-' && !tokens[i + 1]!.spaceBefore) continue; // `two student-led groups`
    const count = countBefore(tokens, i);
    if (count === undefined) continue;
    const value = countValue(tokens[count])!;
    if (value < 1 || value > 4 || notAGroupCount(tokens, count, i)) continue;
    findings.add(value <= 2 ? 'learner_count_one_or_two' : 'small_group_count');
  }
}
