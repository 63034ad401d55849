import type { Sql } from '../../db/port.ts';
import type { TrashedVaultFile, VaultFile, VaultFileKind, VaultFileSummary } from './contract.ts';

/*
 * SQL of the files domain (tables `vault_files` and `vault_file_trash`, migration 0027). Takes vault ids: the
 * caller has resolved the mapping and checked its authority. Bytes travel as base64 text, as for media_blobs
 * (src/domains/media/database-store.ts): the embedded engine takes and gives bytea five to six times slower
 * otherwise, and the server engine is about as fast either way.
 */

/** Most files one inventory page holds. */
export const MAX_FILE_PAGE = 1000;

const SUMMARY_COLUMNS = 'path, kind, media_type, content_hash, size, updated_at';
const FULL_COLUMNS = `${SUMMARY_COLUMNS}, created_at, encode(content, 'base64') AS content_base64`;

interface SummaryRow {
  path: string;
  kind: VaultFileKind;
  media_type: string;
  content_hash: string;
  size: number;
  updated_at: Date;
  [key: string]: unknown;
}

interface FullRow extends SummaryRow {
  created_at: Date;
  content_base64: string;
}

function toSummary(row: SummaryRow): VaultFileSummary {
  return { path: row.path, kind: row.kind, mediaType: row.media_type, contentHash: row.content_hash, size: row.size, updatedAt: row.updated_at };
}

function toFile(row: FullRow): VaultFile {
  // PostgreSQL breaks base64 into lines; Node's decoder skips the line breaks.
  return { ...toSummary(row), createdAt: row.created_at, content: Buffer.from(row.content_base64, 'base64') };
}

/**
 * A page of a vault's files in byte order of path, after `after` (exclusive), without bytes. `kind` narrows it to
 * canvases or attachments. Read function shared with the graph and the workspace (embed resolution).
 */
export async function listFileSummaries(
  sql: Sql,
  vaultId: string,
  options: { kind?: VaultFileKind; after?: string | null; limit: number },
): Promise<VaultFileSummary[]> {
  const rows = await sql.query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM vault_files
      WHERE vault_id = $1 AND ($2::text IS NULL OR kind = $2::text)
        AND ($3::text IS NULL OR path COLLATE "C" > $3::text COLLATE "C")
      ORDER BY path COLLATE "C"
      LIMIT $4`,
    [vaultId, options.kind ?? null, options.after ?? null, Math.min(Math.max(1, options.limit), MAX_FILE_PAGE + 1)],
  );
  return rows.map(toSummary);
}

/** The files of a vault whose path key (kernel/vault-path.ts `notePathKey`) is one of these, without bytes. */
export async function findFileSummaries(sql: Sql, vaultId: string, pathKeys: readonly string[]): Promise<Map<string, VaultFileSummary>> {
  if (pathKeys.length === 0) return new Map();
  const rows = await sql.query<SummaryRow & { path_key: string }>(
    `SELECT path_key, ${SUMMARY_COLUMNS} FROM vault_files WHERE vault_id = $1 AND path_key = ANY($2::text[])`,
    [vaultId, pathKeys],
  );
  return new Map(rows.map((row) => [row.path_key, toSummary(row)]));
}

/**
 * The files of a vault whose file name (the last path segment), case-folded, is `nameKey`, without bytes, in path
 * order: what an embed by name (`![[image.png]]`) may mean. At most `limit`.
 */
export async function findFilesByName(sql: Sql, vaultId: string, nameKey: string, limit = 100): Promise<VaultFileSummary[]> {
  // The name is the path key itself, or what follows its last "/": two exact comparisons, no pattern to escape.
  const rows = await sql.query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM vault_files
      WHERE vault_id = $1 AND (path_key = $2 OR right(path_key, $3) = $4)
      ORDER BY path COLLATE "C"
      LIMIT $5`,
    // PostgreSQL counts characters (code points), not UTF-16 units: an emoji is one.
    [vaultId, nameKey, [...nameKey].length + 1, `/${nameKey}`, limit],
  );
  return rows.map(toSummary);
}

