import { textArrayParam, type Sql } from '../../db/port.ts';
import { KNOWLEDGE_COMPILER_VERSION } from './compile.ts';
import { substanceHash } from './changes.ts';
import type { KnowledgeChange, KnowledgeRecord } from './records.ts';

/** The current version of a record: when it was made (its order among versions), known from, at which revision. */
export interface CurrentVersion {
  seq: string;
  knownFrom: Date | null;
  revision: string;
}

/** What a note was last compiled at: its revision, its records then, and each record's current version. */
export interface CompiledNote {
  revision: string;
  records: KnowledgeRecord[];
  versions: ReadonlyMap<string, CurrentVersion>;
}

/** The compiled state of some notes of a vault, by path; a path never compiled (or gone) is absent. */
export async function loadCompiled(sql: Sql, vaultId: string, paths: readonly string[]): Promise<Map<string, CompiledNote>> {
  if (paths.length === 0) return new Map();
  const rows = await sql.query<{ path: string; revision: string; records: Array<{ record: KnowledgeRecord; seq: string; known_from: string | null; revision: string }> }>(
    `SELECT n.path, n.revision,
            COALESCE((SELECT jsonb_agg(jsonb_build_object('record', r.record, 'seq', r.seq::text, 'known_from', r.known_from, 'revision', r.revision)
                                       ORDER BY r.record_id)
                        FROM knowledge_records r WHERE r.vault_id = n.vault_id AND r.path = n.path), '[]'::jsonb) AS records
       FROM knowledge_notes n
      WHERE n.vault_id = $1 AND n.path = ANY($2::text[])`,
    [vaultId, textArrayParam(paths)],
  );
  return new Map(
    rows.map((row) => [
      row.path,
      {
        revision: row.revision,
        records: row.records.map((r) => r.record),
        versions: new Map(row.records.map((r) => [r.record.id, { seq: r.seq, knownFrom: r.known_from === null ? null : new Date(r.known_from), revision: r.revision }])),
      },
    ]),
  );
}

/** A record as a change leaves it: a new version (no `seq` yet) or the version it had, with its evidence now. */
export interface CurrentRecord {
  record: KnowledgeRecord;
  /** The version's order; null for a new version (the sequence gives it one). */
  seq: string | null;
  knownFrom: Date | null;
}

