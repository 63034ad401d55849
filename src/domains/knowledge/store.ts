import { textArrayParam, type Sql } from '../../db/port.ts';
import { KNOWLEDGE_COMPILER_VERSION } from './compile.ts';
import { substanceHash } from './changes.ts';
import type { KnowledgeChange, KnowledgeRecord } from './records.ts';

/** What a note was last compiled at: its revision and its records then. */
export interface CompiledNote {
  revision: string;
  records: KnowledgeRecord[];
}

/** The compiled state of some notes of a vault, by path; a path never compiled (or gone) is absent. */
export async function loadCompiled(sql: Sql, vaultId: string, paths: readonly string[]): Promise<Map<string, CompiledNote>> {
  if (paths.length === 0) return new Map();
  const rows = await sql.query<{ path: string; revision: string; records: KnowledgeRecord[] }>(
    `SELECT n.path, n.revision,
            COALESCE((SELECT jsonb_agg(r.record ORDER BY r.record_id) FROM knowledge_records r
                       WHERE r.vault_id = n.vault_id AND r.path = n.path), '[]'::jsonb) AS records
       FROM knowledge_notes n
      WHERE n.vault_id = $1 AND n.path = ANY($2::text[])`,
    [vaultId, textArrayParam(paths)],
  );
  return new Map(rows.map((row) => [row.path, { revision: row.revision, records: row.records }]));
}

/** One note's new compiled state: its revision (null: gone), its records, and what changed since the last one. */
export interface NoteRecompiled {
  path: string;
  revision: string | null;
  records: readonly KnowledgeRecord[];
  changes: readonly KnowledgeChange[];
  /** Ids of the versions this change ends (records removed or altered). */
  retired: readonly string[];
  /** Records this change adds or alters: each gets a new version. */
  versioned: readonly KnowledgeRecord[];
  /**
   * When this replica came to know the new versions: the time of the change it stored, or for a recompilation the
   * receipt of the revision; null for content stored before receipts existed.
   */
  knownFrom: Date | null;
}

/** A batch of recompiled notes of one vault, written together. */
export interface CompiledBatch {
  vaultId: string;
  at: Date;
  /** Receipts to write: the first sighting of each revision (never moved by a later one). */
  observed: ReadonlyArray<{ path: string; revision: string }>;
  notes: readonly NoteRecompiled[];
}

const column = <T, V>(items: readonly T[], pick: (item: T) => V): V[] => items.map(pick);

/**
 * Writes a batch: receipts, compiled revisions, current records, record versions (retired, then new) and change
 * events, each kind in one statement for the whole batch. The statements are issued together and run in order on
 * the connection, so that a version is retired before its successor is inserted.
 */
