import { textArrayParam, type Sql } from '../../db/port.ts';

/** What the last sync saw of one remote file (a row of remote_files). */
export type RemoteFileStatus = 'synced' | 'not_a_note' | 'too_large' | 'encrypted' | 'invalid_path' | 'duplicate';

/** A remote_files row. For state `duplicate`, `fileIds` holds every file seen at the path; otherwise one id. */
export interface RemoteFileRow {
  pathKey: string;
  path: string;
  fileIds: string[];
  revision: string;
  size: number;
  modifiedAt: Date | null;
  /** Of the synchronized copy; null when no copy is kept. */
  contentHash: string | null;
  state: RemoteFileStatus;
  seenGeneration: number;
}

interface Row {
  path_key: string;
  path: string;
  file_id: string;
  revision: string;
  size: number;
  modified_at: Date | null;
  content_hash: string | null;
  state: RemoteFileStatus;
  seen_generation: number;
  [key: string]: unknown;
}

// A duplicate row keeps every file id seen at its path as a JSON array, so that a later change of one of them is
// known as the same duplicate rather than a new file (sync.ts, "duplicates").
function fileIdsOf(row: Row): string[] {
  if (row.state !== 'duplicate') return [row.file_id];
  try {
    const parsed: unknown = JSON.parse(row.file_id);
    return Array.isArray(parsed) ? parsed.map(String) : [row.file_id];
  } catch {
    return [row.file_id];
  }
}

function toRow(row: Row): RemoteFileRow {
  return {
    pathKey: row.path_key,
    path: row.path,
    fileIds: fileIdsOf(row),
    revision: row.revision,
    size: Number(row.size),
    modifiedAt: row.modified_at,
    contentHash: row.content_hash,
    state: row.state,
    seenGeneration: Number(row.seen_generation),
  };
}

const COLUMNS = 'path_key, path, file_id, revision, size, modified_at, content_hash, state, seen_generation';

/** The rows of these path keys. */
export async function findRemoteFiles(sql: Sql, mappingId: string, pathKeys: readonly string[]): Promise<Map<string, RemoteFileRow>> {
  if (pathKeys.length === 0) return new Map();
  const rows = await sql.query<Row>(`SELECT ${COLUMNS} FROM remote_files WHERE mapping_id = $1 AND path_key = ANY($2::text[])`, [
    mappingId,
    textArrayParam(pathKeys),
  ]);
  return new Map(rows.map((row) => [row.path_key, toRow(row)]));
}

