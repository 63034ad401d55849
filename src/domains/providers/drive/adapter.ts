/**
 * The Google Drive v3 adapter: kgate's provider port over Drive's REST API (docs/providers/drive.md). A mapping's
 * root is a folder id; paths below it are found folder by folder by name; `version` is the concurrency token,
 * re-checked immediately before every update or move to the trash because Drive has no conditional write.
 */
import { z } from 'zod';
import { driveJson, driveUrl, isFolder, rateLimitDelay } from './api.ts';
import { changesPage, startPageToken } from './changes.ts';
import { readFile, statFile, trashFile, writeFile } from './files.ts';
import { listPage } from './listing.ts';
import { driveOAuth } from './oauth.ts';
import { fileById, findFolder } from './tree.ts';
import { ProviderError, type ProviderAdapter, type ProviderCall, type RemoteRoot } from '../port.ts';

type DriveRoot = Extract<RemoteRoot, { kind: 'drive' }>;

function driveRoot(root: RemoteRoot): DriveRoot {
  if (root.kind !== 'drive' || root.folderId === '') throw new ProviderError('invalid', 'This root is not a resolved Drive folder.');
  return root;
}

const AboutSchema = z.object({
  user: z.object({ permissionId: z.string().min(1), displayName: z.string().optional(), emailAddress: z.string().optional() }),
});

/** The folder behind an id (or `root`): its real id, or `not_found` when it is no folder outside the trash. */
async function folderById(call: ProviderCall, folderId: string): Promise<string> {
  const folder = await fileById(call, folderId);
  if (!folder || !isFolder(folder) || folder.trashed) throw new ProviderError('not_found', 'No Drive folder has this id.');
  return folder.id;
}

/** The Google Drive v3 provider adapter. */
export const driveAdapter: ProviderAdapter = {
  ...driveOAuth,
  kind: 'drive',

  async identity(call) {
    const about = await driveJson(
      call,
      { method: 'GET', url: driveUrl(call, '/drive/v3/about', { fields: 'user(permissionId,displayName,emailAddress)' }) },
      AboutSchema,
      'the account lookup',
    );
    return { id: about.user.permissionId, name: about.user.emailAddress ?? about.user.displayName ?? about.user.permissionId };
  },

  async resolveRoot(call, root) {
    if (root.kind !== 'drive') throw new ProviderError('invalid', 'This root is not a Drive folder.');
    // An id the owner picked wins; otherwise the typed path is followed by name from My Drive, folder by folder.
    if (root.folderId !== '') return { kind: 'drive', folderId: await folderById(call, root.folderId), path: root.path };
    const names = root.path.split('/').filter(Boolean);
    if (names.some((name) => name === '.' || name === '..')) throw new ProviderError('invalid', 'The folder path may not hold "." or "..".');
    let folderId: string | null;
    try {
      folderId = await findFolder(call, 'root', names);
    } catch (error) {
      // Two folders of one name on the typed path: the owner must pick one by id; kgate does not guess.
      if (error instanceof ProviderError && error.code === 'conflict') throw new ProviderError('invalid', error.message);
      throw error;
    }
    if (folderId === null) throw new ProviderError('not_found', 'No Drive folder is at this path.');
    return { kind: 'drive', folderId: await folderById(call, folderId), path: names.join('/') };
  },

  // Drive's change feed is account-wide: the cursor does not depend on the root.
  changeCursor: async (call) => startPageToken(call),
  list: async (call, root, page, limits) => listPage(call, driveRoot(root).folderId, page, limits),
  changes: async (call, root, cursor, limits) => {
    driveRoot(root);
    return changesPage(call, cursor, limits);
  },
  stat: async (call, root, path) => statFile(call, driveRoot(root).folderId, path),
  read: async (call, root, path, maxBytes) => readFile(call, driveRoot(root).folderId, path, maxBytes),
  write: async (call, root, input) => writeFile(call, driveRoot(root).folderId, input),
  trash: async (call, root, input) => {
    driveRoot(root);
    return trashFile(call, input);
  },
  transientDelay: rateLimitDelay,
};
