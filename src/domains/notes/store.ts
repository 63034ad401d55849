import type { Sql } from '../../db/port.ts';
import { newId } from '../../kernel/ids.ts';
import type { Note } from './contract.ts';
import { NOTE_MODEL_VERSION, deriveNoteIndex, type NoteIndexEntry } from './note-index.ts';

/** A note row about to be written. */
export interface NoteWrite {
  path: string;
  pathKey: string;
  content: string;
  contentHash: string;
  size: number;
  title: string;
  /** The Markdown model of `content`, when the caller derived it already (imports do, before the transaction). */
  derived?: NoteIndexEntry;
}

interface NoteRow {
  path: string;
  title: string;
  content: string;
  content_hash: string;
  size: number;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

function toNote(row: NoteRow): Note {
  return {
    path: row.path,
    title: row.title,
    content: row.content,
    contentHash: row.content_hash,
    revision: row.content_hash,
    size: row.size,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Locks a vault for the rest of the transaction. Every applying transaction takes it first, so writes to one
 * vault serialize: hash checks stay valid until commit and provenance `seq` order is commit order.
 */
export async function lockVault(sql: Sql, vaultId: string): Promise<void> {
  await sql.query('SELECT id FROM vaults WHERE id = $1 FOR UPDATE', [vaultId]);
}

/**
 * `lockVault` for the vault a mapping maps, found in the same statement; returns its id (undefined: not a hosted
 * mapping). For a write that sends its reads before it knows the vault (a shared commit).
 */
export async function lockVaultOfMapping(sql: Sql, mappingId: string): Promise<string | undefined> {
  const rows = await sql.query<{ id: string }>('SELECT v.id FROM mappings m JOIN vaults v ON v.id = m.vault_id WHERE m.id = $1 FOR UPDATE OF v', [mappingId]);
  return rows[0]?.id;
}

/** Current content hashes of the notes with these path keys. */
export async function findHashes(
  sql: Sql,
  vaultId: string,
  pathKeys: readonly string[],
): Promise<Map<string, { path: string; contentHash: string }>> {
  const rows = await sql.query<{ path_key: string; path: string; content_hash: string }>(
    'SELECT path_key, path, content_hash FROM notes WHERE vault_id = $1 AND path_key = ANY($2::text[])',
    [vaultId, pathKeys],
  );
  return new Map(rows.map((row) => [row.path_key, { path: row.path, contentHash: row.content_hash }]));
}

/**
 * Counts a change of the vault's notes and returns the new version. Runs inside the writing transaction, so the
 * version is taken under the vault row lock and versions follow commit order.
 */
export async function bumpContentVersion(sql: Sql, vaultId: string): Promise<number> {
  const rows = await sql.query<{ content_version: number }>(
    'UPDATE vaults SET content_version = content_version + 1 WHERE id = $1 RETURNING content_version',
    [vaultId],
  );
  return rows[0]!.content_version;
}

/**
 * Creates or replaces notes by path key, with their Markdown model (search text, tags, links): one statement for
 * the notes and one for the links, whatever the batch size.
 */
export async function upsertNotes(sql: Sql, vaultId: string, writes: readonly NoteWrite[]): Promise<void> {
  if (writes.length === 0) return;
  const version = await bumpContentVersion(sql, vaultId);
  const derived: NoteIndexEntry[] = writes.map((w) => w.derived ?? deriveNoteIndex(w.content));
  const rows = await sql.query<{ id: string; path_key: string; inserted: boolean }>(
    `INSERT INTO notes (id, vault_id, path, path_key, content, content_hash, size, title, content_version, search_text, tag_keys, model_version)
     SELECT id, $1, path, path_key, content, content_hash, size, title, $9, search_text, ARRAY(SELECT jsonb_array_elements_text(tags)), $12
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::text[], $10::text[], $11::jsonb[])
            AS w(id, path, path_key, content, content_hash, size, title, search_text, tags)
     ON CONFLICT (vault_id, path_key) DO UPDATE SET
       path = EXCLUDED.path, content = EXCLUDED.content, content_hash = EXCLUDED.content_hash,
       size = EXCLUDED.size, title = EXCLUDED.title, updated_at = now(), content_version = EXCLUDED.content_version,
       search_text = EXCLUDED.search_text, tag_keys = EXCLUDED.tag_keys, model_version = EXCLUDED.model_version
     RETURNING id, path_key, (xmax = 0) AS inserted`,
    [
      vaultId,
      writes.map(() => newId()),
      writes.map((w) => w.path),
      writes.map((w) => w.pathKey),
      writes.map((w) => w.content),
      writes.map((w) => w.contentHash),
      writes.map((w) => w.size),
      writes.map((w) => w.title),
      version,
      derived.map((d) => d.searchText),
      derived.map((d) => JSON.stringify(d.tagKeys)),
      NOTE_MODEL_VERSION,
    ],
  );
  // RETURNING order is not promised to follow the input: match rows to their writes by path key.
  const derivedByKey = new Map(writes.map((w, k) => [w.pathKey, derived[k]!]));
  await replaceLinks(sql, vaultId, rows.map((row) => ({ id: row.id, inserted: row.inserted, entry: derivedByKey.get(row.path_key)! })));
}

/**
 * Replaces the stored links of notes. Only replaced notes can have old links:
 * `inserted` (from `xmax = 0`, a row this statement created) spares new notes the delete.
 */
export async function replaceLinks(
  sql: Sql,
  vaultId: string,
  notes: ReadonlyArray<{ id: string; inserted: boolean; entry: NoteIndexEntry }>,
): Promise<void> {
  const replaced = notes.filter((note) => !note.inserted).map((note) => note.id);
  if (replaced.length > 0) await sql.query('DELETE FROM note_links WHERE note_id = ANY($1::uuid[])', [replaced]);
  const rows = notes.flatMap((note) => note.entry.links.map((link, ordinal) => ({ noteId: note.id, ordinal, ...link })));
  if (rows.length === 0) return;
  await sql.query(
    `INSERT INTO note_links (note_id, ordinal, vault_id, kind, embed, target, target_name_key, heading, block_id, alias, line)
     SELECT note_id, ordinal, $1, kind, embed, target, target_name_key, heading, block_id, alias, line
       FROM unnest($2::uuid[], $3::int[], $4::text[], $5::boolean[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::int[])
            AS l(note_id, ordinal, kind, embed, target, target_name_key, heading, block_id, alias, line)`,
    [
      vaultId,
      rows.map((r) => r.noteId),
      rows.map((r) => r.ordinal),
      rows.map((r) => r.kind),
      rows.map((r) => r.embed),
      rows.map((r) => r.target),
      rows.map((r) => r.targetNameKey),
      rows.map((r) => r.heading),
      rows.map((r) => r.blockId),
      rows.map((r) => r.alias),
      rows.map((r) => r.line),
    ],
  );
}

/** One page of whole notes in byte order of path, after `afterPath` (keyset pagination). */
export async function listNotesWithContent(
  sql: Sql,
  vaultId: string,
  afterPath: string | null,
  limit: number,
): Promise<Note[]> {
  const rows = await sql.query<NoteRow>(
    `SELECT path, title, content, content_hash, size, created_at, updated_at
       FROM notes
      WHERE vault_id = $1 AND ($2::text IS NULL OR path COLLATE "C" > $2::text COLLATE "C")
      ORDER BY path COLLATE "C"
      LIMIT $3`,
    [vaultId, afterPath, limit],
  );
  return rows.map(toNote);
}

/** Number of notes in a vault. */
export async function countNotes(sql: Sql, vaultId: string): Promise<number> {
  const rows = await sql.query<{ count: number }>('SELECT count(*)::int AS count FROM notes WHERE vault_id = $1', [
    vaultId,
  ]);
  return rows[0]?.count ?? 0;
}

/** A stored note with the fields a transaction needs: what was written, and its row id. */
export interface StoredNote extends NoteWrite {
  id: string;
}

/** A vault named by its id, or by a mapping of it (`{ mappingId }`), for reads sent before the vault is known. */
export type VaultRef = string | { mappingId: string };

/** The SQL that names `ref`'s vault as parameter $1, and that parameter. */
export function vaultOf(ref: VaultRef): { sql: string; param: string } {
  return typeof ref === 'string' ? { sql: '$1::uuid', param: ref } : { sql: '(SELECT vault_id FROM mappings WHERE id = $1)', param: ref.mappingId };
}

/** Whole notes by path key (for transactions: hash checks, diffs and trash copies). */
export async function findNotesByKeys(sql: Sql, vault: VaultRef, pathKeys: readonly string[]): Promise<Map<string, StoredNote>> {
  const of = vaultOf(vault);
  const rows = await sql.query<{ id: string; path: string; path_key: string; content: string; content_hash: string; size: number; title: string }>(
    `SELECT id, path, path_key, content, content_hash, size, title FROM notes
      WHERE vault_id = ${of.sql} AND path_key = ANY($2::text[])`,
    [of.param, pathKeys],
  );
  return new Map(
    rows.map((r) => [
      r.path_key,
      { id: r.id, path: r.path, pathKey: r.path_key, content: r.content, contentHash: r.content_hash, size: r.size, title: r.title },
    ]),
  );
}

/** Whole notes by id (the notes a move's link rewrite changes). */
export async function findNotesByIds(sql: Sql, vaultId: string, ids: readonly string[]): Promise<Map<string, StoredNote>> {
  const rows = await sql.query<{ id: string; path: string; path_key: string; content: string; content_hash: string; size: number; title: string }>(
    `SELECT id, path, path_key, content, content_hash, size, title FROM notes WHERE vault_id = $1 AND id = ANY($2::uuid[])`,
    [vaultId, ids],
  );
  return new Map(
    rows.map((r) => [r.id, { id: r.id, path: r.path, pathKey: r.path_key, content: r.content, contentHash: r.content_hash, size: r.size, title: r.title }]),
  );
}

/** One note by path key. */
export async function findNote(sql: Sql, vaultId: string, pathKey: string): Promise<Note | undefined> {
  const rows = await sql.query<NoteRow>(
    `SELECT path, title, content, content_hash, size, created_at, updated_at FROM notes
      WHERE vault_id = $1 AND path_key = $2`,
    [vaultId, pathKey],
  );
  return rows[0] && toNote(rows[0]);
}

/** One page of note summaries (no content) in byte order of path, after `afterPath`. */
export async function listSummaries(
  sql: Sql,
  vaultId: string,
  afterPath: string | null,
  limit: number,
  prefix: string | null = null,
): Promise<{ path: string; title: string; revision: string; size: number; updatedAt: Date }[]> {
  // The prefix is also a lower bound, so the path index starts the scan where the prefix's paths begin.
  const rows = await sql.query<{ path: string; title: string; content_hash: string; size: number; updated_at: Date }>(
    `SELECT path, title, content_hash, size, updated_at FROM notes
      WHERE vault_id = $1 AND ($2::text IS NULL OR path COLLATE "C" > $2::text COLLATE "C")
        AND ($4::text IS NULL OR (path COLLATE "C" >= $4::text COLLATE "C" AND starts_with(path, $4::text)))
      ORDER BY path COLLATE "C"
      LIMIT $3`,
    [vaultId, afterPath, limit, prefix],
  );
  return rows.map((r) => ({ path: r.path, title: r.title, revision: r.content_hash, size: r.size, updatedAt: r.updated_at }));
}