/** Creates or replaces rows by path key. */
export async function upsertRemoteFiles(sql: Sql, mappingId: string, rows: readonly RemoteFileRow[]): Promise<void> {
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO remote_files (mapping_id, path_key, path, file_id, revision, size, modified_at, content_hash, state, seen_generation)
     SELECT $1, path_key, path, file_id, revision, size, modified_at, content_hash, state, seen_generation
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::timestamptz[], $8::text[], $9::text[], $10::bigint[])
            AS r(path_key, path, file_id, revision, size, modified_at, content_hash, state, seen_generation)
     ON CONFLICT (mapping_id, path_key) DO UPDATE SET
       path = EXCLUDED.path, file_id = EXCLUDED.file_id, revision = EXCLUDED.revision, size = EXCLUDED.size,
       modified_at = EXCLUDED.modified_at, content_hash = EXCLUDED.content_hash, state = EXCLUDED.state,
       seen_generation = EXCLUDED.seen_generation`,
    [
      mappingId,
      textArrayParam(rows.map((r) => r.pathKey)),
      textArrayParam(rows.map((r) => r.path)),
      textArrayParam(rows.map((r) => (r.state === 'duplicate' ? JSON.stringify([...r.fileIds].sort()) : r.fileIds[0]!))),
      textArrayParam(rows.map((r) => r.revision)),
      rows.map((r) => r.size),
      rows.map((r) => r.modifiedAt?.toISOString() ?? null),
      textArrayParam(rows.map((r) => r.contentHash)),
      textArrayParam(rows.map((r) => r.state)),
      rows.map((r) => r.seenGeneration),
    ],
  );
}

/** Marks rows as seen in `generation` without changing them. */
export async function markSeen(sql: Sql, mappingId: string, pathKeys: readonly string[], generation: number): Promise<void> {
  if (pathKeys.length === 0) return;
  await sql.query('UPDATE remote_files SET seen_generation = $3 WHERE mapping_id = $1 AND path_key = ANY($2::text[])', [
    mappingId,
    textArrayParam(pathKeys),
    generation,
  ]);
}

/** Deletes rows by path key. */
export async function deleteRemoteFiles(sql: Sql, mappingId: string, pathKeys: readonly string[]): Promise<void> {
  if (pathKeys.length === 0) return;
  await sql.query('DELETE FROM remote_files WHERE mapping_id = $1 AND path_key = ANY($2::text[])', [mappingId, textArrayParam(pathKeys)]);
}

/** Up to `limit` rows a listing of `generation` did not see: files gone from the provider. */
export async function findUnseen(sql: Sql, mappingId: string, generation: number, limit: number): Promise<RemoteFileRow[]> {
  const rows = await sql.query<Row>(
    `SELECT ${COLUMNS} FROM remote_files WHERE mapping_id = $1 AND seen_generation < $2 ORDER BY path_key LIMIT $3`,
    [mappingId, generation, limit],
  );
  return rows.map(toRow);
}

/**
 * Up to `limit` paths of notes in the copy's vault that no synced remote file accounts for (the copy must hold
 * exactly what the provider holds): what a device-encrypted mapping still holds from before, or anything else that
 * reached the vault outside synchronization. Reads the notes domain's table for paths only.
 */
export async function findOrphanNotes(sql: Sql, mappingId: string, vaultId: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ path: string }>(
    `SELECT n.path FROM notes n
      WHERE n.vault_id = $2
        AND NOT EXISTS (SELECT 1 FROM remote_files r WHERE r.mapping_id = $1 AND r.path_key = n.path_key AND r.state = 'synced')
      ORDER BY n.path_key LIMIT $3`,
    [mappingId, vaultId, limit],
  );
  return rows.map((row) => row.path);
}

/** Device-held encryption turned on: no row keeps a copy any more (the notes themselves go by findOrphanNotes). */
export async function markEncrypted(sql: Sql, mappingId: string): Promise<void> {
  await sql.query(
    "UPDATE remote_files SET state = 'encrypted', content_hash = NULL WHERE mapping_id = $1 AND state IN ('synced', 'too_large')",
    [mappingId],
  );
}

/** How many rows a mapping has: in all, or seen in `generation` (a listing under way). */
export async function countRemoteFiles(sql: Sql, mappingId: string, generation?: number): Promise<number> {
  const rows = await sql.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM remote_files WHERE mapping_id = $1 AND ($2::bigint IS NULL OR seen_generation = $2)',
    [mappingId, generation ?? null],
  );
  return rows[0]!.n;
}

/** Counts of a mapping's remote files by state (for the sync state page). */
export async function countByState(sql: Sql, mappingId: string): Promise<Partial<Record<RemoteFileStatus, number>>> {
  const rows = await sql.query<{ state: RemoteFileStatus; n: number }>(
    'SELECT state, count(*)::int AS n FROM remote_files WHERE mapping_id = $1 GROUP BY state',
    [mappingId],
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

/** Up to `limit` files kgate keeps no copy of for a reason the owner can act on: duplicates, too large, invalid paths. */
export async function findProblemFiles(sql: Sql, mappingId: string, limit: number): Promise<Array<{ path: string; state: RemoteFileStatus; size: number }>> {
  const rows = await sql.query<{ path: string; state: RemoteFileStatus; size: number }>(
    `SELECT path, state, size FROM remote_files
      WHERE mapping_id = $1 AND state IN ('duplicate', 'too_large', 'invalid_path')
      ORDER BY path_key LIMIT $2`,
    [mappingId, limit],
  );
  return rows.map((row) => ({ path: row.path, state: row.state, size: Number(row.size) }));
}

/** The path keys of rows below any of these folders (by path key), at most `limit`. */
export async function findKeysBelow(sql: Sql, mappingId: string, folderKeys: readonly string[], limit: number): Promise<string[]> {
  if (folderKeys.length === 0) return [];
  const rows = await sql.query<{ path_key: string }>(
    `SELECT f.path_key FROM remote_files f, unnest($2::text[]) AS d(k)
      WHERE f.mapping_id = $1 AND left(f.path_key, length(d.k) + 1) = d.k || '/'
      LIMIT $3`,
    [mappingId, textArrayParam(folderKeys), limit],
  );
  return rows.map((r) => r.path_key);
}
