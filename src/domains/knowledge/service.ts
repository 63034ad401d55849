import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { compileBacklog } from './backlog.ts';
import type { KnowledgeChange } from './records.ts';
import { recompile } from './recompile.ts';
import * as store from './store.ts';

/** A note as a change left it at one path: its new revision and content, or null when it is gone from there. */
export interface NoteTransition {
  path: string;
  after: { revision: string; content: string } | null;
}

/** Keeping a vault's knowledge records in step with its notes (docs/knowledge.md). */
export interface KnowledgeService {
  /**
   * Compiles the notes a change left (in the transaction of that change, under the vault's lock), stores their
   * records, record versions and the change events they imply, and receipts the first sighting of each new
   * revision. A revision a note was already compiled at changes nothing and yields no events. Returns the events.
   */
  recordChanges(sql: Sql, vaultId: string, transitions: readonly NoteTransition[]): Promise<KnowledgeChange[]>;
  /** recordChanges for one note. */
  recordNote(sql: Sql, vaultId: string, path: string, note: { revision: string; content: string } | null): Promise<KnowledgeChange[]>;
  /**
   * Compiles, a batch at a time under each vault's lock, notes that were stored before compilation existed or
   * compiled by older rules, until none is left or `shouldStop` says so. Their versions are known from their
   * revision's receipt, or from nothing (content from before receipts). Returns the notes and records compiled.
   */
  compileBacklog(db: Database, shouldStop?: () => boolean): Promise<{ notes: number; records: number }>;
  /** When this replica first saw the note at `revision` (its observation receipt); undefined when it never did. */
  firstSeen(sql: Sql, vaultId: string, path: string, revision: string): Promise<Date | undefined>;
}

/** Builds the knowledge service; `clock` dates receipts, record versions and change events. */
export function createKnowledgeService(clock: Clock): KnowledgeService {
  const recordChanges: KnowledgeService['recordChanges'] = async (sql, vaultId, transitions) => {
    if (transitions.length === 0) return [];
    // One transition per path: the last one says how the change left it.
    const last = new Map(transitions.map((t) => [t.path, t]));
    const at = clock.now();
    const before = await store.loadCompiled(sql, vaultId, [...last.keys()]);
    const notes: store.NoteRecompiled[] = [];
    for (const { path, after } of last.values()) {
      const recompiled = recompile(path, before.get(path), after, at);
      if (recompiled) notes.push(recompiled);
    }
    const observed = [...last.values()].flatMap((t) => (t.after ? [{ path: t.path, revision: t.after.revision }] : []));
    await store.writeCompiled(sql, { vaultId, at, observed, notes });
    return notes.flatMap((n) => n.changes);
  };
  return {
    recordChanges,
    recordNote: (sql, vaultId, path, note) => recordChanges(sql, vaultId, [{ path, after: note }]),
    compileBacklog: (db, shouldStop) => compileBacklog(db, clock, shouldStop),
    firstSeen: (sql, vaultId, path, revision) => store.firstSeen(sql, vaultId, path, revision),
  };
}
