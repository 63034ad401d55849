import type { Database, Sql } from '../../db/port.ts';
import { NOTE_MODEL_VERSION, deriveNoteIndex } from './note-index.ts';
import { bumpContentVersion, lockVault, replaceLinks } from './store.ts';

/** Notes re-derived per transaction: small enough that writers to the vault wait only briefly. */
export const REINDEX_BATCH = 200;

/** Finds notes whose stored Markdown model is older than the current parser, a batch at a time. */
async function staleNotes(sql: Sql, limit: number): Promise<Array<{ id: string; vault_id: string }>> {
  return sql.query<{ id: string; vault_id: string }>('SELECT id, vault_id FROM notes WHERE model_version < $1 ORDER BY vault_id, id LIMIT $2', [
    NOTE_MODEL_VERSION,
    limit,
  ]);
}

/**
 * Re-derives the stored model (search text, tags, links) of some notes of one vault from their current content.
 * Takes the vault lock first, as every writer does, so it never deadlocks with one and never derives from content
 * that a writer is replacing. Content, revision and update time are untouched: this is not a change of the note.
 */
async function rederive(db: Database, vaultId: string, ids: readonly string[], onContentChanged: (vaultId: string) => void): Promise<number> {
  return db.transaction(async (tx) => {
    await lockVault(tx, vaultId);
    const rows = await tx.query<{ id: string; content: string }>(
      'SELECT id, content FROM notes WHERE vault_id = $1 AND id = ANY($2::uuid[]) AND model_version < $3',
      [vaultId, ids, NOTE_MODEL_VERSION],
    );
    if (rows.length === 0) return 0;
    const version = await bumpContentVersion(tx, vaultId);
    tx.afterCommit(() => onContentChanged(vaultId));
    const entries = rows.map((row) => ({ id: row.id, entry: deriveNoteIndex(row.content) }));
    await tx.query(
      `UPDATE notes n SET search_text = u.search_text, tag_keys = ARRAY(SELECT jsonb_array_elements_text(u.tags)),
              model_version = $4, content_version = $5
         FROM unnest($1::uuid[], $2::text[], $3::jsonb[]) AS u(id, search_text, tags)
        WHERE n.id = u.id`,
      [entries.map((e) => e.id), entries.map((e) => e.entry.searchText), entries.map((e) => JSON.stringify(e.entry.tagKeys)), NOTE_MODEL_VERSION, version],
    );
    await replaceLinks(tx, vaultId, entries.map((e) => ({ id: e.id, inserted: false, entry: e.entry })));
    return rows.length;
  });
}

/**
 * Brings every note's stored model up to NOTE_MODEL_VERSION: notes written before migration 0004 (which have no
 * search text or links) or by an older parser. Runs in batches until none is left or `shouldStop` says so;
 * returns how many notes it re-derived.
 */
export async function reindexStaleNotes(
  db: Database,
  onContentChanged: (vaultId: string) => void,
  shouldStop: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  while (!shouldStop()) {
    const batch = await staleNotes(db, REINDEX_BATCH);
    if (batch.length === 0) break;
    const byVault = new Map<string, string[]>();
    for (const row of batch) byVault.set(row.vault_id, [...(byVault.get(row.vault_id) ?? []), row.id]);
    let done = 0;
    for (const [vaultId, ids] of byVault) done += await rederive(db, vaultId, ids, onContentChanged);
    total += done;
  }
  return total;
}
