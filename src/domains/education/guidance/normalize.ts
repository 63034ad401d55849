/**
 * Text normalization for the answer check (safety.ts): two texts that say the same answer in different case, spacing,
 * punctuation, accents or number spelling normalize to the same tokens. English number words become digits
 * ("forty-two" and "42" are both `42`; "one hundred and five" is `105`); thousands separators are dropped ("1,000" is
 * `1000`) and a decimal point between digits is kept ("3.5"). Pure.
 */

const UNITS: Readonly<Record<string, number>> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Readonly<Record<string, number>> = {
  twenty: 20, thirty: 30, forty: 40, fourty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90,
};
const SCALES: Readonly<Record<string, number>> = { thousand: 1_000, million: 1_000_000, billion: 1_000_000_000 };

function isNumberWord(token: string): boolean {
  return token in UNITS || token in TENS || token === 'hundred' || token in SCALES;
}

/** Lowercase, accents removed (NFKD without combining marks), digit groups joined: the raw tokens of a text. */
function rawTokens(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    // 1,000,000 -> 1000000 (a comma between a digit and exactly three digits is a thousands separator).
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1');
  // A token is a run of letters and digits, or a decimal number (digits, a point, digits).
  return folded.match(/\d+\.\d+|[\p{L}\p{N}]+/gu) ?? [];
}

/** Reads a run of number words starting at `start`: its value and how many tokens it took (0 when none). */
function readNumber(tokens: readonly string[], start: number): { value: number; length: number } {
  let total = 0;
  let current = 0;
  let length = 0;
  let lastWord = start;
  let seen = false;
  // What the last word was: a unit or tens word cannot follow a unit ("seven eight" is two numbers, not 15).
  let last: 'unit' | 'tens' | 'scale' | 'none' = 'none';
  for (let i = start; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    // "and" joins parts of one number only between number words ("one hundred and five").
    if (token === 'and' && seen && i + 1 < tokens.length && isNumberWord(tokens[i + 1]!)) continue;
    if (token in UNITS) {
      if (last === 'unit') break;
      current += UNITS[token]!;
      last = 'unit';
    } else if (token in TENS) {
      if (last === 'unit' || last === 'tens') break;
      current += TENS[token]!;
      last = 'tens';
    } else if (token === 'hundred') {
      current = (current === 0 ? 1 : current) * 100;
      last = 'scale';
    } else if (token in SCALES) {
      total += (current === 0 ? 1 : current) * SCALES[token]!;
      current = 0;
      last = 'scale';
    } else break;
    seen = true;
    lastWord = i;
  }
  if (seen) length = lastWord - start + 1;
  return { value: total + current, length };
}

/** The normalized tokens of a text: see the module comment. */
export function normalizedTokens(text: string): string[] {
  const tokens = rawTokens(text);
  const out: string[] = [];
  for (let i = 0; i < tokens.length; ) {
    const number = readNumber(tokens, i);
    if (number.length > 0) {
      out.push(String(number.value));
      i += number.length;
    } else {
      out.push(tokens[i]!);
      i += 1;
    }
  }
  return out;
}

/** The normalized text: its tokens joined by single spaces. */
export function normalizedText(text: string): string {
  return normalizedTokens(text).join(' ');
}

/** Whether `needle` occurs in `haystack` as a contiguous run of whole tokens. */
export function containsTokens(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0 || needle.length > haystack.length) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i += 1) {
    for (let j = 0; j < needle.length; j += 1) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * Whether consecutive tokens of `haystack`, written together, spell `joined` exactly: "photo synthesis",
 * "photo-synthesis" and "p h o t o s y n t h e s i s" all spell "photosynthesis"; "education" never spells "cat"
 * (a run starts and ends on token boundaries).
 */
export function spellsTokens(haystack: readonly string[], joined: string): boolean {
  if (joined === '') return false;
  for (let i = 0; i < haystack.length; i += 1) {
    let run = '';
    for (let j = i; j < haystack.length && run.length < joined.length; j += 1) {
      run += haystack[j]!;
      if (run === joined) return true;
      if (!joined.startsWith(run)) break;
    }
  }
  return false;
}
