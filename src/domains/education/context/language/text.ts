/**
 * The text model the learner-specific language detector reads: normalized text cut into tokens and sentences in one
 * pass. Everything here is linear in the input: each character is looked at a constant number of times and no
 * regular expression runs over more than one character.
 */

/** What a token is. `number` tokens are runs of decimal digits; `punct` tokens are one character each. */
export type TokenKind = 'word' | 'number' | 'punct';

/** One token of the normalized text. */
export interface Token {
  /** As written (after normalization); a possessive `'s` or trailing `'` is not part of it. */
  text: string;
  /** `text` in lower case: what the word lists are keyed by. */
  lower: string;
  kind: TokenKind;
  /** First character upper case, at least one lower-case letter after it (`Maria`, not `IEP` or `A`). */
  capitalized: boolean;
  /** Two or more letters, all upper case (`IEP`, `ADD`). */
  allCaps: boolean;
  /** Written with a possessive `'s` (or `s'`): `Maria's`. */
  possessive: boolean;
  /** White space (or the start of the text) comes right before it. */
  spaceBefore: boolean;
  /** The first word or number of its sentence. */
  sentenceStart: boolean;
  /** Which sentence it belongs to (0, 1, ...). */
  sentence: number;
}

// Format characters (zero-width space and joiner, soft hyphen, bidirectional marks) are invisible: removed so that
// `M\u200Baria` reads as `Maria`. Letters of other scripts that look like Latin ones are not mapped (docs/education.md).
const FORMAT_CHARACTER = /\p{Cf}/u;
const LETTER = /[\p{L}\p{M}]/u;
const DIGIT = /\p{Nd}/u;
const UPPER = /\p{Lu}/u;
const LOWER = /\p{Ll}/u;
const APOSTROPHES = new Set(["'", '\u2019', '\u2018', '\u02bc']);

/**
 * Text as the detector reads it: Unicode NFKC (full-width and styled letters become plain ones: `Ｍａｒｉａ` is `Maria`),
 * without format characters, with every apostrophe written `'`.
 */
export function normalizeText(text: string): string {
  let out = '';
  for (const char of text.normalize('NFKC')) {
    if (FORMAT_CHARACTER.test(char)) continue;
    out += APOSTROPHES.has(char) ? "'" : char;
  }
  return out;
}

// Abbreviations after which a full stop does not end a sentence (`Ms. Rivera`, `e.g. visuals`).
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'mx', 'dr', 'prof', 'st', 'jr', 'sr', 'vs', 'etc', 'approx']);
const ALWAYS_ENDS = new Set(['!', '?', ';', '\n', '\u2022']);

function isSpace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\r' || char === '\n' || /\s/u.test(char);
}

interface Draft {
  text: string;
  kind: TokenKind;
  spaceBefore: boolean;
  possessive: boolean;
}

/** Cuts normalized text into word, number and punctuation tokens (newlines are kept as punctuation: they end sentences). */
function draftTokens(text: string): Draft[] {
  const chars = Array.from(text);
  const drafts: Draft[] = [];
  let spaceBefore = true;
  let i = 0;
  while (i < chars.length) {
    const char = chars[i]!;
    if (char === '\n') {
      drafts.push({ text: '\n', kind: 'punct', spaceBefore, possessive: false });
      spaceBefore = true;
      i += 1;
      continue;
    }
    if (isSpace(char)) {
      spaceBefore = true;
      i += 1;
      continue;
    }
    if (LETTER.test(char)) {
      let word = '';
      let possessive = false;
      while (i < chars.length) {
        const c = chars[i]!;
        if (LETTER.test(c)) {
          word += c;
          i += 1;
        } else if (c === "'" && i + 1 < chars.length && LETTER.test(chars[i + 1]!)) {
          // `'s` ending the word is a possessive (or `is`); any other letters after an apostrophe belong to the word.
          const next = chars[i + 1]!;
          const after = chars[i + 2];
          if ((next === 's' || next === 'S') && (after === undefined || !LETTER.test(after))) {
            possessive = true;
            i += 2;
            break;
          }
          word += c;
          i += 1;
        } else if (c === "'" && (word.endsWith('s') || word.endsWith('S'))) {
          possessive = true; // `students'`
          i += 1;
          break;
        } else break;
      }
      drafts.push({ text: word, kind: 'word', spaceBefore, possessive });
    } else if (DIGIT.test(char)) {
      let digits = '';
      while (i < chars.length && DIGIT.test(chars[i]!)) digits += chars[i++]!;
      drafts.push({ text: digits, kind: 'number', spaceBefore, possessive: false });
    } else {
      drafts.push({ text: char, kind: 'punct', spaceBefore, possessive: false });
      i += 1;
    }
    spaceBefore = false;
  }
  return drafts;
}

function endsSentence(drafts: Draft[], index: number): boolean {
  const token = drafts[index]!;
  if (ALWAYS_ENDS.has(token.text)) return true;
  if (token.text !== '.') return false;
  const next = drafts[index + 1];
  // A full stop inside a chunk (`2.5`, `school.org`, `D.O.B`) ends nothing; one before white space or the end does,
  // unless it closes an abbreviation or an initial.
  if (next && !next.spaceBefore) return false;
  const previous = drafts[index - 1];
  if (previous?.kind === 'word' && (ABBREVIATIONS.has(previous.text.toLowerCase()) || Array.from(previous.text).length === 1)) {
    return false;
  }
  return true;
}

/** The tokens of a text (normalize it first), each knowing its sentence. */
export function tokenize(normalized: string): Token[] {
  const drafts = draftTokens(normalized);
  const tokens: Token[] = [];
  let sentence = 0;
  let startPending = true;
  for (let i = 0; i < drafts.length; i += 1) {
    const draft = drafts[i]!;
    const chars = Array.from(draft.text);
    const letters = chars.filter((c) => LETTER.test(c));
    const first = chars[0] ?? '';
    const isWordOrNumber = draft.kind !== 'punct';
    tokens.push({
      text: draft.text,
      lower: draft.text.toLowerCase(),
      kind: draft.kind,
      capitalized: draft.kind === 'word' && UPPER.test(first) && chars.slice(1).some((c) => LOWER.test(c)),
      allCaps: draft.kind === 'word' && letters.length >= 2 && letters.every((c) => !LOWER.test(c)),
      possessive: draft.possessive,
      spaceBefore: draft.spaceBefore,
      sentenceStart: isWordOrNumber && startPending,
      sentence,
    });
    if (isWordOrNumber) startPending = false;
    if (endsSentence(drafts, i)) {
      sentence += 1;
      startPending = true;
    }
  }
  return tokens;
}
