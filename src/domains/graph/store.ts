import type { Sql } from '../../db/port.ts';

/** A stored link (a row of note_links) as the graph reads it. */
export interface LinkRow {
  ordinal: number;
  kind: 'wikilink' | 'markdown';
  embed: boolean;
  target: string;
  heading: string | null;
  block_id: string | null;
  alias: string | null;
  /** 0-based, as the Markdown model counts. */
  line: number;
  [key: string]: unknown;
}

/** A candidate incoming link: a stored link of another note, with that note's id and path. */
export interface CandidateRow extends LinkRow {
  note_id: string;
  source_path: string;
}

/** Where a page of candidates starts: after this (note id, ordinal). */
export interface CandidateCursor {
  noteId: string;
  ordinal: number;
}

/** The vault's content version and the note at a path key, if any: the one query every graph call makes. */
export async function findNoteAndVersion(
  sql: Sql,
  vaultId: string,
  pathKey: string,
): Promise<{ version: number; note: { id: string; path: string } | null }> {
  const rows = await sql.query<{ version: number; id: string | null; path: string | null }>(
    `SELECT v.content_version AS version, n.id, n.path
       FROM vaults v LEFT JOIN notes n ON n.vault_id = v.id AND n.path_key = $2
      WHERE v.id = $1`,
    [vaultId, pathKey],
  );
  const row = rows[0];
  if (!row) return { version: 0, note: null };
  return { version: row.version, note: row.id !== null && row.path !== null ? { id: row.id, path: row.path } : null };
}

/** Every note path of a vault, with the content version they were read at (one snapshot). */
export async function listNotePaths(sql: Sql, vaultId: string): Promise<{ version: number | null; paths: string[] }> {
  const rows = await sql.query<{ path: string; version: number }>(
    'SELECT path, (SELECT content_version FROM vaults WHERE id = $1) AS version FROM notes WHERE vault_id = $1',
    [vaultId],
  );
  return { version: rows[0]?.version ?? null, paths: rows.map((row) => row.path) };
}

/**
 * What changed since `version`, in one snapshot: the current version, how many notes the vault holds, and the
 * paths of notes written after `version` (at most `max`; more means "too many to patch").
 */
export async function pathsChangedSince(
  sql: Sql,
  vaultId: string,
  version: number,
  max: number,
): Promise<{ version: number; total: number; changed: string[] }> {
  const rows = await sql.query<{ version: number; total: number; changed: string[] }>(
    `SELECT v.content_version AS version,
            (SELECT count(*)::int FROM notes WHERE vault_id = $1) AS total,
            ARRAY(SELECT path FROM notes WHERE vault_id = $1 AND content_version > $2 LIMIT $3) AS changed
       FROM vaults v WHERE v.id = $1`,
    [vaultId, version, max + 1],
  );
  return rows[0] ?? { version, total: 0, changed: [] };
}

const LINK_COLUMNS = 'l.ordinal, l.kind, l.embed, l.target, l.heading, l.block_id, l.alias, l.line';

/** The stored links of one note, in note order (the primary key is the index). */
export async function listLinksOf(sql: Sql, noteId: string): Promise<LinkRow[]> {
  return sql.query<LinkRow>(`SELECT ${LINK_COLUMNS} FROM note_links l WHERE l.note_id = $1 ORDER BY l.ordinal`, [noteId]);
}

/**
 * One page of the links of other notes (of every note when `excludeNoteId` is null) that name the file name
 * `nameKey`, in (note id, ordinal) order after `after`: a range of note_links_incoming_idx (migration 0005), no sort.
 */
export async function listIncomingCandidates(
  sql: Sql,
  vaultId: string,
  nameKey: string,
  excludeNoteId: string | null,
  after: CandidateCursor | null,
  limit: number,
): Promise<CandidateRow[]> {
  const params: unknown[] = [vaultId, nameKey, excludeNoteId, limit];
  if (after) params.push(after.noteId, after.ordinal);
  return sql.query<CandidateRow>(
    `SELECT l.note_id, n.path AS source_path, ${LINK_COLUMNS}
       FROM note_links l JOIN notes n ON n.id = l.note_id
      WHERE l.vault_id = $1 AND l.target_name_key = $2 AND l.note_id IS DISTINCT FROM $3::uuid
        ${after ? 'AND (l.note_id, l.ordinal) > ($5::uuid, $6::int)' : ''}
      ORDER BY l.note_id, l.ordinal
      LIMIT $4`,
    params,
  );
}
