/**
 * Drive files addressed by id, for products' round trips over delegated connections (docs/education.md): with the
 * drive.file scope an app sees only the files it created and those the user picked, so files are named by id, never
 * found by path. A create carries an id from files.generateIds, which makes it safe to repeat: Drive answers 409 to a
 * second create with the same id instead of making a second file. Drive has no conditional update: a caller checks
 * `version` immediately before `uploadContent` (one round trip remains between the two, as docs/providers.md says).
 */
import { z } from 'zod';
import { DriveFileSchema, FILE_FIELDS, driveFailure, driveJson, driveUrl, isContentFile, isFolder, type DriveFile } from './api.ts';
import { multipart } from './files.ts';
import { listPage } from './listing.ts';
import { fileById } from './tree.ts';
import { ProviderError, type ListPage, type ProviderCall, type TraversalLimits } from '../port.ts';

export type { DriveFile } from './api.ts';

// Each download is checked against the version read after it; a file rewritten during every try is refused.
const DOWNLOAD_ATTEMPTS = 3;

/** One pre-generated file id (files.generateIds). */
async function generateId(call: ProviderCall): Promise<string> {
  const answer = await driveJson(
    call,
    { method: 'GET', url: driveUrl(call, '/drive/v3/files/generateIds', { count: '1', space: 'drive', type: 'files' }) },
    z.object({ ids: z.array(z.string().min(1)).min(1) }),
    'an id request',
  );
  return answer.ids[0]!;
}

/**
 * Creates a file with a pre-generated id in one multipart upload. When Drive answers 409 (a create with this id
 * already landed, its answer lost), the file is read back instead: `existed` says so, and nothing is created twice.
 */
async function create(
  call: ProviderCall,
  input: { id: string; name: string; parentId: string; mimeType: string; content: Buffer },
): Promise<{ file: DriveFile; existed: boolean }> {
  const upload = multipart({ id: input.id, name: input.name, parents: [input.parentId], mimeType: input.mimeType }, input.content, input.mimeType);
  const response = await call.send({
    method: 'POST',
    url: driveUrl(call, '/upload/drive/v3/files', { uploadType: 'multipart', fields: FILE_FIELDS }),
    headers: { 'content-type': upload.contentType, accept: 'application/json' },
    body: upload.body,
    // The id makes a repeat safe, but a repeat is the caller's to decide (its key's intent records the id).
    once: true,
  });
  if (response.status === 409) {
    const existing = await fileById(call, input.id);
    if (!existing || existing.trashed) throw new ProviderError('conflict', 'The file this request created is no longer in Drive (deleted or in the trash).');
    return { file: existing, existed: true };
  }
  if (response.status < 200 || response.status > 299) throw driveFailure(response, 'a file create');
  const parsed = DriveFileSchema.safeParse(JSON.parse(response.body.toString('utf8') || 'null'));
  if (!parsed.success) throw new ProviderError('protocol', 'Drive answered a file create in an unexpected shape.', { status: response.status });
  return { file: parsed.data, existed: false };
}

/** A file's live metadata, or null when Drive does not have it for this connection (missing, or not visible to it). */
async function metadata(call: ProviderCall, fileId: string): Promise<DriveFile | null> {
  return fileById(call, fileId);
}

/** Replaces the content of a file (a media upload, sent once); the caller checked its version a moment before. */
async function uploadContent(call: ProviderCall, live: DriveFile, content: Buffer): Promise<DriveFile> {
  if (isFolder(live) || !isContentFile(live)) throw new ProviderError('invalid', 'This item is a folder or a Google document, not a file with content.');
  return driveJson(
    call,
    {
      method: 'PATCH',
      url: driveUrl(call, `/upload/drive/v3/files/${encodeURIComponent(live.id)}`, { uploadType: 'media', fields: FILE_FIELDS }),
      headers: { 'content-type': live.mimeType },
      body: content,
      once: true,
    },
    DriveFileSchema,
    'a file update',
  );
}

/**
 * Downloads a file with the metadata of exactly the bytes returned: the version is read again after the download,
 * and the download repeated when it changed in between. `maxBytes` bounds the download (`too_large` beyond).
 */
async function download(call: ProviderCall, file: { id: string; version: string; size: number }, maxBytes: number): Promise<{ content: Buffer; file: DriveFile }> {
  let expected = file;
  for (let attempt = 0; attempt < DOWNLOAD_ATTEMPTS; attempt += 1) {
    if (expected.size > maxBytes) throw new ProviderError('too_large', `The file is larger than ${maxBytes} bytes.`, { bound: 'bytes' });
    const response = await call.send({ method: 'GET', url: driveUrl(call, `/drive/v3/files/${encodeURIComponent(file.id)}`, { alt: 'media' }), maxBytes });
    if (response.status !== 200) throw driveFailure(response, 'a download');
    const after = await fileById(call, file.id);
    if (!after || after.trashed) throw new ProviderError('not_found', 'The file was deleted while it was read.');
    if (after.version === expected.version) return { content: response.body, file: after };
    if (after.version === undefined) throw new ProviderError('protocol', 'Drive answered a file without its version.');
    expected = { id: file.id, version: after.version, size: Number(after.size ?? 0) };
  }
  throw new ProviderError('conflict', 'The file changed during every attempt to read it.');
}

/** One page of the files below a folder, breadth first, bounded in depth and entries (see ProviderAdapter.list). */
function listTree(call: ProviderCall, folderId: string, page: string | null, limits: TraversalLimits): Promise<ListPage> {
  return listPage(call, folderId, page, limits);
}

/** Drive files by id (see the header of this file). */
export const driveFiles = { generateId, create, metadata, uploadContent, download, listTree, isFolder, isContentFile };
