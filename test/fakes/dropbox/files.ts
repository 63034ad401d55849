/**
 * The fake's single-file routes: get_metadata, download, upload (WriteMode add / overwrite / update with
 * strict_conflict and autorename as Dropbox defines them) and delete_v2 (parent_rev), with Dropbox's error unions.
 */
import { randomBytes } from 'node:crypto';
import type { DropboxStore, StoredNode } from './store.ts';
import { dropboxContentHash, nameOf, parentOf } from './store.ts';
import type { FakeAnswer, Json } from './wire.ts';
import { badInput, endpointError, headerSafeJson, json, lookupError } from './wire.ts';

/** Upload's hard limit: larger files need an upload session, which the fake does not offer. */
const UPLOAD_LIMIT = 150 * 1024 * 1024;

type Lookup = { node: StoredNode | undefined; display: string } | { malformed: true };

/** Resolves a path or `id:` argument. */
function lookup(store: DropboxStore, path: string): Lookup {
  if (path.startsWith('id:')) {
    const node = store.byId(path);
    return { node, display: node?.pathDisplay ?? path };
  }
  if (!path.startsWith('/') || path.endsWith('/') || path.includes('//')) return { malformed: true };
  const parts = path.split('/').slice(1);
  if (parts.some((part) => part === '.' || part === '..')) return { malformed: true };
  return { node: store.get(path.toLowerCase()), display: path };
}

/** POST /2/files/get_metadata */
export function getMetadata(store: DropboxStore, arg: Record<string, Json>): FakeAnswer {
  if (arg.path === '') return badInput('files/get_metadata', 'request body: path: The root folder is unsupported.');
  if (typeof arg.path !== 'string') return badInput('files/get_metadata', 'request body: path: missing required field');
  const found = lookup(store, arg.path);
  if ('malformed' in found) return lookupError('path', 'malformed_path');
  if (found.node) return json(store.metadata(found.node));
  const trashed = arg.include_deleted === true ? store.trashed(arg.path.toLowerCase()) : undefined;
  if (trashed) return json({ ...store.deletedMetadata(trashed.pathDisplay), is_restorable: true });
  return lookupError('path', 'not_found');
}

/** POST content /2/files/download: the bytes, and the file's metadata in the Dropbox-API-Result header. */
export function download(store: DropboxStore, arg: Record<string, Json>): FakeAnswer {
  if (typeof arg.path !== 'string') return badInput('files/download', 'HTTP header "Dropbox-API-Arg": path: missing required field');
  const found = lookup(store, arg.path);
  if ('malformed' in found) return lookupError('path', 'malformed_path');
  if (!found.node) return lookupError('path', 'not_found');
  if (found.node.tag !== 'file') return lookupError('path', 'not_file');
  return {
    status: 200,
    headers: { 'content-type': 'application/octet-stream', 'dropbox-api-result': headerSafeJson(store.metadata(found.node)) },
    body: found.node.content,
  };
}

type WriteMode = { tag: 'add' } | { tag: 'overwrite' } | { tag: 'update'; rev: string };

function writeMode(mode: Json | undefined): WriteMode | null {
  if (mode === undefined || mode === 'add') return { tag: 'add' };
  if (mode === 'overwrite') return { tag: 'overwrite' };
  if (mode && typeof mode === 'object' && !Array.isArray(mode)) {
    const tag = mode['.tag'];
    if (tag === 'add' || tag === 'overwrite') return { tag };
    if (tag === 'update' && typeof mode.update === 'string' && /^[0-9a-f]{9,}$/.test(mode.update)) return { tag: 'update', rev: mode.update };
  }
  return null;
}

/** UploadError.path: the WriteError that stopped the upload, as Dropbox nests it (`path/conflict/file`). */
function uploadFailed(reason: { [key: string]: Json }): FakeAnswer {
  return endpointError({ '.tag': 'path', reason, upload_session_id: randomBytes(16).toString('base64url') });
}

function conflict(kind: 'file' | 'folder' | 'file_ancestor'): FakeAnswer {
  return uploadFailed({ '.tag': 'conflict', conflict: { '.tag': kind } });
}

