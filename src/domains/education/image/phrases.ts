/**
 * Matching the brief's phrases in the model's text: case, accents, punctuation and spacing aside, as whole words,
 * a final plural s or es allowed ("arrow" is named by "arrows"). Pure.
 */

/** Lowercase, accents removed, every run of other than letters and digits one space, trimmed. */
export function normalizedPhrase(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether `text` names `phrase` as whole words (its last word may take a plural s or es). */
export function mentions(text: string, phrase: string): boolean {
  const wanted = normalizedPhrase(phrase);
  if (wanted === '') return false;
  return new RegExp(`(?:^| )${escaped(wanted)}(?:e?s)?(?: |$)`, 'u').test(normalizedPhrase(text));
}
