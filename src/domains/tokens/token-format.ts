import { randomInt } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';

/**
 * Personal access token format, after GitHub's: a prefix that says what the secret is (so secret scanners and
 * people recognize it), 30 characters of base62 entropy (about 178 bits) and a 6-character base62 CRC-32 of the
 * entropy. The checksum lets us reject typos and random strings without a database lookup; it is not a MAC.
 *
 *   kgp_ + 30 random + 6 checksum = 40 characters, e.g. kgp_6Xy...Q1a9Zk
 */
export const TOKEN_PREFIX = SECRET_PREFIXES.personalAccessToken;
const ENTROPY_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{${ENTROPY_LENGTH + CHECKSUM_LENGTH}}$`);

function base62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = ALPHABET[rest % 62]! + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(entropy: string): string {
  return base62(crc32(entropy), CHECKSUM_LENGTH);
}

/** A new random token in the format above. */
export function generateToken(): string {
  let entropy = '';
  // randomInt draws without modulo bias.
  for (let i = 0; i < ENTROPY_LENGTH; i += 1) entropy += ALPHABET[randomInt(62)];
  return `${TOKEN_PREFIX}${entropy}${checksumOf(entropy)}`;
}

/** True when the string has our token shape and a correct checksum. */
export function isWellFormedToken(token: string): boolean {
  if (!SHAPE.test(token)) return false;
  const entropy = token.slice(TOKEN_PREFIX.length, TOKEN_PREFIX.length + ENTROPY_LENGTH);
  return token.slice(-CHECKSUM_LENGTH) === checksumOf(entropy);
}

/** The last four characters, stored so that lists can show `kgp_…abcd` without keeping the token. */
export function lastFourOf(token: string): string {
  return token.slice(-4);
}
