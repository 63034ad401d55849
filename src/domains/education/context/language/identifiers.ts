/**
 * Identifier rules: e-mail addresses, phone numbers, identification numbers and dates of birth. Each scans the text
 * or its tokens once, looking a constant number of tokens ahead.
 */
import { ID_NUMBER_OWNERS, ID_WORDS, MONTHS } from './lexicon.ts';
import type { Findings } from './rules.ts';
import type { Token } from './text.ts';

const LOCAL_PART = /[\p{L}\p{Nd}._%+-]/u;
const DOMAIN_PART = /[\p{L}\p{Nd}.-]/u;
const LETTER = /\p{L}/u;

/**
 * True when the text holds `local@domain.tld`. Each `@` scans left over the local part and right over the domain;
 * neither scan crosses another `@`, so every character is read at most twice.
 */
export function hasEmailAddress(text: string): boolean {
  const chars = Array.from(text);
  for (let at = 0; at < chars.length; at += 1) {
    if (chars[at] !== '@') continue;
    let left = at - 1;
    while (left >= 0 && LOCAL_PART.test(chars[left]!)) left -= 1;
    if (left === at - 1) continue;
    let right = at + 1;
    while (right < chars.length && DOMAIN_PART.test(chars[right]!)) right += 1;
    let end = right;
    while (end > at + 1 && chars[end - 1] === '.') end -= 1; // a full stop after the address ends the sentence
    const labels = chars.slice(at + 1, end).join('').split('.');
    const top = labels[labels.length - 1] ?? '';
    if (labels.length >= 2 && labels[0] !== '' && Array.from(top).length >= 2 && Array.from(top).every((c) => LETTER.test(c))) {
      return true;
    }
  }
  return false;
}

const isNumber = (token: Token | undefined): boolean => token?.kind === 'number';

/**
 * Phone numbers: digit groups joined by spaces, hyphens, full stops or parentheses that read as one: `555-123-4567`,
 * `(555) 123 4567`, `+44 20 7946 0958`, `555-1234`. Year spans (`2023-2024`) and score lists (`10 20 30`) are not.
 */
function findPhoneNumber(tokens: Token[], findings: Findings): void {
  let i = 0;
  while (i < tokens.length) {
    const start = i;
    let pos = i;
    const plus = tokens[pos]?.text === '+' && isNumber(tokens[pos + 1]) && !tokens[pos + 1]!.spaceBefore;
    if (plus) pos += 1;
    const groups: number[] = [];
    let joinedOnlyBySpaces = true;
    for (;;) {
      if (tokens[pos]?.text === '(' && isNumber(tokens[pos + 1])) pos += 1;
      const group = tokens[pos];
      if (!isNumber(group)) break;
      groups.push(group!.text.length);
      pos += 1;
      const closed = tokens[pos]?.text === ')';
      if (closed) pos += 1;
      const separator = tokens[pos];
      if ((separator?.text === '-' || separator?.text === '.') && (isNumber(tokens[pos + 1]) || tokens[pos + 1]?.text === '(')) {
        joinedOnlyBySpaces = false;
        pos += 1;
      } else if (!(separator && (isNumber(separator) || separator.text === '(') && (separator.spaceBefore || closed))) break;
    }
    const total = groups.reduce((sum, n) => sum + n, 0);
    const last = groups[groups.length - 1];
    const beforeLast = groups[groups.length - 2];
    const shortGroups = groups.every((n) => n <= 4);
    if (
      (plus && groups.length >= 2 && total >= 8 && total <= 15) ||
      (shortGroups && groups.length >= 3 && last === 4 && beforeLast === 3 && total >= 10 && total <= 15) ||
      (groups.length === 2 && last === 4 && beforeLast === 3 && !joinedOnlyBySpaces)
    ) {
      findings.add('phone_number');
    }
    i = Math.max(pos, start + 1);
  }
}

const ID_FILLERS = new Set([':', '#', '-', '=', '.', 'is', 'no', 'number', 'num', 'nr']);

/** `ID 4471203`, `student number: 12`, `SSN`, any run of six or more digits. */
function findIdentificationNumber(tokens: Token[], findings: Findings): void {
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind === 'number' && token.text.length >= 6) findings.add('identification_number');
    if (token.kind !== 'word') continue;
    const next = tokens[i + 1];
    if (token.lower === 'social' && next?.lower === 'security') findings.add('identification_number');
    if (token.lower === 'ssn') findings.add('identification_number');
    const idWord =
      ID_WORDS.has(token.lower) ||
      (ID_NUMBER_OWNERS.has(token.lower) && (next?.lower === 'number' || next?.lower === 'no' || next?.text === '#'));
    if (!idWord) continue;
    for (let j = i + 1; j <= i + 3 && j < tokens.length; j += 1) {
      const ahead = tokens[j]!;
      // `4471203`, or a code with a letter prefix (`A77`, `S-1234`).
      const joined = tokens[j + 1];
      const prefixed = ahead.kind === 'word' && ahead.text.length <= 3 && joined !== undefined && !joined.spaceBefore && (joined.kind === 'number' || (joined.text === '-' && isNumber(tokens[j + 2])));
      if (ahead.kind === 'number' || prefixed) {
        findings.add('identification_number');
        break;
      }
      if (!ID_FILLERS.has(ahead.lower)) break;
    }
  }
}

/** A date starts at `index`: a month name, or digits joined to digits by `/`, `-` or `.` (`3/14/2012`). */
function isDateAt(tokens: Token[], index: number, yearCounts: boolean): boolean {
  const token = tokens[index];
  if (!token) return false;
  if (token.kind === 'word') return MONTHS.has(token.lower) && (token.lower !== 'may' || token.capitalized);
  if (token.kind !== 'number') return false;
  const joiner = tokens[index + 1];
  if (joiner && !joiner.spaceBefore && ['/', '-', '.'].includes(joiner.text) && isNumber(tokens[index + 2]) && !tokens[index + 2]!.spaceBefore) {
    return true;
  }
  const year = Number(token.text);
  return yearCounts && token.text.length === 4 && year >= 1900 && year <= 2099;
}

/** `DOB`, `D.O.B.`, `date of birth`, `birthdate`, `born on 3/4/2012`, `born in 2012`, `birthday: May 3`. */
function findDateOfBirth(tokens: Token[], findings: Findings): void {
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (token.kind !== 'word') continue;
    const lower = token.lower;
    const spelled = (k: number, letter: string) => tokens[i + k]?.lower === letter;
    if (lower === 'dob' || lower === 'birthdate') findings.add('date_of_birth');
    if (lower === 'd' && spelled(1, '.') && spelled(2, 'o') && spelled(3, '.') && spelled(4, 'b')) findings.add('date_of_birth');
    if (lower === 'date' && spelled(1, 'of') && spelled(2, 'birth')) findings.add('date_of_birth');
    if (lower === 'birth' && spelled(1, 'date')) findings.add('date_of_birth');
    if (lower === 'born' || lower === 'birthday') {
      for (let j = i + 1; j <= i + 4 && j < tokens.length; j += 1) {
        if (isDateAt(tokens, j, lower === 'born')) {
          findings.add('date_of_birth');
          break;
        }
      }
    }
  }
}

/** Runs the identifier rules over the normalized text and its tokens. */
export function findIdentifiers(normalized: string, tokens: Token[], findings: Findings): void {
  if (hasEmailAddress(normalized)) findings.add('email_address');
  findPhoneNumber(tokens, findings);
  findIdentificationNumber(tokens, findings);
  findDateOfBirth(tokens, findings);
}
