import { decodeCursor, encodeCursor } from '../../kernel/cursor.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { notePathKey } from '../../kernel/vault-path.ts';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, type SearchRequest } from './contract.ts';
import { parseQuery, type ParsedQuery } from './query.ts';
import type { MatchFilter } from './vault-index.ts';

/** Most tags in a filter. */
const MAX_FILTER_TAGS = 10;
/** Deepest page a cursor may reach, so that paging cannot ask for unbounded work. */
const MAX_OFFSET = 10_000;

/** What a search cursor holds: the offset of the next page, and the fingerprint of the query that made it. */
type Cursor = { o: number; q: string };
const isCursor = (v: unknown): v is Cursor =>
  typeof v === 'object' && v !== null && Number.isInteger((v as Cursor).o) && (v as Cursor).o > 0 && typeof (v as Cursor).q === 'string';

/** A search request read and checked: what to match, which page, and what its cursors are bound to. */
export interface CheckedSearch {
  query: ParsedQuery;
  filter: MatchFilter;
  /** Results per page. */
  limit: number;
  /** Results before this page: 0 for the first page, else what the cursor says. */
  offset: number;
  /** Identifies the query and its filter, so that a cursor pages only the query that made it. */
  fingerprint: string;
}

/**
 * Reads a search request, before any database work: the query, the filters, the limit and the cursor. Anything
 * malformed, or a cursor of another query or too deep, is `invalid_request` naming the field.
 */
export function checkSearchRequest(request: SearchRequest): CheckedSearch {
  const query = parseQuery(request.query);
  const filter = filterOf(request);
  const limit = boundedLimit(request.limit);
  const fingerprint = sha256Hex(JSON.stringify([query, filter])).slice(0, 16);
  const cursor = request.cursor === undefined ? undefined : decodeCursor(request.cursor, isCursor);
  if (cursor !== undefined && cursor.q !== fingerprint) {
    throw new KgateError('invalid_request', 'The cursor belongs to another query.', { field: 'cursor' });
  }
  const offset = cursor?.o ?? 0;
  if (offset > MAX_OFFSET) throw new KgateError('invalid_request', `Results past the first ${MAX_OFFSET} cannot be paged to.`, { field: 'cursor' });
  return { query, filter, limit, offset, fingerprint };
}

/** The cursor of the page after this one. */
export function nextPageCursor(search: CheckedSearch): string {
  return encodeCursor({ o: search.offset + search.limit, q: search.fingerprint } satisfies Cursor);
}

function boundedLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_SEARCH_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_LIMIT) {
    throw new KgateError('invalid_request', `limit is an integer from 1 to ${MAX_SEARCH_LIMIT}.`, { field: 'limit' });
  }
  return limit;
}

function filterOf(request: SearchRequest): MatchFilter {
  const tags = (request.tags ?? []).map((tag) => tag.trim().replace(/^#/, '').toLowerCase()).filter((tag) => tag !== '');
  if (tags.length > MAX_FILTER_TAGS) throw new KgateError('invalid_request', `At most ${MAX_FILTER_TAGS} tags.`, { field: 'tags' });
  const folder = request.folder === undefined ? undefined : notePathKey(request.folder.normalize('NFC').trim().replace(/^\/+|\/+$/g, ''));
  return { ...(tags.length > 0 ? { tagKeys: tags } : {}), ...(folder ? { folderKey: folder } : {}) };
}
