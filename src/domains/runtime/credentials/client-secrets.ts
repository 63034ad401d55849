import { constantTimeEqual, sha256Hex } from '../../../kernel/hashing.ts';
import { SECRET_PREFIXES } from '../../../kernel/secret-prefixes.ts';
import { isSecretShaped, newSecret } from '../../../kernel/secrets.ts';

/** Client secrets of service principals (client_secret_basic and client_secret_post): `kgcs_` and 256 random bits. */

/** The prefix of every client secret. */
export const CLIENT_SECRET_PREFIX = SECRET_PREFIXES.runtimeClientSecret;

/** A new client secret, with what is stored of it: its SHA-256 and its last four characters. */
export function generateClientSecret(): { secret: string; hash: string; lastFour: string } {
  const secret = newSecret(CLIENT_SECRET_PREFIX);
  return { secret, hash: sha256Hex(secret), lastFour: secret.slice(-4) };
}

/** True when a presented value could be one of our client secrets; junk is refused before any lookup. */
export function isClientSecretShaped(value: string): boolean {
  return isSecretShaped(value, CLIENT_SECRET_PREFIX);
}

/**
 * The credential whose stored hash matches the presented secret, among a principal's active secrets. Hashes are
 * compared, in constant time, and every candidate is compared, so the time taken says nothing about which one matched.
 */
export function matchClientSecret<C extends { secret_hash: string | null }>(secret: string, candidates: readonly C[]): C | undefined {
  const presented = sha256Hex(secret);
  let match: C | undefined;
  for (const candidate of candidates) {
    if (candidate.secret_hash !== null && constantTimeEqual(candidate.secret_hash, presented) && !match) match = candidate;
  }
  return match;
}
