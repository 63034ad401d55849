import type { Operation } from '../operations/operation.ts';
import { listEvents } from '../operations/event-operations.ts';
import { queryGraphRelations } from '../operations/graph-operations.ts';
import { searchNotes } from '../operations/search-operations.ts';
import { deleteNote, listNotes, listTrash, readNote, runNoteTransaction, writeNote } from '../operations/note-operations.ts';

/** How a query-string value is turned into the type the operation's schema expects; `list` repeats the name. */
export type QueryKind = 'string' | 'integer' | 'boolean' | 'list';

/**
 * Where each input field of an operation comes from on the REST wire. `mappingId` may come from the query, the
 * body or the X-Service-Mapping header (spec 4.6); other fields come from exactly one place.
 */
export interface RestRoute {
  operation: Operation;
  method: 'GET' | 'POST' | 'DELETE';
  /** OpenAPI path template relative to /api/dev, e.g. `/notes/{category}/{filename}`. */
  path: string;
  /** Input fields read from the query string, with their kinds. */
  query: Readonly<Record<string, QueryKind>>;
  /** Input fields read from the JSON body (POST only). */
  body: readonly string[];
  /** Two path segments that together form the note path (`category/filename`). */
  notePathParams: boolean;
  /** `If-Match` is accepted in place of `expectedHash`. */
  ifMatch: boolean;
  /** GET of one note: ETag, If-None-Match and `Accept: text/markdown`. */
  noteRead: boolean;
}

function route(partial: Partial<RestRoute> & Pick<RestRoute, 'operation' | 'method' | 'path'>): RestRoute {
  return { query: {}, body: [], notePathParams: false, ifMatch: false, noteRead: false, ...partial };
}

/** The Developer REST API, as served and as published in /api/dev/openapi.json. */
export const DEVELOPER_ROUTES: readonly RestRoute[] = [
  route({ operation: listNotes, method: 'GET', path: '/notes', query: { mappingId: 'string', cursor: 'string', limit: 'integer' } }),
  route({ operation: listTrash, method: 'GET', path: '/notes/trash', query: { mappingId: 'string', cursor: 'string', limit: 'integer' } }),
  route({ operation: readNote, method: 'GET', path: '/notes/{category}/{filename}', query: { mappingId: 'string' }, notePathParams: true, noteRead: true }),
  route({ operation: writeNote, method: 'POST', path: '/notes', body: ['mappingId', 'path', 'content', 'dryRun', 'expectedHash'], ifMatch: true }),
  route({
    operation: deleteNote,
    method: 'DELETE',
    path: '/notes/{category}/{filename}',
    query: { mappingId: 'string', dryRun: 'boolean' },
    notePathParams: true,
    ifMatch: true,
  }),
  route({ operation: runNoteTransaction, method: 'POST', path: '/transactions', body: ['mappingId', 'dryRun', 'actions'] }),
  route({
    operation: searchNotes,
    method: 'GET',
    path: '/search',
    query: { mappingId: 'string', query: 'string', tags: 'list', folder: 'string', limit: 'integer', cursor: 'string' },
  }),
  route({ operation: queryGraphRelations, method: 'GET', path: '/graph/relations', query: { mappingId: 'string', path: 'string', limit: 'integer' } }),
  route({ operation: listEvents, method: 'GET', path: '/events', query: { mappingId: 'string', since: 'integer', limit: 'integer' } }),
];

/** Hono's form of an OpenAPI path template: `{name}` becomes `:name`. */
export function honoPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}
