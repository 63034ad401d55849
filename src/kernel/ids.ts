import { randomFillSync } from 'node:crypto';

// Random bytes for ids, drawn from the operating system's CSPRNG 4 KiB at a time: one call per 256 ids instead of
// one per id (a call and a buffer each cost about 6 µs, a quarter of a second in a 20,000-note import). Each byte
// is used once. crypto.randomUUID keeps such a pool for the same reason.
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

function sixteenRandomBytes(): Buffer {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const bytes = Buffer.from(POOL.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return bytes;
}

/**
 * A new UUID version 7 (RFC 9562): 48 bits of Unix milliseconds then random bits. Time-ordered ids keep
 * B-tree inserts local and make ids roughly sortable by creation, without revealing more than the creation time.
 */
export function newId(now: number = Date.now()): string {
  const bytes = sixteenRandomBytes();
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
