/**
 * Record terms: words and short phrases of a learner record (plans and diagnoses, results, circumstances). Alone they
 * are class-level vocabulary (`students with IEPs`); tied to a person in the same sentence they are a record
 * (people.ts decides the tie).
 */
import {
  CAPITALS_ONLY_TERMS,
  GRADE_VERBS,
  LONGEST_RECORD_TERM,
  MARK_GRADE_BEFORE,
  NOT_A_PLAN_BEFORE_504,
  RECORD_TERMS,
  type RecordFamily,
} from './lexicon.ts';
import type { Token } from './text.ts';

const LETTER_GRADES = new Set(['A', 'B', 'C', 'D', 'E', 'F']);

/** The phrase of record terms that starts at `index` (`special education`, `special-education`), if any. */
function phraseAt(tokens: Token[], index: number): RecordFamily | undefined {
  const words: string[] = [];
  let found: RecordFamily | undefined;
  for (let k = index; k < tokens.length && words.length < LONGEST_RECORD_TERM; k += 1) {
    const token = tokens[k]!;
    if (token.kind === 'punct' && (token.text === '-' || token.text === '/') && words.length > 0) continue;
    if (token.kind !== 'word') break;
    words.push(token.lower);
    found = RECORD_TERMS.get(words.join(' ')) ?? found;
    if (token.possessive || token.sentence !== tokens[index]!.sentence) break;
  }
  return found;
}

/** The record family the token at `index` starts, if it starts one. */
function familyAt(tokens: Token[], index: number): RecordFamily | undefined {
  const token = tokens[index]!;
  const previous = tokens[index - 1];
  const next = tokens[index + 1];
  if (token.kind === 'number') {
    if (token.text === '504' && !(previous && NOT_A_PLAN_BEFORE_504.has(previous.lower))) return 'plan_or_diagnosis';
    // `45%`, `12/20`, `out of 20`: a mark.
    if (next?.text === '%' && !next.spaceBefore) return 'result';
    if (next?.text === '/' && !next.spaceBefore && tokens[index + 2]?.kind === 'number' && !tokens[index + 2]!.spaceBefore) {
      const [over, under] = [Number(token.text), Number(tokens[index + 2]!.text)];
      if (over <= under && under <= 1000) return 'result';
    }
    return undefined;
  }
  if (token.kind !== 'word') return undefined;
  if (token.allCaps && CAPITALS_ONLY_TERMS.has(token.lower)) return CAPITALS_ONLY_TERMS.get(token.lower);
  if (token.lower === 'grade' && ((previous && MARK_GRADE_BEFORE.has(previous.lower)) || next?.lower === 'of')) return 'result';
  if (token.lower === 'out' && next?.lower === 'of' && tokens[index + 2]?.kind === 'number') return 'result';
  // `got a D`, `earned an F`.
  if (GRADE_VERBS.has(token.lower) && (next?.lower === 'a' || next?.lower === 'an') && LETTER_GRADES.has(tokens[index + 2]?.text ?? '')) {
    return 'result';
  }
  return phraseAt(tokens, index);
}

/** For each token, the record family of the term it starts (undefined for most tokens). */
export function recordFamilies(tokens: Token[]): (RecordFamily | undefined)[] {
  return tokens.map((_, index) => familyAt(tokens, index));
}
