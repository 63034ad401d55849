import type { Sql } from '../../db/port.ts';
import { vaultOf, type VaultRef } from './store.ts';

/** A trash entry: the last content of a deleted note, kept so that it can be restored. */
export interface TrashEntry {
  id: string;
  originalPath: string;
  content: string;
  contentHash: string;
  size: number;
  title: string;
  deletedAt: Date;
  deletedBy: string;
  restoredAt: Date | null;
}

/** What trash listings show: never the content. */
export type TrashSummary = Omit<TrashEntry, 'content' | 'title' | 'restoredAt'>;

/**
 * Writes trash entries, each with the account that deleted it (called before the live notes are removed, in the same
 * transaction).
 */
export async function insertTrash(
  sql: Sql,
  vaultId: string,
  entries: readonly { id: string; originalPath: string; content: string; contentHash: string; size: number; title: string; deletedBy: string }[],
): Promise<void> {
  if (entries.length === 0) return;
  await sql.query(
    // Millisecond precision: list cursors carry deletedAt as an ISO string, which cannot hold microseconds.
    `INSERT INTO trash_entries (id, vault_id, original_path, content, content_hash, size, title, deleted_by, deleted_at)
     SELECT id, $1, original_path, content, content_hash, size, title, deleted_by, date_trunc('milliseconds', now())
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::uuid[])
            AS t(id, original_path, content, content_hash, size, title, deleted_by)`,
    [
      vaultId,
      entries.map((e) => e.id),
      entries.map((e) => e.originalPath),
      entries.map((e) => e.content),
      entries.map((e) => e.contentHash),
      entries.map((e) => e.size),
      entries.map((e) => e.title),
      entries.map((e) => e.deletedBy),
    ],
  );
}

interface TrashRow {
  id: string;
  original_path: string;
  content: string;
  content_hash: string;
  size: number;
  title: string;
  deleted_at: Date;
  deleted_by: string;
  restored_at: Date | null;
  [key: string]: unknown;
}

/** Trash entries of a vault by id (restored ones included, so callers can say why a restore is refused). */
export async function findTrash(sql: Sql, vault: VaultRef, ids: readonly string[]): Promise<Map<string, TrashEntry>> {
  if (ids.length === 0) return new Map();
  const of = vaultOf(vault);
  const rows = await sql.query<TrashRow>(
    `SELECT id, original_path, content, content_hash, size, title, deleted_at, deleted_by, restored_at
       FROM trash_entries WHERE vault_id = ${of.sql} AND id = ANY($2::uuid[])`,
    [of.param, ids],
  );
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        originalPath: r.original_path,
        content: r.content,
        contentHash: r.content_hash,
        size: r.size,
        title: r.title,
        deletedAt: r.deleted_at,
        deletedBy: r.deleted_by,
        restoredAt: r.restored_at,
      },
    ]),
  );
}

/** Marks entries restored. */
export async function markRestored(sql: Sql, ids: readonly string[]): Promise<void> {
  if (ids.length > 0) await sql.query('UPDATE trash_entries SET restored_at = now() WHERE id = ANY($1::uuid[])', [ids]);
}

/** A page of restorable entries, newest first, after a (deletedAt, id) cursor. */
export async function listTrash(
  sql: Sql,
  vaultId: string,
  after: { deletedAt: Date; id: string } | null,
  limit: number,
): Promise<TrashSummary[]> {
  const rows = await sql.query<TrashRow>(
    `SELECT id, original_path, content_hash, size, deleted_at, deleted_by FROM trash_entries
      WHERE vault_id = $1 AND restored_at IS NULL
        AND ($2::timestamptz IS NULL OR (deleted_at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY deleted_at DESC, id DESC
      LIMIT $4`,
    [vaultId, after?.deletedAt ?? null, after?.id ?? null, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    originalPath: r.original_path,
    contentHash: r.content_hash,
    size: r.size,
    deletedAt: r.deleted_at,
    deletedBy: r.deleted_by,
  }));
}
