/**
 * Listing and change cursors on Dropbox: one recursive `files/list_folder` of the mapped folder, paged with
 * `list_folder/continue`; `list_folder/get_latest_cursor` for a change cursor, whose `continue` pages name exactly
 * what changed (file entries) and what went away (deleted entries: paths only, no id). A cursor Dropbox reports as
 * `reset` means the caller must list everything again.
 */
import { ProviderError, type ChangePage, type ListPage, type ProviderCall, type RemoteEntry, type RemoteRoot, type TraversalLimits } from '../port.ts';
import { LatestCursorSchema, ListFolderResultSchema, toEntry, type Metadata } from './metadata.ts';
import { depthOf, relativeTo, rootPath } from './paths.ts';
import { endpointFailure, hasTag, rpc } from './wire.ts';

/**
 * Page size of change cursors from `changeCursor`, which takes no limits: the page size travels inside a Dropbox
 * cursor. Equal to the sync's usual maxEntries; a caller asking for fewer gets a relist with a cursor of its size.
 */
const CHANGES_PAGE = 1000;
/** Dropbox's largest `limit`. */
const DROPBOX_MAX_LIMIT = 2000;

/** ListFolderArg of the mapped folder: recursive, live entries only, files Dropbox can hand over as bytes. */
function listArg(root: RemoteRoot, limit: number): Record<string, unknown> {
  return { path: rootPath(root), recursive: true, include_deleted: false, include_non_downloadable_files: false, limit: Math.max(1, Math.min(limit, DROPBOX_MAX_LIMIT)) };
}

/** A cursor for changes after this moment, with pages of `limit` entries. */
export async function latestCursor(call: ProviderCall, root: RemoteRoot, limit = CHANGES_PAGE): Promise<string> {
  const answer = await rpc(call, 'files/list_folder/get_latest_cursor', listArg(root, limit), LatestCursorSchema);
  if (!answer.ok) throw endpointFailure('files/list_folder/get_latest_cursor', answer.error);
  return answer.value.cursor;
}

function exceeded(bound: 'depth' | 'entries', limits: TraversalLimits): ProviderError {
  return bound === 'depth'
    ? new ProviderError('budget_exhausted', `The mapped Dropbox folder has folders deeper than ${limits.maxDepth} levels.`, { bound: 'depth' })
    : new ProviderError('budget_exhausted', `A Dropbox page held more than ${limits.maxEntries} entries.`, { bound: 'entries' });
}

/** An entry's path below the root, after the depth bound (null for the root folder itself). */
function placed(root: RemoteRoot, entry: Metadata, limits: TraversalLimits): string | null {
  const path = relativeTo(root, entry);
  if (path !== null && depthOf(path) > limits.maxDepth) throw exceeded('depth', limits);
  return path;
}

/** One page of the full listing (files only; folders are traversed by Dropbox's recursive listing). */
export async function listPage(call: ProviderCall, root: RemoteRoot, page: string | null, limits: TraversalLimits): Promise<ListPage> {
  const route = page === null ? 'files/list_folder' : 'files/list_folder/continue';
  const answer = await rpc(call, route, page === null ? listArg(root, limits.maxEntries) : { cursor: page }, ListFolderResultSchema);
  if (!answer.ok) {
    // A listing cursor invalidated half-way: nothing to resume from; the listing starts over on the next try.
    if (hasTag(answer.error, 'reset')) throw new ProviderError('unavailable', 'Dropbox reset the listing cursor; the listing must start again.', { status: 409 });
    throw endpointFailure(route, answer.error);
  }
  const result = answer.value;
  if (result.entries.length > limits.maxEntries) throw exceeded('entries', limits);
  const entries: RemoteEntry[] = [];
  for (const entry of result.entries) {
    if (placed(root, entry, limits) === null || entry['.tag'] !== 'file') continue;
    const remote = toEntry(root, entry);
    if (remote) entries.push(remote);
  }
  return { entries, next: result.has_more ? result.cursor : null };
}

/**
 * One page of changes after `cursor`. Deleted entries carry only a path, and a deleted folder is reported once,
 * for itself: a removed path takes everything below it along. Entries describe the state at reading time, so a
 * page's removals come before its changes (a folder deleted and a file created in its place again).
 */
export async function changesPage(call: ProviderCall, root: RemoteRoot, cursor: string, limits: TraversalLimits): Promise<ChangePage> {
  const route = 'files/list_folder/continue';
  const answer = await rpc(call, route, { cursor }, ListFolderResultSchema);
  if (!answer.ok) {
    if (hasTag(answer.error, 'reset')) return { relist: true, cursor: await latestCursor(call, root, limits.maxEntries) };
    throw endpointFailure(route, answer.error);
  }
  const result = answer.value;
  // The cursor fixed the page size when it was minted; a page larger than this caller's bound is not read. A new
  // cursor of the caller's size (taken before the relist, so nothing is missed) replaces it.
  if (result.entries.length > limits.maxEntries) return { relist: true, cursor: await latestCursor(call, root, limits.maxEntries) };
  const changed: RemoteEntry[] = [];
  const removed: string[] = [];
  for (const entry of result.entries) {
    const path = placed(root, entry, limits);
    if (path === null) {
      if (entry['.tag'] === 'deleted') throw new ProviderError('not_found', 'The mapped Dropbox folder was deleted or moved.');
      continue;
    }
    if (entry['.tag'] === 'deleted') removed.push(path);
    else if (entry['.tag'] === 'file') {
      const remote = toEntry(root, entry);
      if (remote) changed.push(remote);
    }
  }
  return { relist: false, changed, removed, cursor: result.cursor, more: result.has_more };
}
