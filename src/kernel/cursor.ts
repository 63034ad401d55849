import { KgateError } from './errors.ts';

/**
 * Opaque pagination cursors: base64url of a small JSON value. Opaque so that clients pass them back unchanged and
 * we can change what is inside; validated on the way in, so a forged cursor is a clean `invalid_request`.
 */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/** Decodes a cursor made by `encodeCursor`; `accept` checks its shape. */
export function decodeCursor<T>(cursor: string, accept: (value: unknown) => value is T): T {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (accept(value)) return value;
  } catch {
    // Falls through to the error below.
  }
  throw new KgateError('invalid_request', 'The cursor is not one this API returned.', { field: 'cursor' });
}
