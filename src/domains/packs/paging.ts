/**
 * Limits and cursors of the published-intelligence answers. A cursor is opaque (kernel/cursor.ts) and bound to what
 * made it: the list it pages, the pack version and the cutoff. Its position counts the items already answered at
 * that cutoff, so a cursor means the same on any pack holding the same items at the cutoff, and one used with
 * another cutoff, list or pack version is refused rather than answered from the wrong place.
 */
import { decodeCursor, encodeCursor } from '../../kernel/cursor.ts';
import { KgateError } from '../../kernel/errors.ts';
import { isCalendarDate } from './format/index.ts';
import type { CalendarDate } from './contract.ts';

/** Default and most items per answer, per tool (per list for the changes). */
export const PACK_ANSWER_LIMITS = {
  search: { default: 10, max: 50 },
  state: { default: 100, max: 500 },
  sources: { default: 100, max: 500 },
  changes: { default: 200, max: 1000 },
  timeline: { default: 500, max: 2000 },
  insights: { default: 100, max: 500 },
} as const;

/** The lists a cursor may page. */
export type PagedList = 'state' | 'sources' | 'timeline' | 'insights';
const PAGED_LISTS: readonly unknown[] = ['state', 'sources', 'timeline', 'insights'] satisfies PagedList[];

/** The longest cursor read: ours are far shorter, and a bound keeps a forged one from costing work. */
const MAX_CURSOR_CHARS = 1024;

/** What a cursor holds: the list (`k`), the pack version id (`v`), the cutoff (`a`) and the items already answered (`o`). */
type Cursor = { k: PagedList; v: string; a: CalendarDate; o: number };
const isCursor = (value: unknown): value is Cursor => {
  if (typeof value !== 'object' || value === null) return false;
  const cursor = value as Record<string, unknown>;
  return (
    PAGED_LISTS.includes(cursor.k) &&
    typeof cursor.v === 'string' &&
    typeof cursor.a === 'string' &&
    Number.isSafeInteger(cursor.o) &&
    (cursor.o as number) > 0
  );
};

/** The limit asked for, or the default; anything but an integer from 1 to the maximum is `invalid_request`. */
export function boundedLimit(limit: number | undefined, bounds: { default: number; max: number }): number {
  if (limit === undefined) return bounds.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > bounds.max) {
    throw new KgateError('invalid_request', `limit is an integer from 1 to ${bounds.max}.`, { field: 'limit' });
  }
  return limit;
}

/** Refuses a date that is not a real calendar date `YYYY-MM-DD`, naming the field. */
export function checkDate(date: CalendarDate, field: string): void {
  if (typeof date !== 'string' || !isCalendarDate(date)) {
    throw new KgateError('invalid_request', `${field} is a calendar date YYYY-MM-DD.`, { field });
  }
}

/** The cursor of the page after `offset` items of `list` at `asOf` in pack version `versionId`. */
export function encodePageCursor(list: PagedList, versionId: string, asOf: CalendarDate, offset: number): string {
  return encodeCursor({ k: list, v: versionId, a: asOf, o: offset } satisfies Cursor);
}

/**
 * How many items of `list` a cursor says were answered (0 without a cursor). A cursor of another list, pack version
 * or cutoff, or one that is not ours, is `invalid_request` naming the field `cursor`.
 */
export function pageOffset(cursor: string | undefined, list: PagedList, versionId: string, asOf: CalendarDate): number {
  if (cursor === undefined) return 0;
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_CHARS) {
    throw new KgateError('invalid_request', 'The cursor is not one this API returned.', { field: 'cursor' });
  }
  const decoded = decodeCursor(cursor, isCursor);
  if (decoded.k !== list) throw new KgateError('invalid_request', 'The cursor pages another answer.', { field: 'cursor' });
  if (decoded.v !== versionId) {
    throw new KgateError('invalid_request', 'The cursor belongs to another version of the pack; start again without it.', { field: 'cursor' });
  }
  if (decoded.a !== asOf) throw new KgateError('invalid_request', 'The cursor belongs to another asOf cutoff.', { field: 'cursor' });
  return decoded.o;
}
