/**
 * Reading and conditionally writing one Drive file. Drive v3 has no conditional update, so kgate's rule is: read the
 * file's `version` immediately before the update and refuse (`conflict`) when it is not the one the caller expects;
 * a create first asks the parent folder for the name. The update itself is sent once (not repeated after a server
 * error) so that the window between the check and the update stays one round trip; docs/providers/drive.md names
 * what can still happen in it.
 */
import { randomBytes } from 'node:crypto';
import { DriveFileSchema, FILE_FIELDS, driveFailure, driveJson, driveUrl, isContentFile, isFolder, pathSegments, toEntry, type DriveFile } from './api.ts';
import { childrenNamed, ensureFolder, fileById, findFile } from './tree.ts';
import { ProviderError, type ExpectedFile, type ProviderCall, type RemoteEntry } from '../port.ts';

// Each download is checked against the version read before it; a file rewritten during every try is refused.
const READ_ATTEMPTS = 3;

/** Live metadata of the file at a path; null when none (see ProviderAdapter.stat). */
export async function statFile(call: ProviderCall, rootId: string, path: string): Promise<RemoteEntry | null> {
  const file = await findFile(call, rootId, pathSegments(path));
  return file ? toEntry(file, path) : null;
}

/**
 * Downloads a file with the metadata of exactly the bytes returned: the version is read before the download and
 * again after it, and the download is repeated when it changed in between (a download alone says no version).
 */
export async function readFile(call: ProviderCall, rootId: string, path: string, maxBytes: number): Promise<{ entry: RemoteEntry; content: Buffer }> {
  const file = await findFile(call, rootId, pathSegments(path));
  if (!file) throw new ProviderError('not_found', 'No file is at this path.');
  let entry = toEntry(file, path);
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    if (entry.size > maxBytes) throw new ProviderError('too_large', `The file is larger than ${maxBytes} bytes.`, { bound: 'bytes' });
    const response = await call.send({
      method: 'GET',
      url: driveUrl(call, `/drive/v3/files/${encodeURIComponent(entry.fileId)}`, { alt: 'media' }),
      maxBytes,
    });
    if (response.status !== 200) throw driveFailure(response, 'a download');
    const after = await fileById(call, entry.fileId);
    // Renamed or moved away during the download: the bytes are no longer those at this path.
    const moved = after !== null && (after.name !== file.name || [...(after.parents ?? [])].sort().join() !== [...(file.parents ?? [])].sort().join());
    if (!after || after.trashed || moved) throw new ProviderError('not_found', 'The file was deleted or moved while it was read.');
    if (after.version === entry.revision) return { entry, content: response.body };
    entry = toEntry(after, path);
  }
  throw new ProviderError('conflict', 'The file changed during every attempt to read it.');
}

/** The live file behind an expected id and revision: `conflict` when it changed, `missing` when it is gone. */
async function expectedFile(call: ProviderCall, expected: { fileId: string; revision: string }, name: string): Promise<DriveFile | 'missing'> {
  const file = await fileById(call, expected.fileId);
  if (!file || file.trashed) return 'missing';
  if (file.version !== expected.revision || file.name !== name || isFolder(file) || !isContentFile(file)) {
    throw new ProviderError('conflict', 'The file changed at Drive since the revision this write expects.');
  }
  return file;
}

/** A multipart/related body (metadata, then media), Drive's one-request upload of a new file. */
export function multipart(metadata: object, content: Buffer, contentType: string): { body: Buffer; contentType: string } {
  let boundary = `kgate_${randomBytes(16).toString('hex')}`;
  while (content.includes(boundary)) boundary = `kgate_${randomBytes(16).toString('hex')}`;
  const head = `--${boundary}\r\ncontent-type: application/json; charset=UTF-8\r\n\r\n${JSON.stringify(metadata)}\r\n--${boundary}\r\ncontent-type: ${contentType}\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]), contentType: `multipart/related; boundary=${boundary}` };
}

function mimeTypeOf(name: string): string {
  return /\.(md|markdown)$/i.test(name) ? 'text/markdown' : 'application/octet-stream';
}

/** Writes one file conditionally (see ProviderAdapter.write). */
export async function writeFile(call: ProviderCall, rootId: string, input: { path: string; content: Buffer; expected: ExpectedFile }): Promise<RemoteEntry> {
  const segments = pathSegments(input.path);
  const name = segments.at(-1)!;
  const mimeType = mimeTypeOf(name);
  if (input.expected === null) {
    const parentId = await ensureFolder(call, rootId, segments.slice(0, -1));
    const taken = (await childrenNamed(call, parentId, name)).some((file) => !isFolder(file));
    if (taken) throw new ProviderError('conflict', 'A file already exists at this path.');
    const upload = multipart({ name, parents: [parentId], mimeType }, input.content, mimeType);
    const created = await driveJson(
      call,
      {
        method: 'POST',
        url: driveUrl(call, '/upload/drive/v3/files', { uploadType: 'multipart', fields: FILE_FIELDS }),
        headers: { 'content-type': upload.contentType },
        body: upload.body,
        // A create has no concurrency token: repeated after a lost answer it would make a second file.
        once: true,
      },
      DriveFileSchema,
      'a file create',
    );
    return toEntry(created, input.path);
  }
  const live = await expectedFile(call, input.expected, name);
  if (live === 'missing') throw new ProviderError('conflict', 'The file this write expects is no longer at Drive.');
  const updated = await driveJson(
    call,
    {
      method: 'PATCH',
      url: driveUrl(call, `/upload/drive/v3/files/${encodeURIComponent(live.id)}`, { uploadType: 'media', fields: FILE_FIELDS }),
      headers: { 'content-type': live.mimeType },
      body: input.content,
      once: true,
    },
    DriveFileSchema,
    'a file update',
  );
  return toEntry(updated, input.path);
}

/** Moves one file to Drive's trash conditionally (see ProviderAdapter.trash); `not_found` when it is already gone. */
export async function trashFile(call: ProviderCall, input: { path: string; expected: { fileId: string; revision: string } }): Promise<void> {
  const name = pathSegments(input.path).at(-1)!;
  const live = await expectedFile(call, input.expected, name);
  if (live === 'missing') throw new ProviderError('not_found', 'The file is no longer at Drive (deleted or already in the trash).');
  await driveJson(
    call,
    {
      method: 'PATCH',
      url: driveUrl(call, `/drive/v3/files/${encodeURIComponent(live.id)}`, { fields: 'id,trashed' }),
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify({ trashed: true }),
      once: true,
    },
    DriveFileSchema.pick({ id: true, trashed: true }),
    'a move to the trash',
  );
}