export async function writeCompiled(sql: Sql, batch: CompiledBatch): Promise<void> {
  const { vaultId, at, notes } = batch;
  const pending: Array<Promise<unknown>> = [];
  if (batch.observed.length > 0) {
    pending.push(
      sql.query(
        `INSERT INTO knowledge_observations (vault_id, path, revision, first_seen_at)
         SELECT $1, o.path, o.revision, $2 FROM unnest($3::text[], $4::text[]) AS o(path, revision)
         ON CONFLICT DO NOTHING`,
        [vaultId, at, textArrayParam(column(batch.observed, (o) => o.path)), textArrayParam(column(batch.observed, (o) => o.revision))],
      ),
    );
  }
  if (notes.length > 0) {
    const paths = textArrayParam(column(notes, (n) => n.path));
    pending.push(sql.query('DELETE FROM knowledge_records WHERE vault_id = $1 AND path = ANY($2::text[])', [vaultId, paths]));
    const gone = notes.filter((n) => n.revision === null);
    if (gone.length > 0) {
      pending.push(
        sql.query('DELETE FROM knowledge_notes WHERE vault_id = $1 AND path = ANY($2::text[])', [vaultId, textArrayParam(column(gone, (n) => n.path))]),
      );
    }
    const present = notes.filter((n): n is NoteRecompiled & { revision: string } => n.revision !== null);
    if (present.length > 0) {
      pending.push(
        sql.query(
          `INSERT INTO knowledge_notes (vault_id, path, revision, compiled_at, compiler_version)
           SELECT $1, n.path, n.revision, $2, $5 FROM unnest($3::text[], $4::text[]) AS n(path, revision)
           ON CONFLICT (vault_id, path) DO UPDATE SET
             revision = EXCLUDED.revision, compiled_at = EXCLUDED.compiled_at, compiler_version = EXCLUDED.compiler_version`,
          [vaultId, at, textArrayParam(column(present, (n) => n.path)), textArrayParam(column(present, (n) => n.revision)), KNOWLEDGE_COMPILER_VERSION],
        ),
      );
      const records = present.flatMap((n) => n.records.map((record) => ({ record, revision: n.revision })));
      if (records.length > 0) {
        pending.push(
          sql.query(
            `INSERT INTO knowledge_records (vault_id, record_id, path, kind, record, revision, substance_hash)
             SELECT $1, r.record_id, r.path, r.kind, r.record, r.revision, r.substance_hash
               FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[]) AS r(record_id, path, kind, record, revision, substance_hash)`,
            [
              vaultId,
              textArrayParam(column(records, (r) => r.record.id)),
              textArrayParam(column(records, (r) => r.record.evidence.path)),
              textArrayParam(column(records, (r) => r.record.kind)),
              column(records, (r) => JSON.stringify(r.record)),
              textArrayParam(column(records, (r) => r.revision)),
              textArrayParam(column(records, (r) => substanceHash(r.record))),
            ],
          ),
        );
      }
    }
    const retired = notes.flatMap((n) => n.retired.map((recordId) => ({ recordId, revision: n.revision })));
    if (retired.length > 0) {
      pending.push(
        sql.query(
          `UPDATE knowledge_record_versions v SET retired_at = $2, retired_revision = r.revision
             FROM unnest($3::text[], $4::text[]) AS r(record_id, revision)
            WHERE v.vault_id = $1 AND v.record_id = r.record_id AND v.retired_at IS NULL`,
          [vaultId, at, textArrayParam(column(retired, (r) => r.recordId)), textArrayParam(column(retired, (r) => r.revision))],
        ),
      );
    }
    const versioned = notes.flatMap((n) => n.versioned.map((record) => ({ record, knownFrom: n.knownFrom?.toISOString() ?? null })));
    if (versioned.length > 0) {
      pending.push(
        sql.query(
          `INSERT INTO knowledge_record_versions (vault_id, record_id, kind, path, record, revision, known_from)
           SELECT $1, v.record_id, v.kind, v.path, v.record, v.revision, v.known_from::timestamptz
             FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[], $6::text[], $7::text[]) WITH ORDINALITY
                  AS v(record_id, kind, path, record, revision, known_from, ord)
            ORDER BY ord`,
          [
            vaultId,
            textArrayParam(column(versioned, (v) => v.record.id)),
            textArrayParam(column(versioned, (v) => v.record.kind)),
            textArrayParam(column(versioned, (v) => v.record.evidence.path)),
            column(versioned, (v) => JSON.stringify(v.record)),
            textArrayParam(column(versioned, (v) => v.record.evidence.revision)),
            textArrayParam(column(versioned, (v) => v.knownFrom)),
          ],
        ),
      );
    }
    const changes = notes.flatMap((n) => n.changes);
    if (changes.length > 0) {
      pending.push(
        sql.query(
          `INSERT INTO knowledge_changes (vault_id, path, type, record_id, record_kind, before_revision, after_revision, before_value, after_value, created_at)
           SELECT $1, c.path, c.type, c.record_id, c.record_kind, c.before_revision, c.after_revision, c.before_value, c.after_value, $2
             FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[]) WITH ORDINALITY
                  AS c(path, type, record_id, record_kind, before_revision, after_revision, before_value, after_value, ord)
            ORDER BY ord`,
          [
            vaultId,
            at,
            textArrayParam(column(changes, (c) => c.path)),
            textArrayParam(column(changes, (c) => c.type)),
            textArrayParam(column(changes, (c) => c.recordId)),
            textArrayParam(column(changes, (c) => c.recordKind)),
            textArrayParam(column(changes, (c) => c.beforeRevision)),
            textArrayParam(column(changes, (c) => c.afterRevision)),
            textArrayParam(column(changes, (c) => c.before ?? null)),
            textArrayParam(column(changes, (c) => c.after ?? null)),
          ],
        ),
      );
    }
  }
  await Promise.all(pending);
}

/** When this replica first saw the revision; undefined when it never did (content from before receipts existed). */
export async function firstSeen(sql: Sql, vaultId: string, path: string, revision: string): Promise<Date | undefined> {
  const rows = await sql.query<{ first_seen_at: Date }>(
    'SELECT first_seen_at FROM knowledge_observations WHERE vault_id = $1 AND path = $2 AND revision = $3',
    [vaultId, path, revision],
  );
  return rows[0]?.first_seen_at;
}
