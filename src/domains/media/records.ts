import type { Sql } from '../../db/port.ts';
import type { MediaOwner, StoredMedia } from './contract.ts';

interface MediaRow {
  id: string;
  organization_id: string;
  reference: string;
  content_type: string;
  byte_size: number;
  duration_ms: number;
  sha256: string;
  created_at: Date;
  [key: string]: unknown;
}

const COLUMNS = 'id, organization_id, reference, content_type, byte_size, duration_ms, sha256, created_at';

function storedOf(row: MediaRow): StoredMedia {
  return {
    mediaId: row.id,
    sha256: row.sha256,
    bytes: row.byte_size,
    durationSeconds: row.duration_ms / 1000,
    reference: row.reference,
    contentType: row.content_type,
    createdAt: row.created_at,
  };
}

/** A new object's row, before its bytes are stored. */
export interface PendingRow {
  id: string;
  owner: MediaOwner;
  reference: string;
  contentType: string;
  bytes: number;
  durationMs: number;
  sha256: string;
  createdAt: Date;
}

/**
 * Reserves the object's bytes against the organization's ceiling and records it as pending, in one statement: the
 * usage row is added to only while the total stays within `ceilingBytes` (a conflicting concurrent upload waits for
 * the row and is checked again against what it then holds), and the object's row exists only if that succeeded.
 * Returns false, having changed nothing, when the ceiling would be passed.
 */
export async function reservePending(sql: Sql, row: PendingRow, ceilingBytes: number): Promise<boolean> {
  const inserted = await sql.query(
    `WITH reserved AS (
       INSERT INTO media_storage_usage AS u (organization_id, used_bytes)
       SELECT $2, $7::bigint WHERE $7::bigint <= $11::bigint
       ON CONFLICT (organization_id) DO UPDATE SET used_bytes = u.used_bytes + EXCLUDED.used_bytes
        WHERE u.used_bytes + EXCLUDED.used_bytes <= $11::bigint
       RETURNING used_bytes
     )
     INSERT INTO media_objects (id, organization_id, installation_id, principal_id, kind, reference, content_type, byte_size, duration_ms, sha256, state, created_at)
     SELECT $1, $2, $3, $4, 'audio', $5, $6, $7::bigint, $8, $9, 'pending', $10 FROM reserved
     RETURNING id`,
    [row.id, row.owner.organizationId, row.owner.installationId, row.owner.principalId, row.reference, row.contentType, row.bytes, row.durationMs, row.sha256, row.createdAt, ceilingBytes],
  );
  return inserted.length === 1;
}

/** Makes a pending object readable, in the upload's commit; false when it is no longer pending (swept meanwhile). */
export async function markStored(sql: Sql, id: string): Promise<boolean> {
  return (await sql.query(`UPDATE media_objects SET state = 'stored' WHERE id = $1 AND state = 'pending' RETURNING id`, [id])).length === 1;
}

/**
 * Forgets a pending object and gives its bytes back to the organization's usage, in one statement, so that a
 * reservation is released exactly once however many sweeps race for it. True when this call released it.
 */
export async function releasePending(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query(
    `WITH gone AS (
       DELETE FROM media_objects WHERE id = $1 AND state = 'pending' RETURNING organization_id, byte_size
     )
     UPDATE media_storage_usage u SET used_bytes = u.used_bytes - gone.byte_size
       FROM gone WHERE u.organization_id = gone.organization_id
     RETURNING 1`,
    [id],
  );
  return rows.length === 1;
}

/** A stored object of this organization and installation; undefined for any other, exactly as for an unknown id. */
export async function findStored(sql: Sql, owner: Pick<MediaOwner, 'organizationId' | 'installationId'>, id: string): Promise<(StoredMedia & { organizationId: string }) | undefined> {
  const rows = await sql.query<MediaRow>(
    `SELECT ${COLUMNS} FROM media_objects WHERE id = $1 AND organization_id = $2 AND installation_id = $3 AND state = 'stored'`,
    [id, owner.organizationId, owner.installationId],
  );
  return rows[0] ? { ...storedOf(rows[0]), organizationId: rows[0].organization_id } : undefined;
}

/** Pending objects created before `before`: uploads whose process stopped between storing and committing. */
export async function abandonedPending(sql: Sql, before: Date, limit: number): Promise<Array<{ id: string; organizationId: string }>> {
  const rows = await sql.query<{ id: string; organization_id: string }>(
    `SELECT id, organization_id FROM media_objects WHERE state = 'pending' AND created_at < $1 ORDER BY created_at LIMIT $2`,
    [before, limit],
  );
  return rows.map((row) => ({ id: row.id, organizationId: row.organization_id }));
}

/** The bytes an organization's media take now (pending uploads included: they are reserved). */
export async function usedBytes(sql: Sql, organizationId: string): Promise<number> {
  const rows = await sql.query<{ used_bytes: number }>('SELECT used_bytes FROM media_storage_usage WHERE organization_id = $1', [organizationId]);
  return rows[0]?.used_bytes ?? 0;
}
