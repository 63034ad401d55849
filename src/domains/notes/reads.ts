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

/** Read use cases of hosted notes; `bodies` serves notes read again at the same content version from memory. */
export function createNoteReads(db: Database, vaults: VaultsService, bodies: NoteBodyCache) {
  return {
    /** One note with its content; `not_found` when absent. Bodies of device-encrypted mappings are refused. */
    async readNote(actor: Actor, mappingId: string, path: string): Promise<Note> {
      const pathKey = notePathKey(normalizeNotePath(path));
      // The version first: a body read after it is of that version or later (see body-cache.ts).
      const { mapping, contentVersion } = await vaults.resolveHostedVault(actor.accountId, mappingId, 'read');
      assertReadableBodies(mapping);
      const cached = bodies.get(mapping.vaultId, pathKey, contentVersion);
      if (cached) return cached;
      const note = await store.findNote(db, mapping.vaultId, pathKey);
      if (!note) throw new KgateError('not_found', 'There is no note at this path.');
      bodies.set(mapping.vaultId, pathKey, contentVersion, note);
      return note;
    },

    /** A bounded page of the inventory, in byte order of path. */
    async listNotes(actor: Actor, mappingId: string, options: { cursor?: string; limit?: number }): Promise<Page<NoteSummary>> {
      const limit = boundedLimit(options.limit, MAX_INVENTORY_PAGE);
      const after = options.cursor === undefined ? null : decodeCursor(options.cursor, isPathCursor).p;
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      const rows = await store.listSummaries(db, mapping.vaultId, after, limit + 1);
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
