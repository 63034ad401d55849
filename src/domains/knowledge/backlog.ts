import type { Database } from '../../db/port.ts';
import { textArrayParam } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KNOWLEDGE_COMPILER_VERSION } from './compile.ts';
import { recompile } from './recompile.ts';
import * as store from './store.ts';

/** Notes compiled per transaction: small enough that writers to the vault wait only briefly for its lock. */
export const BACKLOG_BATCH = 100;

// Notes whose compiled state is missing, of another revision, or by older rules; and compiled notes that are gone.
// Vaults behind a device-encrypted mapping are never compiled: the server holds only ciphertext there.
const PENDING = `
  SELECT n.vault_id, n.path FROM notes n
    LEFT JOIN knowledge_notes k ON k.vault_id = n.vault_id AND k.path = n.path
   WHERE (k.path IS NULL OR k.revision <> n.content_hash OR k.compiler_version < $1)
     AND NOT EXISTS (SELECT 1 FROM mappings m WHERE m.vault_id = n.vault_id AND m.device_encrypted)
  UNION ALL
  SELECT k.vault_id, k.path FROM knowledge_notes k
   WHERE NOT EXISTS (SELECT 1 FROM notes n WHERE n.vault_id = k.vault_id AND n.path COLLATE "C" = k.path)
  ORDER BY 1, 2 LIMIT $2`;

/**
 * Compiles one vault's pending notes under its lock, as every writer takes it: the content compiled is the content
 * stored, and no change recorded meanwhile is overwritten by an older one. A version's known time is its
 * revision's receipt when this replica has one, else unknown.
 */
async function compileSome(db: Database, clock: Clock, vaultId: string, paths: readonly string[]): Promise<{ notes: number; records: number }> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT id FROM vaults WHERE id = $1 FOR UPDATE', [vaultId]);
    const [rows, before] = await Promise.all([
      tx.query<{ path: string; content: string; content_hash: string; first_seen_at: Date | null }>(
        `SELECT n.path, n.content, n.content_hash, o.first_seen_at FROM notes n
           LEFT JOIN knowledge_observations o ON o.vault_id = n.vault_id AND o.path = n.path AND o.revision = n.content_hash
          WHERE n.vault_id = $1 AND n.path COLLATE "C" = ANY($2::text[])`,
        [vaultId, textArrayParam(paths)],
      ),
      tx.query<{ path: string; compiler_version: number }>('SELECT path, compiler_version FROM knowledge_notes WHERE vault_id = $1 AND path = ANY($2::text[])', [
        vaultId,
        textArrayParam(paths),
      ]),
    ]);
    const compiled = await store.loadCompiled(tx, vaultId, paths);
    const outdated = new Set(before.filter((b) => b.compiler_version < KNOWLEDGE_COMPILER_VERSION).map((b) => b.path));
    const present = new Map(rows.map((r) => [r.path, r]));
    const notes: store.NoteRecompiled[] = [];
    for (const path of paths) {
      const row = present.get(path);
      const after = row ? { revision: row.content_hash, content: row.content } : null;
      const recompiled = recompile(path, compiled.get(path), after, row?.first_seen_at ?? null, { force: outdated.has(path) });
      if (recompiled) notes.push(recompiled);
    }
    await store.writeCompiled(tx, { vaultId, at: clock.now(), observed: [], notes });
    return { notes: notes.length, records: notes.reduce((sum, n) => sum + n.current.length, 0) };
  });
}

/** See KnowledgeService.compileBacklog. */
export async function compileBacklog(db: Database, clock: Clock, shouldStop: () => boolean = () => false): Promise<{ notes: number; records: number }> {
  const total = { notes: 0, records: 0 };
  let stalls = 0;
  while (!shouldStop()) {
    const pending = await db.query<{ vault_id: string; path: string }>(PENDING, [KNOWLEDGE_COMPILER_VERSION, BACKLOG_BATCH]);
    if (pending.length === 0) break;
    const byVault = new Map<string, string[]>();
    for (const row of pending) byVault.set(row.vault_id, [...(byVault.get(row.vault_id) ?? []), row.path]);
    let done = 0;
    for (const [vaultId, paths] of byVault) {
      const compiled = await compileSome(db, clock, vaultId, paths);
      done += compiled.notes;
      total.notes += compiled.notes;
      total.records += compiled.records;
    }
    // A batch that compiled nothing was raced by writers that compiled it first, and the next query sees their work;
    // a few in a row would mean rows this loop cannot settle, so it stops rather than spin (the next start retries).
    stalls = done === 0 ? stalls + 1 : 0;
    if (stalls > 3) break;
  }
  return total;
}
