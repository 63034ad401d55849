import { KgateError } from '../../kernel/errors.ts';
import { MAX_QUERY_CHARS } from './contract.ts';
import { words } from './tokenizer.ts';

/** Most distinct words a query may hold. */
export const MAX_QUERY_WORDS = 32;

/** A parsed query: every word must occur; each phrase's words must also occur in that order, adjacent. */
export interface ParsedQuery {
  /** Distinct words of the whole query, phrases included. */
  words: string[];
  /** Phrases of two or more words. */
  phrases: string[][];
}

/**
 * Reads a query: words, and "quoted phrases" (an unclosed quote runs to the end). A quoted single word is a word.
 * Empty, too long or wordless queries are `invalid_request`.
 */
export function parseQuery(text: string): ParsedQuery {
  if (text.length > MAX_QUERY_CHARS) {
    throw new KgateError('invalid_request', `A query has at most ${MAX_QUERY_CHARS} characters.`, { field: 'query' });
  }
  const phrases: string[][] = [];
  const all: string[] = [];
  const parts = text.split('"');
  parts.forEach((part, k) => {
    const found = words(part);
    all.push(...found);
    // Odd parts sit between quotes.
    if (k % 2 === 1 && found.length > 1) phrases.push(found);
  });
  const distinct = [...new Set(all)];
  if (distinct.length === 0) {
    throw new KgateError('invalid_request', 'The query has no words to search for.', { field: 'query' });
  }
  if (distinct.length > MAX_QUERY_WORDS) {
    throw new KgateError('invalid_request', `A query has at most ${MAX_QUERY_WORDS} distinct words.`, { field: 'query' });
  }
  return { words: distinct, phrases };
}

/** True when `tokens` holds `phrase` as adjacent words. */
export function containsPhrase(tokens: readonly string[], phrase: readonly string[]): boolean {
  const first = phrase[0]!;
  for (let i = tokens.indexOf(first); i !== -1 && i + phrase.length <= tokens.length; i = tokens.indexOf(first, i + 1)) {
    let k = 1;
    while (k < phrase.length && tokens[i + k] === phrase[k]) k += 1;
    if (k === phrase.length) return true;
  }
  return false;
}
