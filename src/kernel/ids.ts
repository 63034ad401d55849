import { randomBytes } from 'node:crypto';

/**
 * A new UUID version 7 (RFC 9562): 48 bits of Unix milliseconds then random bits. Time-ordered ids keep
 * B-tree inserts local and make ids roughly sortable by creation, without revealing more than the creation time.
 */
export function newId(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f); // version 7
  bytes[8] = 0x80 | (bytes[8]! & 0x3f); // variant 10xx
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Matches any RFC 9562 UUID in canonical lowercase or uppercase form. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `value` is a canonical UUID string (any version). */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
