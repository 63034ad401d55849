import { KgateError } from '../../kernel/errors.ts';

/** Default number of items a knowledge read returns. */
export const DEFAULT_KNOWLEDGE_LIMIT = 50;
/** Most items a knowledge read returns at once. */
export const MAX_KNOWLEDGE_LIMIT = 200;

/**
 * One page of a bounded read. `truncated: true` means more items exist after `nextCursor`: a truncated answer is
 * not proof that something is absent (spec 4.3 rule 9).
 */
export interface KnowledgePage<T> {
  items: T[];
  truncated: boolean;
  nextCursor: string | null;
}

/** How much of a read to return: at most `limit` items after `cursor` (from a previous page). */
export interface PageRequest {
  limit?: number;
  cursor?: string;
}

/** An opaque cursor: the sort key of the last item returned, as base64url JSON. */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The sort key a cursor holds; `invalid_request` for anything this service did not make (of `arity` parts). */
export function decodeCursor(cursor: string, arity: number): Array<string | number> {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' || typeof k === 'number')) return key;
  } catch {
    // Falls through to the refusal below.
  }
  throw new KgateError('invalid_request', 'The cursor is not one this service returned.');
}

/** The limit to use: the request's, within bounds, or the default. */
export function limitOf(request: PageRequest): number {
  const limit = request.limit ?? DEFAULT_KNOWLEDGE_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_KNOWLEDGE_LIMIT) {
    throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_KNOWLEDGE_LIMIT}.`);
  }
  return limit;
}

/** A page from `limit + 1` rows fetched: the extra row only says that there is more. */
export function pageOf<R, T>(rows: readonly R[], limit: number, item: (row: R) => T, key: (row: R) => readonly (string | number)[]): KnowledgePage<T> {
  const truncated = rows.length > limit;
  const kept = truncated ? rows.slice(0, limit) : rows;
  return { items: kept.map(item), truncated, nextCursor: truncated ? encodeCursor(key(kept[kept.length - 1]!)) : null };
}
