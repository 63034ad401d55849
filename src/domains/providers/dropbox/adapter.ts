/**
 * The Dropbox API v2 adapter of the provider port. RPC endpoints on `urls.api` (api.dropboxapi.com), content
 * endpoints on `urls.content` (content.dropboxapi.com), OAuth on www.dropbox.com and api.dropboxapi.com. The root of
 * a mapping is a folder path ('' is the root the app sees); entries are named below it in Dropbox's display case,
 * with `id:...` as the file id and `rev` as the revision and concurrency token.
 */
import type { ProviderAdapter, ProviderResponse } from '../port.ts';
import { currentAccount, readFile, resolveFolder, statFile, trashFile, writeFile } from './files.ts';
import { changesPage, latestCursor, listPage } from './listing.ts';
import { dropboxOAuth } from './oauth.ts';
import { endpointError, hasTag } from './wire.ts';

// Dropbox names no wait for "too many write operations" in a 409; a second is what its SDKs wait.
const WRITE_CONTENTION_WAIT_MS = 1000;

/** The Dropbox adapter (stateless: tokens, root and cursors are handed in). */
export const dropboxAdapter: ProviderAdapter = {
  kind: 'dropbox',
  ...dropboxOAuth,
  identity: (call) => currentAccount(call),
  resolveRoot: (call, root) => resolveFolder(call, root),
  changeCursor: (call, root) => latestCursor(call, root),
  list: (call, root, page, limits) => listPage(call, root, page, limits),
  changes: (call, root, cursor, limits) => changesPage(call, root, cursor, limits),
  stat: (call, root, path) => statFile(call, root, path),
  read: (call, root, path, maxBytes) => readFile(call, root, path, maxBytes),
  write: (call, root, input) => writeFile(call, root, input),
  trash: (call, root, input) => trashFile(call, root, input),
  /**
   * Beyond 429 and 5xx (which the call handles with Retry-After): a 409 whose error is
   * `too_many_write_operations` (WriteError, DeleteError) is contention at Dropbox, worth waiting out.
   */
  transientDelay(response: ProviderResponse): number | null {
    if (response.status !== 409) return null;
    const error = endpointError(response);
    return error && hasTag(error, 'too_many_write_operations') ? WRITE_CONTENTION_WAIT_MS : null;
  },
};

export { DROPBOX_READ_SCOPES, DROPBOX_URLS, DROPBOX_WRITE_SCOPES } from './oauth.ts';
