import type { Sql } from '../../src/db/port.ts';
import type { KnowledgeRecord } from '../../src/domains/knowledge/index.ts';

/** One vault's stored knowledge, each table in the order it was written: what tests assert on. */
export interface KnowledgeRows {
  notes: Array<{ path: string; revision: string }>;
  records: Array<{ record_id: string; path: string; kind: string; revision: string; record: KnowledgeRecord }>;
  versions: Array<{
    record_id: string;
    kind: string;
    path: string;
    record: KnowledgeRecord & { value?: string; validFrom?: string | null };
    revision: string;
    known_from: Date | null;
    retired_at: Date | null;
    retired_revision: string | null;
  }>;
  changes: Array<{
    path: string;
    type: string;
    record_id: string;
    before_revision: string | null;
    after_revision: string | null;
    before_value: string | null;
    after_value: string | null;
    created_at: Date;
  }>;
  receipts: Array<{ path: string; revision: string; first_seen_at: Date }>;
}

/** Reads every knowledge row of one vault: compiled notes and records by path, versions, events and receipts in order. */
export async function knowledgeRows(sql: Sql, vaultId: string): Promise<KnowledgeRows> {
  const [notes, records, versions, changes, receipts] = await Promise.all([
    sql.query<KnowledgeRows['notes'][number]>('SELECT path, revision FROM knowledge_notes WHERE vault_id = $1 ORDER BY path COLLATE "C"', [vaultId]),
    sql.query<KnowledgeRows['records'][number]>(
      'SELECT record_id, path, kind, revision, record FROM knowledge_records WHERE vault_id = $1 ORDER BY path COLLATE "C", kind, record_id',
      [vaultId],
    ),
    sql.query<KnowledgeRows['versions'][number]>(
      `SELECT record_id, kind, path, record, revision, known_from, retired_at, retired_revision
         FROM knowledge_record_versions WHERE vault_id = $1 ORDER BY seq`,
      [vaultId],
    ),
    sql.query<KnowledgeRows['changes'][number]>(
      `SELECT path, type, record_id, before_revision, after_revision, before_value, after_value, created_at
         FROM knowledge_changes WHERE vault_id = $1 ORDER BY seq`,
      [vaultId],
    ),
    sql.query<KnowledgeRows['receipts'][number]>(
      'SELECT path, revision, first_seen_at FROM knowledge_observations WHERE vault_id = $1 ORDER BY first_seen_at, path COLLATE "C", revision',
      [vaultId],
    ),
  ]);
  return { notes, records, versions, changes, receipts };
}

/** Every row of every knowledge table, for "nothing changed" assertions. */
export async function knowledgeSnapshot(sql: Sql): Promise<string> {
  const tables = ['knowledge_notes', 'knowledge_records', 'knowledge_record_versions', 'knowledge_changes', 'knowledge_observations'];
  const parts: unknown[] = [];
  for (const table of tables) parts.push(await sql.query(`SELECT * FROM ${table} ORDER BY 1, 2, 3`));
  return JSON.stringify(parts);
}
