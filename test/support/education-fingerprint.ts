/**
 * The partner side of artifact recommendations' content fingerprints (docs/education.md, "Artifact
 * recommendations"): what a product computes from an artifact's content before it asks, so that kgate never
 * receives the content. Used by the tests to make realistic requests.
 */
import { createHash } from 'node:crypto';

/** Words of a text: lower case, split at every character that is not a letter or a digit. */
function wordsOf(text: string): string[] {
  return text.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/**
 * The bottom-k sketch of a text: every run of `size` consecutive words (a shingle) joined by single spaces, hashed
 * with SHA-256, the first 16 hexadecimal digits of each, distinct, sorted, the `k` smallest kept.
 */
export function contentFingerprint(text: string, k = 64, size = 5): string[] {
  const words = wordsOf(text);
  const hashes = new Set<string>();
  for (let i = 0; i + size <= words.length; i++) hashes.add(createHash('sha256').update(words.slice(i, i + size).join(' ')).digest('hex').slice(0, 16));
  return [...hashes].sort().slice(0, k);
}
