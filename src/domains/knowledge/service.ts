import type { Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { compileNote } from './compile.ts';
import { knowledgeChanges } from './changes.ts';
import type { KnowledgeChange } from './records.ts';
import * as store from './store.ts';

/** Keeping a vault's knowledge records in step with its notes (docs/knowledge.md). */
export interface KnowledgeService {
  /**
   * Compiles a note at its new revision (`null`: the note is gone), stores its records and the change events they
   * imply, and receipts the first sighting of the revision. Runs in the caller's transaction, so that records and
   * receipts commit with the change that made them. Compiling the revision the note was last compiled at changes
   * nothing and returns no events.
   */
  recordNote(sql: Sql, vaultId: string, path: string, note: { revision: string; content: string } | null): Promise<KnowledgeChange[]>;
  /** When this replica first saw the note at `revision` (its observation receipt); undefined when it never did. */
  firstSeen(sql: Sql, vaultId: string, path: string, revision: string): Promise<Date | undefined>;
}

/** Builds the knowledge service; `clock` dates receipts and change events. */
export function createKnowledgeService(clock: Clock): KnowledgeService {
  return {
    async recordNote(sql, vaultId, path, note) {
      const at = clock.now();
      if (note) await store.observe(sql, vaultId, path, note.revision, at);
      const before = await store.loadNoteRecords(sql, vaultId, path);
      if (note && before?.revision === note.revision) return [];
      if (!note && !before) return [];
      const after = note ? { revision: note.revision, records: compileNote(path, note.revision, note.content) } : null;
      const changes = knowledgeChanges(path, before, after);
      await store.saveNoteRecords(sql, { vaultId, path, revision: after?.revision ?? null, records: after?.records ?? [], changes, at });
      return changes;
    },
    firstSeen: (sql, vaultId, path, revision) => store.firstSeen(sql, vaultId, path, revision),
  };
}
