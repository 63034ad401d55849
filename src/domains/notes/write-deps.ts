import type { Database, Sql } from '../../db/port.ts';
import type { VaultsService } from '../vaults/index.ts';

/** What note writers need besides their input. */
export interface NoteWriteDeps {
  db: Database;
  vaults: VaultsService;
  /** Called once a change of the vault's notes committed, before it is answered: caches forget the vault. */
  onContentChanged: (vaultId: string) => void;
  /** See NoteChangeObserver; none: changes are not observed. */
  observeChanges?: NoteChangeObserver;
}

/** A note as an applied change left it at one path: its new revision and content, or null when it is gone from there. */
export interface NoteTransition {
  path: string;
  after: { revision: string; content: string } | null;
}

/**
 * Told of every applied change of a vault's notes, in the writing transaction and under the vault's lock, so that
 * what it derives (knowledge records and their receipts) commits with the change or not at all. Not told of changes
 * to vaults behind a device-encrypted mapping: the server holds only ciphertext there.
 */
export type NoteChangeObserver = (sql: Sql, vaultId: string, transitions: readonly NoteTransition[]) => Promise<unknown>;
