/**
 * Paths on Drive. Drive knows files by id and lets a folder hold several files with one name, so a path is found by
 * asking each folder for the child of that name, one request per level. A folder name on the way that matches two
 * folders makes the path ambiguous: kgate refuses to guess (`conflict`), it never picks one of them.
 */
import { FILE_FIELDS, FileListSchema, DriveFileSchema, driveFailure, driveJson, driveUrl, FOLDER_MIME, isContentFile, isFolder, queryString, type DriveFile } from './api.ts';
import { ProviderError, type ProviderCall } from '../port.ts';

/** Children of a folder, outside the trash, named exactly `name` (Drive's `name =` is matched again here, byte for byte). */
export async function childrenNamed(call: ProviderCall, folderId: string, name: string): Promise<DriveFile[]> {
  const found: DriveFile[] = [];
  let pageToken: string | undefined;
  do {
    const page = await driveJson(
      call,
      {
        method: 'GET',
        url: driveUrl(call, '/drive/v3/files', {
          q: `${queryString(folderId)} in parents and name = ${queryString(name)} and trashed = false`,
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          pageSize: '100',
          ...(pageToken ? { pageToken } : {}),
        }),
      },
      FileListSchema,
      'a folder lookup',
    );
    found.push(...page.files.filter((file) => file.name === name));
    pageToken = page.nextPageToken;
  } while (pageToken);
  return found;
}

/** The one folder among siblings of one name; null when there is none, `conflict` when there are two. */
function oneFolder(candidates: DriveFile[], name: string): DriveFile | null {
  const folders = candidates.filter(isFolder);
  if (folders.length > 1) throw new ProviderError('conflict', `Two Drive folders are named "${name}" in one folder: the path is ambiguous.`);
  return folders[0] ?? null;
}

/** The folder at `folders` below `rootId`; null when one on the way is missing. */
export async function findFolder(call: ProviderCall, rootId: string, folders: string[]): Promise<string | null> {
  let parentId = rootId;
  for (const name of folders) {
    const folder = oneFolder(await childrenNamed(call, parentId, name), name);
    if (!folder) return null;
    parentId = folder.id;
  }
  return parentId;
}

/** The content file at a path below `rootId`; null when there is none, `conflict` when two files share the path. */
export async function findFile(call: ProviderCall, rootId: string, segments: string[]): Promise<DriveFile | null> {
  const parentId = await findFolder(call, rootId, segments.slice(0, -1));
  if (parentId === null) return null;
  const files = (await childrenNamed(call, parentId, segments.at(-1)!)).filter((file) => !isFolder(file) && isContentFile(file));
  if (files.length > 1) throw new ProviderError('conflict', `Drive holds ${files.length} files at this path: kgate will not choose one.`);
  return files[0] ?? null;
}

/** The folder at `folders` below `rootId`, creating the missing ones (each create is sent once: it has no token). */
export async function ensureFolder(call: ProviderCall, rootId: string, folders: string[]): Promise<string> {
  let parentId = rootId;
  for (const name of folders) {
    const existing = oneFolder(await childrenNamed(call, parentId, name), name);
    if (existing) {
      parentId = existing.id;
      continue;
    }
    const created = await driveJson(
      call,
      {
        method: 'POST',
        url: driveUrl(call, '/drive/v3/files', { fields: FILE_FIELDS }),
        headers: { 'content-type': 'application/json; charset=UTF-8' },
        body: JSON.stringify({ name, mimeType: FOLDER_MIME, parents: [parentId] }),
        once: true,
      },
      DriveFileSchema,
      'a folder create',
    );
    parentId = created.id;
  }
  return parentId;
}

/** A file's live metadata by id; null when Drive does not know it (404). */
export async function fileById(call: ProviderCall, fileId: string): Promise<DriveFile | null> {
  const response = await call.send({
    method: 'GET',
    url: driveUrl(call, `/drive/v3/files/${encodeURIComponent(fileId)}`, { fields: FILE_FIELDS }),
    headers: { accept: 'application/json' },
  });
  if (response.status === 404) return null;
  if (response.status !== 200) throw driveFailure(response, 'a metadata read');
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    body = null;
  }
  const parsed = DriveFileSchema.safeParse(body);
  if (!parsed.success) throw new ProviderError('protocol', 'Drive answered a metadata read in an unexpected shape.', { status: 200 });
  return parsed.data;
}
