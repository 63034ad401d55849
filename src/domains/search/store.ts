import type { Sql } from '../../db/port.ts';

/** A note as the search index loads it. */
export interface NoteSearchRow {
  id: string;
  path: string;
  title: string;
  search_text: string;
  tag_keys: string[];
  [key: string]: unknown;
}

/** One page (by id) of the vault's notes written after `sinceVersion` (all notes when it is null). */
export async function notesChangedSince(
  sql: Sql,
  vaultId: string,
  sinceVersion: number | null,
  afterId: string | null,
  limit: number,
): Promise<NoteSearchRow[]> {
  return sql.query<NoteSearchRow>(
    `SELECT id, path, title, search_text, tag_keys FROM notes
      WHERE vault_id = $1 AND ($2::bigint IS NULL OR content_version > $2) AND ($3::uuid IS NULL OR id > $3)
      ORDER BY id LIMIT $4`,
    [vaultId, sinceVersion, afterId, limit],
  );
}

/** How many notes the vault has. */
export async function countNotes(sql: Sql, vaultId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM notes WHERE vault_id = $1', [vaultId]);
  return rows[0]!.n;
}

/** The ids of the vault's notes. */
export async function noteIds(sql: Sql, vaultId: string): Promise<Set<string>> {
  const rows = await sql.query<{ id: string }>('SELECT id FROM notes WHERE vault_id = $1', [vaultId]);
  return new Set(rows.map((row) => row.id));
}

/** The search text of some notes, by id; a note deleted meanwhile is missing from the map. */
export async function searchTexts(sql: Sql, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sql.query<{ id: string; search_text: string }>('SELECT id, search_text FROM notes WHERE id = ANY($1::uuid[])', [ids]);
  return new Map(rows.map((row) => [row.id, row.search_text]));
}