/**
 * The files an embed resolution weighs (files/resolve.ts), in byte order of path: those at one of `pathKeys`, and
 * those whose file name (what follows the last "/" of the path key) is one of `nameKeys`; at most `limit`.
 */
export async function findResolutionCandidates(
  sql: Sql,
  vaultId: string,
  pathKeys: readonly string[],
  nameKeys: readonly string[],
  limit: number,
): Promise<VaultFileSummary[]> {
  const rows = await sql.query<SummaryRow>(
    `SELECT ${SUMMARY_COLUMNS} FROM vault_files
      WHERE vault_id = $1 AND (path_key = ANY($2::text[]) OR substring(path_key from '[^/]*$') = ANY($3::text[]))
      ORDER BY path COLLATE "C"
      LIMIT $4`,
    [vaultId, [...pathKeys], [...nameKeys], limit],
  );
  return rows.map(toSummary);
}

/** One file with its bytes by path key, or undefined. */
export async function readFileByKey(sql: Sql, vaultId: string, pathKey: string): Promise<VaultFile | undefined> {
  const rows = await sql.query<FullRow>(`SELECT ${FULL_COLUMNS} FROM vault_files WHERE vault_id = $1 AND path_key = $2`, [vaultId, pathKey]);
  return rows[0] ? toFile(rows[0]) : undefined;
}

/** The files with these path keys, with their bytes, in byte order of path. */
export async function readFilesByKeys(sql: Sql, vaultId: string, pathKeys: readonly string[]): Promise<VaultFile[]> {
  if (pathKeys.length === 0) return [];
  const rows = await sql.query<FullRow>(
    `SELECT ${FULL_COLUMNS} FROM vault_files WHERE vault_id = $1 AND path_key = ANY($2::text[]) ORDER BY path COLLATE "C"`,
    [vaultId, pathKeys],
  );
  return rows.map(toFile);
}

/** Takes the vault's row lock for the rest of the transaction: the lock every change of notes and files takes. */
export async function lockVault(sql: Sql, vaultId: string): Promise<void> {
  await sql.query('SELECT id FROM vaults WHERE id = $1 FOR UPDATE', [vaultId]);
}

/** A page of a vault's files with their bytes, in byte order of path after `after` (export). */
export async function listFilesWithContent(sql: Sql, vaultId: string, after: string | null, limit: number): Promise<VaultFile[]> {
  const rows = await sql.query<FullRow>(
    `SELECT ${FULL_COLUMNS} FROM vault_files
      WHERE vault_id = $1 AND ($2::text IS NULL OR path COLLATE "C" > $2::text COLLATE "C")
      ORDER BY path COLLATE "C"
      LIMIT $3`,
    [vaultId, after, limit],
  );
  return rows.map(toFile);
}

/**
 * A note or file path that would clash with a file at `pathKey` in a folder tree: one whose path is a folder of it
 * (`a` for `a/b.png`), or one inside it as a folder (`a/b.png/c.md`). An export could write only one of the two.
 * Undefined when there is none.
 */
export async function findFolderClash(sql: Sql, vaultId: string, pathKey: string): Promise<string | undefined> {
  const segments = pathKey.split('/');
  const folders = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'));
  const inside = `${pathKey}/`;
  const insideLength = [...inside].length;
  const rows = await sql.query<{ path: string }>(
    `(SELECT path FROM vault_files WHERE vault_id = $1 AND (path_key = ANY($2::text[]) OR left(path_key, $3) = $4) LIMIT 1)
     UNION ALL
     (SELECT path FROM notes WHERE vault_id = $1 AND (path_key = ANY($2::text[]) OR left(path_key, $3) = $4) LIMIT 1)
     LIMIT 1`,
    [vaultId, folders, insideLength, inside],
  );
  return rows[0]?.path;
}

/** Bytes of all a vault's files together (its storage ceiling). */
export async function totalFileBytes(sql: Sql, vaultId: string): Promise<number> {
  const rows = await sql.query<{ total: number }>('SELECT COALESCE(SUM(size), 0)::int8 AS total FROM vault_files WHERE vault_id = $1', [vaultId]);
  return Number(rows[0]?.total ?? 0);
}

