/** Page sizes and opaque cursors of the local listings: base64url of a small JSON value, checked on the way in. */
import { invalidRequest } from './refusal.js';

/** Most entries in one page, as on the server (spec 8). */
export const MAX_PAGE = 1000;

/** The page size asked for, or MAX_PAGE; refuses anything but an integer from 1 to MAX_PAGE. */
export function pageLimit(limit: unknown): number {
  if (limit === undefined) return MAX_PAGE;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) {
    throw invalidRequest(`limit is an integer from 1 to ${MAX_PAGE}.`, 'limit');
  }
  return limit;
}

/** An opaque cursor holding `value`. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** The value of a cursor this adapter made; `accept` checks its shape. */
export function decodeCursor<T>(cursor: unknown, accept: (value: unknown) => value is T): T {
  if (typeof cursor === 'string' && cursor.length <= 2048) {
    try {
      const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
      if (accept(value)) return value;
    } catch {
      // Falls through to the refusal below.
    }
  }
  throw invalidRequest('The cursor is not one this adapter returned.', 'cursor');
}
