import { randomBytes } from 'node:crypto';

/**
 * A new opaque secret: a prefix that says what it is (kernel/secret-prefixes.ts) and 256 random bits in base64url.
 * Used for OAuth codes and tokens and web sessions, which are looked up by their SHA-256 and never stored.
 */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** True when `value` has the shape `newSecret(prefix)` produces; rejects junk before any lookup. */
export function isSecretShaped(value: string, prefix: string): boolean {
  return value.length === prefix.length + 43 && value.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(prefix.length));
}
