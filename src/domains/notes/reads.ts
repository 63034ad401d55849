import type { Database } from '../../db/port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/cursor.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import type { VaultsService } from '../vaults/index.ts';
import type { NoteBodyCache } from './body-cache.ts';
import type { Note, NoteSummary } from './contract.ts';
import { assertReadableBodies } from './policy.ts';
import * as store from './store.ts';
import * as trash from './trash-store.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Mapping } from '../vaults/index.ts';
import { noteTitle } from './title.ts';
import type { RemoteNotes } from './write-deps.ts';
import type { Sql } from '../../db/port.ts';

/** A page of a remote mapping's notes as its last sync saw them, in byte order of path (remote_files). */
async function listRemoteSummaries(sql: Sql, mappingId: string, after: string | null, limit: number, prefix: string | null): Promise<NoteSummary[]> {
  const rows = await sql.query<{ path: string; revision: string; size: number; modified_at: Date | null; title: string | null }>(
    `SELECT f.path, f.revision, f.size, f.modified_at, n.title
       FROM remote_files f
       JOIN mappings m ON m.id = f.mapping_id
       LEFT JOIN notes n ON n.vault_id = m.vault_id AND n.path_key = f.path_key
      WHERE f.mapping_id = $1 AND f.state IN ('synced', 'encrypted', 'too_large') AND ($2::text IS NULL OR f.path COLLATE "C" > $2)
        AND ($4::text IS NULL OR (f.path COLLATE "C" >= $4::text COLLATE "C" AND starts_with(f.path, $4::text)))
      ORDER BY f.path COLLATE "C" LIMIT $3`,
    [mappingId, after, limit, prefix],
  );
  return rows.map((r) => ({
    path: r.path,
    // Without a copy (device-encrypted, too large) the title is the file name, as for a note without a heading.
    title: r.title ?? noteTitle(r.path, ''),
    revision: r.revision,
    size: Number(r.size),
    updatedAt: r.modified_at ?? new Date(0),
  }));
}

/** Most notes in one inventory page (spec 8). */
export const MAX_INVENTORY_PAGE = 1000;
/** Most trash entries in one page. */
export const MAX_TRASH_PAGE = 1000;

/** A page of results with the cursor of the next page (null on the last page). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

const isPathCursor = (v: unknown): v is { p: string } => typeof v === 'object' && v !== null && typeof (v as { p: unknown }).p === 'string';
const isTrashCursor = (v: unknown): v is { d: string; i: string } =>
  typeof v === 'object' && v !== null && typeof (v as { d: unknown }).d === 'string' && typeof (v as { i: unknown }).i === 'string';

function boundedLimit(limit: number | undefined, max: number): number {
  if (limit === undefined) return max;
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    throw new KgateError('invalid_request', `limit is an integer from 1 to ${max}.`, { field: 'limit' });
  }
  return limit;
}

/**
 * A remote note read live at its provider: the provider's revision (not a content hash: spec 2.3) and our
 * contentHash, the value for expectedHash. Times are the provider's modification time, else the read's.
 */
async function readRemoteNote(remote: RemoteNotes | undefined, mapping: Mapping, path: string): Promise<Note> {
  if (!remote) throw new KgateError('unavailable', 'Remote mappings are not available on this server.');
  const canonical = normalizeNotePath(path);
  const live = await remote.read(mapping, canonical, 'read');
  if (!live) throw new KgateError('not_found', 'There is no note at this path.');
  const at = live.file.modifiedAt === null ? new Date() : new Date(live.file.modifiedAt);
  return {
    path: canonical,
    title: noteTitle(canonical, live.content),
    revision: live.file.revision,
    size: Buffer.byteLength(live.content, 'utf8'),
    updatedAt: at,
    createdAt: at,
    content: live.content,
    contentHash: contentHash(live.content),
  };
}

/** Read use cases of notes; `bodies` serves notes read again at the same content version from memory. */
export function createNoteReads(db: Database, vaults: VaultsService, bodies: NoteBodyCache, remote?: RemoteNotes) {
  return {
    /**
     * One note with its content; `not_found` when absent. Bodies of device-encrypted mappings are refused. A remote
     * mapping's note is read live at its provider, so that its revision is the provider's current one.
     */
    async readNote(actor: Actor, mappingId: string, path: string): Promise<Note> {
      const pathKey = notePathKey(normalizeNotePath(path));
      // The version first: a body read after it is of that version or later (see body-cache.ts).
      const { mapping, contentVersion } = await vaults.resolveHostedVault(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      if (mapping.provider !== 'hosted') return readRemoteNote(remote, mapping, path);
      const cached = bodies.get(mapping.vaultId, pathKey, contentVersion);
      if (cached) return cached;
      const note = await store.findNote(db, mapping.vaultId, pathKey);
      if (!note) throw new KgateError('not_found', 'There is no note at this path.');
      bodies.set(mapping.vaultId, pathKey, contentVersion, note);
      return note;
    },

    /** A bounded page of the inventory, in byte order of path. */
    async listNotes(actor: Actor, mappingId: string, options: { cursor?: string; limit?: number; prefix?: string }): Promise<Page<NoteSummary>> {
      const limit = boundedLimit(options.limit, MAX_INVENTORY_PAGE);
      // Stored paths are NFC (kernel/vault-path.ts); a prefix typed in another normal form must still match them.
      const prefix = options.prefix === undefined || options.prefix === '' ? null : options.prefix.normalize('NFC');
      const after = options.cursor === undefined ? null : decodeCursor(options.cursor, isPathCursor).p;
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      // A remote mapping's inventory is what its last sync saw at the provider, with provider revisions; it works
      // with device-held encryption too, since names and sizes are not encrypted.
      const rows =
        mapping.provider === 'hosted'
          ? await store.listSummaries(db, mapping.vaultId, after, limit + 1, prefix)
          : await listRemoteSummaries(db, mapping.id, after, limit + 1, prefix);
      const items = rows.slice(0, limit);
      return { items, nextCursor: rows.length > limit ? encodeCursor({ p: items[items.length - 1]!.path }) : null };
    },

    /** A bounded page of restorable trash entries, newest first, without content. */
    async listTrash(actor: Actor, mappingId: string, options: { cursor?: string; limit?: number }): Promise<Page<trash.TrashSummary>> {
      const limit = boundedLimit(options.limit, MAX_TRASH_PAGE);
      const cursor = options.cursor === undefined ? null : decodeCursor(options.cursor, isTrashCursor);
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      const after = cursor ? { deletedAt: new Date(cursor.d), id: cursor.i } : null;
      const rows = await trash.listTrash(db, mapping.vaultId, after, limit + 1);
      const items = rows.slice(0, limit);
      const last = items[items.length - 1];
      return { items, nextCursor: rows.length > limit && last ? encodeCursor({ d: last.deletedAt.toISOString(), i: last.id }) : null };
    },
  };
}

/** See createNoteReads. */
export type NoteReads = ReturnType<typeof createNoteReads>;