/** One note's new compiled state: its revision (null: gone), its records, and what changed since the last one. */
export interface NoteRecompiled {
  path: string;
  revision: string | null;
  /** Its records now, each with the version it is (new ones without seq). */
  current: readonly CurrentRecord[];
  changes: readonly KnowledgeChange[];
  /** The versions this change ends (records removed or altered), as they were. */
  ended: ReadonlyArray<{ record: KnowledgeRecord; version: CurrentVersion }>;
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

// Every write of a batch in one statement: each kind of row for the whole batch, as data-modifying common table
// expressions over unnested arrays. One statement instead of seven keeps the vault's lock short on the apply path
// (each statement costs about a millisecond on the embedded engine, whatever its size). The parts touch disjoint
// rows: records removed are not the records written, gone notes are not compiled ones, and a version retired is
// never its successor (all parts see the same snapshot, so the retiring UPDATE cannot see the rows inserted beside it).
const WRITE_COMPILED = `
  WITH observed AS (
    INSERT INTO knowledge_observations (vault_id, path, revision, first_seen_at)
    SELECT $1, o.path, o.revision, $2 FROM unnest($3::text[], $4::text[]) AS o(path, revision)
    ON CONFLICT DO NOTHING
  ), gone AS (
    DELETE FROM knowledge_notes WHERE vault_id = $1 AND path = ANY($5::text[])
  ), compiled AS (
    INSERT INTO knowledge_notes (vault_id, path, revision, compiled_at, compiler_version)
    SELECT $1, n.path, n.revision, $2, $8 FROM unnest($6::text[], $7::text[]) AS n(path, revision)
    ON CONFLICT (vault_id, path) DO UPDATE SET
      revision = EXCLUDED.revision, compiled_at = EXCLUDED.compiled_at, compiler_version = EXCLUDED.compiler_version
  ), removed AS (
    DELETE FROM knowledge_records WHERE vault_id = $1 AND record_id = ANY($9::text[])
  ), records AS (
    INSERT INTO knowledge_records (vault_id, record_id, path, kind, record, revision, substance_hash, seq, known_from)
    SELECT $1, r.record_id, r.path, r.kind, r.record, r.revision, r.substance_hash,
           COALESCE(r.seq::bigint, nextval('knowledge_version_seq')), r.known_from::timestamptz
      FROM unnest($10::text[], $11::text[], $12::text[], $13::jsonb[], $14::text[], $15::text[], $16::text[], $17::text[])
           AS r(record_id, path, kind, record, revision, substance_hash, seq, known_from)
    ON CONFLICT (vault_id, record_id) DO UPDATE SET
      path = EXCLUDED.path, kind = EXCLUDED.kind, record = EXCLUDED.record, revision = EXCLUDED.revision,
      substance_hash = EXCLUDED.substance_hash, seq = EXCLUDED.seq, known_from = EXCLUDED.known_from
  ), history AS (
    INSERT INTO knowledge_record_history (seq, vault_id, record_id, kind, path, record, revision, known_from, retired_at, retired_revision)
    SELECT h.seq::bigint, $1, h.record_id, h.kind, h.path, h.record, h.revision, h.known_from::timestamptz, $2, h.retired_revision
      FROM unnest($18::text[], $19::text[], $20::text[], $21::text[], $22::jsonb[], $23::text[], $24::text[], $25::text[])
           AS h(seq, record_id, kind, path, record, revision, known_from, retired_revision)
  )
  INSERT INTO knowledge_changes (vault_id, path, type, record_id, record_kind, before_revision, after_revision, before_value, after_value, created_at)
  SELECT $1, c.path, c.type, c.record_id, c.record_kind, c.before_revision, c.after_revision, c.before_value, c.after_value, $2
    FROM unnest($26::text[], $27::text[], $28::text[], $29::text[], $30::text[], $31::text[], $32::text[], $33::text[]) WITH ORDINALITY
         AS c(path, type, record_id, record_kind, before_revision, after_revision, before_value, after_value, ord)
   ORDER BY ord`;

const iso = (at: Date | null): string | null => (at === null ? null : at.toISOString());

/**
 * Writes a batch in one statement (WRITE_COMPILED): receipts, compiled revisions, the records removed, the current
 * records (new versions numbered by the sequence, kept ones with their version and their evidence now), the ended
 * versions into history, and the change events.
 */
export async function writeCompiled(sql: Sql, batch: CompiledBatch): Promise<void> {
  const { vaultId, at, notes } = batch;
  if (notes.length === 0 && batch.observed.length === 0) return;
  const gone = notes.filter((n) => n.revision === null);
  const present = notes.filter((n): n is NoteRecompiled & { revision: string } => n.revision !== null);
  const current = present.flatMap((n) => n.current.map((c) => ({ ...c, revision: n.revision })));
  const removed = notes.flatMap((n) => n.changes.filter((c) => c.type === 'record.removed').map((c) => c.recordId));
  const ended = notes.flatMap((n) => n.ended.map((e) => ({ ...e, retiredRevision: n.revision })));
  const changes = notes.flatMap((n) => n.changes);
  await sql.query(WRITE_COMPILED, [
    vaultId,
    at,
    textArrayParam(column(batch.observed, (o) => o.path)),
    textArrayParam(column(batch.observed, (o) => o.revision)),
    textArrayParam(column(gone, (n) => n.path)),
    textArrayParam(column(present, (n) => n.path)),
    textArrayParam(column(present, (n) => n.revision)),
    KNOWLEDGE_COMPILER_VERSION,
    textArrayParam(removed),
    textArrayParam(column(current, (c) => c.record.id)),
    textArrayParam(column(current, (c) => c.record.evidence.path)),
    textArrayParam(column(current, (c) => c.record.kind)),
    column(current, (c) => JSON.stringify(c.record)),
    textArrayParam(column(current, (c) => c.revision)),
    textArrayParam(column(current, (c) => substanceHash(c.record))),
    textArrayParam(column(current, (c) => c.seq)),
    textArrayParam(column(current, (c) => iso(c.knownFrom))),
    textArrayParam(column(ended, (e) => e.version.seq)),
    textArrayParam(column(ended, (e) => e.record.id)),
    textArrayParam(column(ended, (e) => e.record.kind)),
    textArrayParam(column(ended, (e) => e.record.evidence.path)),
    column(ended, (e) => JSON.stringify(e.record)),
    textArrayParam(column(ended, (e) => e.version.revision)),
    textArrayParam(column(ended, (e) => iso(e.version.knownFrom))),
    textArrayParam(column(ended, (e) => e.retiredRevision)),
    textArrayParam(column(changes, (c) => c.path)),
    textArrayParam(column(changes, (c) => c.type)),
    textArrayParam(column(changes, (c) => c.recordId)),
    textArrayParam(column(changes, (c) => c.recordKind)),
    textArrayParam(column(changes, (c) => c.beforeRevision)),
    textArrayParam(column(changes, (c) => c.afterRevision)),
    textArrayParam(column(changes, (c) => c.before ?? null)),
    textArrayParam(column(changes, (c) => c.after ?? null)),
  ]);
}

/** When this replica first saw the revision; undefined when it never did (content from before receipts existed). */
export async function firstSeen(sql: Sql, vaultId: string, path: string, revision: string): Promise<Date | undefined> {
  const rows = await sql.query<{ first_seen_at: Date }>(
    'SELECT first_seen_at FROM knowledge_observations WHERE vault_id = $1 AND path = $2 AND revision = $3',
    [vaultId, path, revision],
  );
  return rows[0]?.first_seen_at;
}