/** POST content /2/files/upload: the body is the file; the answer is the new FileMetadata. */
export function upload(store: DropboxStore, arg: Record<string, Json>, content: Buffer): FakeAnswer {
  const route = 'files/upload';
  if (typeof arg.path !== 'string') return badInput(route, 'HTTP header "Dropbox-API-Arg": path: missing required field');
  const mode = writeMode(arg.mode);
  if (!mode) return badInput(route, 'HTTP header "Dropbox-API-Arg": mode: invalid WriteMode');
  if (content.length > UPLOAD_LIMIT) return endpointError({ '.tag': 'payload_too_large' });
  if (typeof arg.content_hash === 'string' && arg.content_hash !== dropboxContentHash(content)) return endpointError({ '.tag': 'content_hash_mismatch' });
  const found = lookup(store, arg.path);
  if ('malformed' in found || found.display === '' || (!found.node && arg.path.startsWith('id:'))) return uploadFailed({ '.tag': 'malformed_path' });
  const strict = arg.strict_conflict === true;
  const autorename = arg.autorename === true;
  const existing = found.node;
  if (existing?.tag === 'folder') return autorename ? writeNew(store, renamed(store, found.display, false), content, arg) : conflict('folder');
  if (existing?.tag === 'file') {
    const identical = existing.content.equals(content);
    const matches = mode.tag === 'overwrite' || (mode.tag === 'update' && mode.rev === existing.rev);
    // WriteMode (c): a file with identical contents is not written again and is no conflict, unless strict_conflict.
    if (identical && (matches || !strict)) return json(store.metadata(existing));
    if (!matches) {
      if (!autorename) return conflict('file');
      return writeNew(store, renamed(store, existing.pathDisplay, mode.tag === 'update'), content, arg);
    }
  } else if (mode.tag === 'update' && strict) {
    // strict_conflict: an update whose file is gone is a conflict, not a re-creation.
    return conflict('file');
  }
  return writeNew(store, found.display, content, arg);
}

function writeNew(store: DropboxStore, display: string, content: Buffer, arg: Record<string, Json>): FakeAnswer {
  const parent = store.ensureParents(display);
  if (parent === 'file_ancestor') return conflict('file_ancestor');
  const clientModified = typeof arg.client_modified === 'string' ? arg.client_modified : undefined;
  return json(store.metadata(store.writeFile(`${parent}/${nameOf(display)}`, content, clientModified)));
}

/** Dropbox's autorename: `name (1).ext`, `name (2).ext`, ..., or `name (conflicted copy).ext` for an update. */
function renamed(store: DropboxStore, display: string, conflicted: boolean): string {
  const name = nameOf(display);
  const dot = name.lastIndexOf('.') > 0 ? name.lastIndexOf('.') : name.length;
  for (let n = 1; ; n += 1) {
    const extra = conflicted ? ` (conflicted copy${n === 1 ? '' : ` ${n}`})` : ` (${n})`;
    const candidate = `${parentOf(display)}/${name.slice(0, dot)}${extra}${name.slice(dot)}`;
    if (!store.get(candidate.toLowerCase())) return candidate;
  }
}

/** POST /2/files/delete_v2: to deleted files; `parent_rev` makes it conditional on the file's current rev. */
export function deleteV2(store: DropboxStore, arg: Record<string, Json>): FakeAnswer {
  if (typeof arg.path !== 'string') return badInput('files/delete_v2', 'request body: path: missing required field');
  const found = lookup(store, arg.path);
  if ('malformed' in found || found.display === '') return lookupError('path_lookup', 'malformed_path');
  const node = found.node;
  if (!node) return lookupError('path_lookup', 'not_found');
  if (arg.parent_rev !== undefined) {
    if (typeof arg.parent_rev !== 'string' || !/^[0-9a-f]{9,}$/.test(arg.parent_rev)) return badInput('files/delete_v2', 'request body: parent_rev: invalid Rev');
    // parent_rev does not support folders.
    if (node.tag !== 'file') return lookupError('path_lookup', 'not_file');
    if (node.rev !== arg.parent_rev) return endpointError({ '.tag': 'path_write', path_write: { '.tag': 'conflict', conflict: { '.tag': 'file' } } });
  }
  const metadata = store.metadata(node);
  store.remove(node.pathDisplay.toLowerCase());
  return json({ metadata });
}

/** The fake account, as users/get_current_account answers it. */
export function currentAccount(accountId: string, displayName: string, email: string): FakeAnswer {
  const [given = displayName, ...rest] = displayName.split(' ');
  return json({
    account_id: accountId,
    name: { given_name: given, surname: rest.join(' '), familiar_name: given, display_name: displayName, abbreviated_name: displayName.split(' ').map((part) => part[0] ?? '').join('') },
    email,
    email_verified: true,
    disabled: false,
    country: 'DE',
    locale: 'en',
    referral_link: 'https://db.tt/fake',
    is_paired: false,
    account_type: { '.tag': 'basic' },
    root_info: { '.tag': 'user', root_namespace_id: '3235641', home_namespace_id: '3235641' },
  });
}
