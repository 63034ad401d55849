import { textArrayParam, type Sql } from '../../db/port.ts';
import type { KnowledgeChange, KnowledgeRecord } from './records.ts';

/** The revision a note was last compiled at, and its records then. */
export async function loadNoteRecords(sql: Sql, vaultId: string, path: string): Promise<{ revision: string; records: KnowledgeRecord[] } | null> {
  const notes = await sql.query<{ revision: string }>('SELECT revision FROM knowledge_notes WHERE vault_id = $1 AND path = $2', [vaultId, path]);
  if (notes.length === 0) return null;
  const rows = await sql.query<{ record: KnowledgeRecord }>('SELECT record FROM knowledge_records WHERE vault_id = $1 AND path = $2 ORDER BY record_id', [vaultId, path]);
  return { revision: notes[0]!.revision, records: rows.map((r) => r.record) };
}

/** Replaces the records of a note (none and no revision when the note is gone) and appends the changes. */
export async function saveNoteRecords(
  sql: Sql,
  input: { vaultId: string; path: string; revision: string | null; records: readonly KnowledgeRecord[]; changes: readonly KnowledgeChange[]; at: Date },
): Promise<void> {
  const { vaultId, path } = input;
  await sql.query('DELETE FROM knowledge_records WHERE vault_id = $1 AND path = $2', [vaultId, path]);
  if (input.revision === null) {
    await sql.query('DELETE FROM knowledge_notes WHERE vault_id = $1 AND path = $2', [vaultId, path]);
  } else {
    await sql.query(
      `INSERT INTO knowledge_notes (vault_id, path, revision, compiled_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (vault_id, path) DO UPDATE SET revision = EXCLUDED.revision, compiled_at = EXCLUDED.compiled_at`,
      [vaultId, path, input.revision, input.at],
    );
    if (input.records.length > 0) {
      // One statement for all of the note's records, as provenance appends its events.
      await sql.query(
        `INSERT INTO knowledge_records (vault_id, record_id, path, kind, record, revision)
         SELECT $1, r.record_id, $2, r.kind, r.record, $3
           FROM unnest($4::text[], $5::text[], $6::jsonb[]) AS r(record_id, kind, record)`,
        [
          vaultId,
          path,
          input.revision,
          textArrayParam(input.records.map((r) => r.id)),
          textArrayParam(input.records.map((r) => r.kind)),
          input.records.map((r) => JSON.stringify(r)),
        ],
      );
    }
  }
  if (input.changes.length === 0) return;
  const column = <T>(pick: (c: KnowledgeChange) => T) => input.changes.map(pick);
  await sql.query(
    `INSERT INTO knowledge_changes (vault_id, path, type, record_id, record_kind, before_revision, after_revision, before_value, after_value, created_at)
     SELECT $1, $2, c.type, c.record_id, c.record_kind, c.before_revision, c.after_revision, c.before_value, c.after_value, $3
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY
            AS c(type, record_id, record_kind, before_revision, after_revision, before_value, after_value, ord)
      ORDER BY ord`,
    [
      vaultId,
      path,
      input.at,
      textArrayParam(column((c) => c.type)),
      textArrayParam(column((c) => c.recordId)),
      textArrayParam(column((c) => c.recordKind)),
      textArrayParam(column((c) => c.beforeRevision)),
      textArrayParam(column((c) => c.afterRevision)),
      textArrayParam(column((c) => c.before ?? null)),
      textArrayParam(column((c) => c.after ?? null)),
    ],
  );
}

/** Records the first sighting of a note's revision; a later sighting of the same revision changes nothing. */
export async function observe(sql: Sql, vaultId: string, path: string, revision: string, at: Date): Promise<void> {
  await sql.query(
    'INSERT INTO knowledge_observations (vault_id, path, revision, first_seen_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
    [vaultId, path, revision, at],
  );
}

/** When this replica first saw the revision; undefined when it never did (content from before receipts existed). */
export async function firstSeen(sql: Sql, vaultId: string, path: string, revision: string): Promise<Date | undefined> {
  const rows = await sql.query<{ first_seen_at: Date }>(
    'SELECT first_seen_at FROM knowledge_observations WHERE vault_id = $1 AND path = $2 AND revision = $3',
    [vaultId, path, revision],
  );
  return rows[0]?.first_seen_at;
}
