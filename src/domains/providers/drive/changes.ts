/**
 * Drive's change feed (changes.getStartPageToken, changes.list) as kgate's change cursor. The feed is account-wide
 * and names file ids, not paths; a change says where a file is now, never where it was. A stateless adapter cannot
 * tell from it which path of the mapping went away when a file was renamed, moved or moved out of the root, so this
 * first version places nothing: a page whose changes could touch any file or folder answers `relist` (the caller
 * lists again and compares revisions) with a fresh cursor taken before that listing; a page of changes that cannot
 * (Google Docs documents, shortcuts, shared-drive metadata) is skipped. docs/providers/drive.md says why.
 */
import { z } from 'zod';
import { driveJson, driveUrl, FOLDER_MIME, isContentFile } from './api.ts';
import { ProviderError, type ChangePage, type ProviderCall, type TraversalLimits } from '../port.ts';

const DRIVE_MAX_PAGE = 1000;

const ChangeListSchema = z.object({
  nextPageToken: z.string().optional(),
  newStartPageToken: z.string().optional(),
  changes: z
    .array(
      z.object({
        changeType: z.string().optional(),
        removed: z.boolean().optional(),
        fileId: z.string().optional(),
        file: z.object({ mimeType: z.string() }).optional(),
      }),
    )
    .default([]),
});
type DriveChange = z.infer<typeof ChangeListSchema>['changes'][number];

/** The page token of the account's next change (taken before a full listing). */
export async function startPageToken(call: ProviderCall): Promise<string> {
  const answer = await driveJson(
    call,
    { method: 'GET', url: driveUrl(call, '/drive/v3/changes/startPageToken', { fields: 'startPageToken' }) },
    z.object({ startPageToken: z.string().min(1) }),
    'a change cursor',
  );
  return answer.startPageToken;
}

/**
 * Whether a change may concern a file kgate lists: anything but a shared drive's own metadata or a Google document
 * (which has no bytes and is never listed). A removed file names no type: it may have been a note.
 */
function mayTouchFiles(change: DriveChange): boolean {
  if (change.changeType === 'drive') return false;
  if (change.removed || !change.file) return true;
  return change.file.mimeType === FOLDER_MIME || isContentFile(change.file);
}

/** One page of changes after `cursor` (see ProviderAdapter.changes and the header of this file). */
export async function changesPage(call: ProviderCall, cursor: string, limits: TraversalLimits): Promise<ChangePage> {
  const pageSize = Math.min(DRIVE_MAX_PAGE, Math.max(1, limits.maxEntries));
  const answer = await driveJson(
    call,
    {
      method: 'GET',
      url: driveUrl(call, '/drive/v3/changes', {
        pageToken: cursor,
        pageSize: String(pageSize),
        includeRemoved: 'true',
        fields: 'nextPageToken,newStartPageToken,changes(changeType,removed,fileId,file(mimeType))',
      }),
    },
    ChangeListSchema,
    'a change listing',
  );
  if (answer.changes.length > pageSize) {
    throw new ProviderError('budget_exhausted', `A change page may hold at most ${limits.maxEntries} entries.`, { bound: 'entries' });
  }
  if (answer.changes.some(mayTouchFiles)) return { relist: true, cursor: await startPageToken(call) };
  const next = answer.nextPageToken ?? answer.newStartPageToken;
  if (!next) throw new ProviderError('protocol', 'Drive answered a change listing without a page token.');
  return { relist: false, changed: [], removed: [], cursor: next, more: answer.nextPageToken !== undefined };
}
