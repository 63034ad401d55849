/**
 * Dropbox's Metadata union (file, folder, deleted) as kgate reads it, and its translation into RemoteEntry:
 * the path below the root in display case, `id:...` as the file id, `rev` as the revision and concurrency token.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { RemoteEntry, RemoteRoot } from '../port.ts';
import { relativeTo } from './paths.ts';

const PathFields = {
  name: z.string(),
  // Null when the entry is not mounted; kgate never lists such entries, but the schema must accept them.
  path_lower: z.string().nullish(),
  path_display: z.string().nullish(),
};

/** FileMetadata: the fields kgate uses (others are ignored). */
export const FileMetadataSchema = z.object({
  '.tag': z.literal('file'),
  ...PathFields,
  id: z.string().min(1),
  rev: z.string().regex(/^[0-9a-f]{9,}$/),
  size: z.number().int().nonnegative(),
  server_modified: z.string(),
  content_hash: z.string().optional(),
});
export type FileMetadata = z.infer<typeof FileMetadataSchema>;

const FolderMetadataSchema = z.object({ '.tag': z.literal('folder'), ...PathFields, id: z.string().min(1) });
const DeletedMetadataSchema = z.object({ '.tag': z.literal('deleted'), ...PathFields });

/** Any Metadata: `.tag` says which. */
export const MetadataSchema = z.discriminatedUnion('.tag', [FileMetadataSchema, FolderMetadataSchema, DeletedMetadataSchema]);
export type Metadata = z.infer<typeof MetadataSchema>;

/** ListFolderResult of list_folder and list_folder/continue. */
export const ListFolderResultSchema = z.object({ entries: z.array(MetadataSchema), cursor: z.string().min(1), has_more: z.boolean() });

/** list_folder/get_latest_cursor's answer. */
export const LatestCursorSchema = z.object({ cursor: z.string().min(1) });

/** A file of Dropbox as a RemoteEntry below the root (null for the root itself). */
export function toEntry(root: RemoteRoot, file: FileMetadata): RemoteEntry | null {
  const path = relativeTo(root, file);
  if (path === null) return null;
  return { path, fileId: file.id, revision: file.rev, size: file.size, modifiedAt: file.server_modified };
}

/**
 * Dropbox's content hash of bytes: SHA-256 of the concatenated SHA-256 digests of each 4 MiB block
 * (www.dropbox.com/developers/reference/content-hash). It tells whether a file holds exactly what kgate wrote.
 */
export function dropboxContentHash(content: Buffer): string {
  const BLOCK = 4 * 1024 * 1024;
  const whole = createHash('sha256');
  for (let offset = 0; offset < content.length; offset += BLOCK) {
    whole.update(createHash('sha256').update(content.subarray(offset, offset + BLOCK)).digest());
  }
  return whole.digest('hex');
}