/** Number of a vault's files. */
export async function countFiles(sql: Sql, vaultId: string): Promise<number> {
  const rows = await sql.query<{ count: number }>('SELECT count(*)::int8 AS count FROM vault_files WHERE vault_id = $1', [vaultId]);
  return Number(rows[0]?.count ?? 0);
}

/** A file to store. */
export interface FileWrite {
  path: string;
  pathKey: string;
  kind: VaultFileKind;
  mediaType: string;
  content: Buffer;
  contentHash: string;
  size: number;
}

/** Creates or replaces files (by path key); a replaced file takes the new path's letter case. */
export async function upsertFile(sql: Sql, vaultId: string, id: string, write: FileWrite): Promise<void> {
  await sql.query(
    `INSERT INTO vault_files (id, vault_id, path, path_key, kind, media_type, content, content_hash, size)
     VALUES ($1, $2, $3, $4, $5, $6, decode($7, 'base64'), $8, $9)
     ON CONFLICT (vault_id, path_key) DO UPDATE
       SET path = EXCLUDED.path, kind = EXCLUDED.kind, media_type = EXCLUDED.media_type, content = EXCLUDED.content,
           content_hash = EXCLUDED.content_hash, size = EXCLUDED.size, updated_at = now()`,
    [id, vaultId, write.path, write.pathKey, write.kind, write.mediaType, write.content.toString('base64'), write.contentHash, write.size],
  );
}

/**
 * Moves a live file to the trash in one statement: its last bytes are copied to `vault_file_trash` under `trashId`
 * before the live row goes. Returns whether there was a file to move.
 */
export async function trashFile(sql: Sql, vaultId: string, pathKey: string, trashId: string, deletedBy: string): Promise<boolean> {
  const rows = await sql.query<{ id: string }>(
    `WITH gone AS (DELETE FROM vault_files WHERE vault_id = $1 AND path_key = $2 RETURNING *)
     INSERT INTO vault_file_trash (id, vault_id, original_path, kind, media_type, content, content_hash, size, deleted_by)
     SELECT $3, vault_id, path, kind, media_type, content, content_hash, size, $4 FROM gone
     RETURNING id`,
    [vaultId, pathKey, trashId, deletedBy],
  );
  return rows.length > 0;
}

interface TrashRow {
  id: string;
  original_path: string;
  kind: VaultFileKind;
  media_type: string;
  content_hash: string;
  size: number;
  deleted_at: Date;
  [key: string]: unknown;
}

function toTrashed(row: TrashRow): TrashedVaultFile {
  return {
    trashId: row.id,
    originalPath: row.original_path,
    kind: row.kind,
    mediaType: row.media_type,
    contentHash: row.content_hash,
    size: row.size,
    deletedAt: row.deleted_at,
  };
}

/** Trashed files of a vault not restored yet, newest first. */
export async function listTrash(sql: Sql, vaultId: string, limit: number): Promise<TrashedVaultFile[]> {
  const rows = await sql.query<TrashRow>(
    `SELECT id, original_path, kind, media_type, content_hash, size, deleted_at FROM vault_file_trash
      WHERE vault_id = $1 AND restored_at IS NULL
      ORDER BY deleted_at DESC, id
      LIMIT $2`,
    [vaultId, limit],
  );
  return rows.map(toTrashed);
}

/** One trashed file not restored yet, with its bytes, or undefined (unknown id, another vault, or restored). */
export async function findTrashed(sql: Sql, vaultId: string, trashId: string): Promise<(TrashedVaultFile & { content: Buffer }) | undefined> {
  const rows = await sql.query<TrashRow & { content_base64: string }>(
    `SELECT id, original_path, kind, media_type, content_hash, size, deleted_at, encode(content, 'base64') AS content_base64
       FROM vault_file_trash WHERE vault_id = $1 AND id = $2 AND restored_at IS NULL`,
    [vaultId, trashId],
  );
  const row = rows[0];
  return row ? { ...toTrashed(row), content: Buffer.from(row.content_base64, 'base64') } : undefined;
}

/** Marks a trashed file restored (its bytes are live again). */
export async function markRestored(sql: Sql, trashId: string): Promise<void> {
  await sql.query('UPDATE vault_file_trash SET restored_at = now() WHERE id = $1', [trashId]);
}
