/**
 * One file at a time on Dropbox: metadata (`files/get_metadata`), download, conditional upload and conditional delete.
 * Concurrency: a create uploads in `add` mode and a replacement in `update` mode with the expected `rev`, both with
 * `strict_conflict` and without autorename, so Dropbox itself refuses the write (409 path/conflict) when anything
 * else is at the path; a delete sends `parent_rev` (409 path_write/conflict when the file changed). Nothing is
 * ever overwritten on a mismatch.
 */
import { z } from 'zod';
import { ProviderError, type ExpectedFile, type ProviderCall, type ProviderIdentity, type RemoteEntry, type RemoteRoot } from '../port.ts';
import { dropboxContentHash, FileMetadataSchema, MetadataSchema, toEntry, type FileMetadata, type Metadata } from './metadata.ts';
import { normalizeRootPath, remotePath } from './paths.ts';
import { contentDownload, contentUpload, endpointFailure, hasTag, rpc } from './wire.ts';

/** `files/upload` takes at most 150 MiB; larger files need upload sessions, which kgate's notes never do. */
const UPLOAD_LIMIT = 150 * 1024 * 1024;

const AccountSchema = z.object({ account_id: z.string().min(1), name: z.object({ display_name: z.string() }), email: z.string().optional() });

function entryOf(root: RemoteRoot, file: FileMetadata): RemoteEntry {
  const entry = toEntry(root, file);
  if (!entry) throw new ProviderError('protocol', 'Dropbox answered with the mapped folder where a file was expected.');
  return entry;
}

/** Metadata at a Dropbox path; null when nothing is there (or an ancestor is not a folder). */
async function metadataAt(call: ProviderCall, path: string): Promise<Metadata | null> {
  const answer = await rpc(call, 'files/get_metadata', { path }, MetadataSchema);
  if (answer.ok) return answer.value;
  if (hasTag(answer.error, 'not_found', 'not_file', 'not_folder')) return null;
  throw endpointFailure('files/get_metadata', answer.error);
}

/** The account behind the token (`users/get_current_account`). */
export async function currentAccount(call: ProviderCall): Promise<ProviderIdentity> {
  const answer = await rpc(call, 'users/get_current_account', undefined, AccountSchema);
  if (!answer.ok) throw endpointFailure('users/get_current_account', answer.error);
  const account = answer.value;
  return { id: account.account_id, name: account.name.display_name || account.email || account.account_id };
}

/** Checks that the typed folder exists and is a folder; answers it in Dropbox's display case. */
export async function resolveFolder(call: ProviderCall, root: RemoteRoot): Promise<RemoteRoot> {
  if (root.kind !== 'dropbox') throw new ProviderError('invalid', `A ${root.kind} root was handed to the Dropbox adapter.`);
  const path = normalizeRootPath(root.path);
  // Dropbox has no metadata for its root ('' is always there).
  if (path === '') return { kind: 'dropbox', path: '' };
  const found = await metadataAt(call, path);
  if (!found || found['.tag'] !== 'folder') throw new ProviderError('not_found', 'There is no Dropbox folder at this path.');
  return { kind: 'dropbox', path: found.path_display ?? path };
}

/** Live metadata of one file below the root; null when no file is there. */
export async function statFile(call: ProviderCall, root: RemoteRoot, path: string): Promise<RemoteEntry | null> {
  const found = await metadataAt(call, remotePath(root, path));
  return found?.['.tag'] === 'file' ? entryOf(root, found) : null;
}

/** Downloads one file; its metadata comes with the bytes (`Dropbox-API-Result`), so both describe the same revision. */
export async function readFile(call: ProviderCall, root: RemoteRoot, path: string, maxBytes: number): Promise<{ entry: RemoteEntry; content: Buffer }> {
  const answer = await contentDownload(call, 'files/download', { path: remotePath(root, path) }, FileMetadataSchema, maxBytes);
  if (!answer.ok) throw endpointFailure('files/download', answer.error);
  const { result, content } = answer.value;
  if (result.size > maxBytes || content.length > maxBytes) throw new ProviderError('too_large', `The file is larger than ${maxBytes} bytes.`, { bound: 'bytes' });
  if (content.length !== result.size) throw new ProviderError('protocol', 'Dropbox sent a different number of bytes than the file has.');
  return { entry: entryOf(root, result), content };
}

/** Uploads one file conditionally (see the file comment); missing folders on the way are created by Dropbox. */
export async function writeFile(call: ProviderCall, root: RemoteRoot, input: { path: string; content: Buffer; expected: ExpectedFile }): Promise<RemoteEntry> {
  const path = remotePath(root, input.path);
  if (input.content.length > UPLOAD_LIMIT) throw new ProviderError('too_large', 'Dropbox uploads in one request are limited to 150 MiB.');
  const mode = input.expected === null ? { '.tag': 'add' } : { '.tag': 'update', update: input.expected.revision };
  const arg = { path, mode, autorename: false, mute: true, strict_conflict: true };
  const answer = await contentUpload(call, 'files/upload', arg, input.content, FileMetadataSchema);
  if (answer.ok) return entryOf(root, answer.value);
  if (!hasTag(answer.error, 'conflict')) throw endpointFailure('files/upload', answer.error);
  // A retried upload whose first attempt landed (the answer was lost) meets its own revision: if the file holds
  // exactly these bytes, the write is done and nothing of anyone else's was replaced.
  const current = await metadataAt(call, path);
  if (current?.['.tag'] === 'file' && current.content_hash === dropboxContentHash(input.content)) return entryOf(root, current);
  throw new ProviderError('conflict', input.expected === null ? 'Something is already at this path in Dropbox.' : 'The file changed in Dropbox since the expected revision.', { status: 409 });
}

/** Deletes one file into Dropbox's deleted files (restorable), only while its rev is still the expected one. */
export async function trashFile(call: ProviderCall, root: RemoteRoot, input: { path: string; expected: { fileId: string; revision: string } }): Promise<void> {
  const answer = await rpc(call, 'files/delete_v2', { path: remotePath(root, input.path), parent_rev: input.expected.revision }, z.object({ metadata: MetadataSchema }));
  if (answer.ok) return;
  // parent_rev is refused for folders (not_file): a folder in the file's place is a changed path too.
  if (hasTag(answer.error, 'conflict', 'not_file')) throw new ProviderError('conflict', 'The file changed in Dropbox since the expected revision.', { status: 409 });
  throw endpointFailure('files/delete_v2', answer.error);
}
