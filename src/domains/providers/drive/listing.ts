/**
 * The full listing of a Drive root, one bounded page at a time. Drive lists one folder's children per query, so the
 * listing walks folders breadth first; the page cursor carries the folders still to visit and Drive's own page token
 * within the current one. Every file is returned, duplicates included: two files with one path come back as two
 * entries (different `fileId`), and the sync engine treats such a path as a conflict instead of picking one.
 */
import { z } from 'zod';
import { encodeCursor } from '../../../kernel/cursor.ts';
import { FILE_FIELDS, FileListSchema, driveJson, driveUrl, isContentFile, isFolder, isPathName, queryString, toEntry } from './api.ts';
import { ProviderError, type ListPage, type ProviderCall, type RemoteEntry, type TraversalLimits } from '../port.ts';

/** Drive's largest files.list page. */
const DRIVE_MAX_PAGE = 1000;
// One page stops after this many Drive requests even when it holds few entries (a tree of many small folders), so
// that a page fits in one operation's request budget; the rest follows with `next`.
const REQUESTS_PER_PAGE = 20;
// The cursor carries every folder found and not yet listed (about 100 bytes each): bounded so that it stays small.
const MAX_PENDING_FOLDERS = 5000;

/** A folder still to list: id, path below the root ('' for the root) and level (the root's own files are level 0). */
const FolderSchema = z.tuple([z.string().min(1), z.string(), z.number().int().min(0)]);
const CursorSchema = z.object({ v: z.literal(1), folders: z.array(FolderSchema).min(1), token: z.string().nullable() });
type ListCursor = z.infer<typeof CursorSchema>;

function decode(page: string): ListCursor {
  try {
    const parsed = CursorSchema.safeParse(JSON.parse(Buffer.from(page, 'base64url').toString('utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // Falls through to the error below.
  }
  throw new ProviderError('invalid', 'The listing cursor is not one this adapter made.');
}

/** One page of the listing below the folder `rootId` (see ProviderAdapter.list). */
export async function listPage(call: ProviderCall, rootId: string, page: string | null, limits: TraversalLimits): Promise<ListPage> {
  const state: ListCursor = page === null ? { v: 1, folders: [[rootId, '', 0]], token: null } : decode(page);
  const entries: RemoteEntry[] = [];
  let counted = 0;
  let requests = 0;
  while (state.folders.length > 0 && counted < limits.maxEntries && requests < REQUESTS_PER_PAGE) {
    const [folderId, folderPath, level] = state.folders[0]!;
    const pageSize = Math.min(DRIVE_MAX_PAGE, limits.maxEntries - counted);
    requests += 1;
    const answer = await driveJson(
      call,
      {
        method: 'GET',
        url: driveUrl(call, '/drive/v3/files', {
          q: `${queryString(folderId)} in parents and trashed = false`,
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          pageSize: String(pageSize),
          ...(state.token ? { pageToken: state.token } : {}),
        }),
      },
      FileListSchema,
      'a folder listing',
    );
    if (answer.files.length > pageSize) {
      throw new ProviderError('budget_exhausted', `A listing page may hold at most ${limits.maxEntries} entries.`, { bound: 'entries' });
    }
    counted += answer.files.length;
    for (const file of answer.files) {
      // A name with '/' (or '.', '..') could not be found again by its path: such files are left out (docs/providers/drive.md).
      if (!isPathName(file.name)) continue;
      const path = folderPath === '' ? file.name : `${folderPath}/${file.name}`;
      if (isFolder(file)) {
        if (level + 1 > limits.maxDepth) {
          throw new ProviderError('budget_exhausted', `Folders deeper than ${limits.maxDepth} levels below the root are not traversed.`, { bound: 'depth' });
        }
        if (state.folders.length >= MAX_PENDING_FOLDERS) {
          throw new ProviderError('budget_exhausted', `A listing may hold at most ${MAX_PENDING_FOLDERS} folders waiting to be listed.`, { bound: 'entries' });
        }
        state.folders.push([file.id, path, level + 1]);
      } else if (isContentFile(file)) {
        entries.push(toEntry(file, path));
      }
    }
    if (answer.nextPageToken) {
      state.token = answer.nextPageToken;
    } else {
      state.folders.shift();
      state.token = null;
    }
  }
  return { entries, next: state.folders.length > 0 ? encodeCursor(state) : null };
}
