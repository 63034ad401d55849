/**
 * list_folder, list_folder/continue and list_folder/get_latest_cursor of the fake. A cursor is opaque to clients and
 * stateless here, as at Dropbox: it names the folder, whether the listing is recursive, the page size, a position in
 * the journal and, while a listing is being paged, the last path already returned. A listing reads the live tree
 * page by page and ends on a cursor at the position its first page was taken, so a change made while paging is
 * reported again by continue (Dropbox's rule: apply entries in order, replacing what is there).
 */
import type { DropboxStore } from './store.ts';
import type { FakeAnswer, Json } from './wire.ts';
import { badInput, endpointError, json, lookupError } from './wire.ts';

interface CursorState {
  /** Epoch: cursors minted before `resetCursors` answer `reset`. */
  e: number;
  /** The folder, lower case ('' is the root). */
  r: string;
  rec: boolean;
  /** Page size asked for (null: the server's default). */
  l: number | null;
  /** Journal position: changes after it are what continue reports. */
  s: number;
  /** While a listing is paged: the last path returned. */
  a?: string;
}

const DEFAULT_PAGE = 2000;

function encode(state: CursorState): string {
  return `AAE${Buffer.from(JSON.stringify(state)).toString('base64url')}`;
}

function decode(cursor: string): CursorState | null {
  if (!cursor.startsWith('AAE')) return null;
  try {
    const state = JSON.parse(Buffer.from(cursor.slice(3), 'base64url').toString('utf8')) as CursorState;
    return typeof state.r === 'string' && typeof state.s === 'number' ? state : null;
  } catch {
    return null;
  }
}

/** The folder a ListFolderArg names, or the answer refusing it. */
export function listedFolder(store: DropboxStore, route: string, arg: Record<string, Json>): { rootLower: string } | { answer: FakeAnswer } {
  const path = arg.path;
  if (typeof path !== 'string') return { answer: badInput(route, 'request body: path: missing required field') };
  if (path === '/') return { answer: badInput(route, 'request body: path: Specify the root folder as an empty string rather than as "/".') };
  if (path === '') return { rootLower: '' };
  if (!path.startsWith('id:') && (!path.startsWith('/') || path.endsWith('/') || path.includes('//'))) return { answer: lookupError('path', 'malformed_path') };
  const node = path.startsWith('id:') ? store.byId(path) : store.get(path.toLowerCase());
  if (!node) return { answer: lookupError('path', 'not_found') };
  if (node.tag !== 'folder') return { answer: lookupError('path', 'not_folder') };
  return { rootLower: node.pathDisplay.toLowerCase() };
}

/** The page size a ListFolderArg asks for, or the 400 for a bad one. */
export function pageLimit(route: string, arg: Record<string, Json>): { limit: number | null } | { answer: FakeAnswer } {
  const limit = arg.limit;
  if (limit === undefined || limit === null) return { limit: null };
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 2000) {
    return { answer: badInput(route, `request body: limit: ${JSON.stringify(limit)} is not within range [1, 2000]`) };
  }
  return { limit };
}

/** The first page of a listing. */
export function firstPage(store: DropboxStore, rootLower: string, recursive: boolean, limit: number | null, cap: number): FakeAnswer {
  return listingPage(store, { e: store.epoch, r: rootLower, rec: recursive, l: limit, s: store.position }, cap);
}

/** get_latest_cursor: a cursor at the current position, with no entries. */
export function latestCursor(store: DropboxStore, rootLower: string, recursive: boolean, limit: number | null): FakeAnswer {
  return json({ cursor: encode({ e: store.epoch, r: rootLower, rec: recursive, l: limit, s: store.position }) });
}

/** list_folder/continue: the next listing page, or the changes after the cursor's position. */
export function continuePage(store: DropboxStore, cursor: Json | undefined, cap: number): FakeAnswer {
  const route = 'files/list_folder/continue';
  if (typeof cursor !== 'string' || cursor.length === 0) return badInput(route, 'request body: cursor: missing required field');
  const state = decode(cursor);
  if (!state) return badInput(route, 'request body: cursor: Invalid cursor');
  if (state.e !== store.epoch) return endpointError({ '.tag': 'reset' });
  if (state.r !== '' && store.get(state.r)?.tag !== 'folder') return lookupError('path', 'not_found');
  if (state.a !== undefined) return listingPage(store, state, cap);
  return changesPage(store, state, cap);
}

function pageSize(state: CursorState, cap: number): number {
  return Math.min(state.l ?? DEFAULT_PAGE, cap);
}

function listingPage(store: DropboxStore, state: CursorState, cap: number): FakeAnswer {
  // A recursive listing of a folder holds the folder itself first; a listing of the root does not.
  const all = store
    .nodesUnder(state.r, state.rec)
    .filter((node) => node.pathDisplay.toLowerCase() !== state.r || (state.rec && state.r !== ''))
    .filter((node) => state.a === undefined || node.pathDisplay.toLowerCase() > state.a);
  const page = all.slice(0, pageSize(state, cap));
  const more = page.length < all.length;
  const next: CursorState = more ? { ...state, a: page[page.length - 1]!.pathDisplay.toLowerCase() } : { e: state.e, r: state.r, rec: state.rec, l: state.l, s: state.s };
  return json({ entries: page.map((node) => store.metadata(node)), cursor: encode(next), has_more: more });
}

function changesPage(store: DropboxStore, state: CursorState, cap: number): FakeAnswer {
  const depth = state.r === '' ? 0 : state.r.split('/').length - 1;
  // Each path once, at its latest change, in the order of those changes.
  const latest = new Map<string, { seq: number; display: string }>();
  for (const entry of store.changesAfter(state.s, state.r)) {
    if (!state.rec && entry.pathLower.split('/').length - 1 > depth + 1) continue;
    latest.delete(entry.pathLower);
    latest.set(entry.pathLower, { seq: entry.seq, display: entry.pathDisplay });
  }
  const all = [...latest.entries()].sort(([, a], [, b]) => a.seq - b.seq);
  const page = all.slice(0, pageSize(state, cap));
  const more = page.length < all.length;
  const entries = page.map(([pathLower, { display }]) => {
    const node = store.get(pathLower);
    return node ? store.metadata(node) : store.deletedMetadata(display);
  });
  const position = more ? page[page.length - 1]![1].seq : store.position;
  return json({ entries, cursor: encode({ ...state, s: position }), has_more: more });
}
