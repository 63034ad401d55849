import type { Database, Sql } from '../../db/port.ts';
import type { Mapping, VaultsService } from '../vaults/index.ts';

/** What note writers need besides their input. */
export interface NoteWriteDeps {
  db: Database;
  vaults: VaultsService;
  /** Called once a change of the vault's notes committed, before it is answered: caches forget the vault. */
  onContentChanged: (vaultId: string) => void;
  /** See NoteChangeObserver; none: changes are not observed. */
  observeChanges?: NoteChangeObserver;
  /** Remote mappings' providers; none: a remote mapping's notes cannot be read live or changed here. */
  remote?: RemoteNotes;
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

/** A file at a remote mapping's provider as kgate last saw it: the provider's id and concurrency token. */
export interface RemoteFileState {
  fileId: string;
  /** The provider's revision (Drive version, Dropbox rev, GitHub blob sha): the concurrency token, not a content hash. */
  revision: string;
  size: number;
  modifiedAt: string | null;
}

/** Who applied a remote change, for its provenance event. */
export interface RemoteChangeAttribution {
  accountId: string;
  credentialKind: string;
  credentialId?: string | undefined;
  client?: string | undefined;
  idempotencyKey: string;
  details: Record<string, unknown>;
}

/**
 * What the notes domain needs of a remote mapping's provider, implemented by the providers domain (which owns
 * connections, adapters and the remote_files table) and handed in at composition. Every method resolves the
 * mapping's connection from server records, bounds its provider requests, and throws KgateErrors with stable codes.
 */
export interface RemoteNotes {
  /** The live note at `path` at the provider, read now; null when no file is there. */
  read(mapping: Mapping, path: string, purpose: 'read' | 'write'): Promise<{ file: RemoteFileState; content: string } | null>;
  /**
   * Live notes at these paths, read under one budget for them all (get_vault_schema, spec 8): null for a path with
   * no file; `exhausted` when the budget ended first (the paths not read are left out).
   */
  readMany(mapping: Mapping, paths: readonly string[]): Promise<{ notes: Array<{ path: string; content: string } | { path: string; content: null }>; exhausted: boolean }>;
  /** Writes `content` at `path` only while the file is still `expected` (null: only if absent); answers the new state. */
  write(mapping: Mapping, path: string, content: string, expected: RemoteFileState | null, message: string): Promise<RemoteFileState>;
  /** Moves the file to the provider's trash (a commit on the branch for GitHub) only while it is still `expected`. */
  trash(mapping: Mapping, path: string, expected: RemoteFileState, message: string): Promise<void>;
  /**
   * In the caller's transaction: what the provider now holds at `path` after kgate changed it (the file, or null when
   * removed), recorded in the synchronized copy (one provenance event, attributed to the caller) and in what the
   * sync engine compares against, so that the next sync does not take kgate's own write for a foreign one.
   */
  record(sql: Sql, mapping: Mapping, change: { path: string; file: RemoteFileState | null; content: string | null }, by: RemoteChangeAttribution): Promise<void>;
  /** An applied remote change in progress under an idempotency key (recorded before the provider is asked). */
  beginIntent(input: { scope: string; key: string; mappingId: string; path: string; action: 'write' | 'delete'; beforeHash: string | null; afterHash: string | null }): Promise<void>;
  findIntent(scope: string, key: string): Promise<{ mappingId: string; path: string; action: 'write' | 'delete'; beforeHash: string | null; afterHash: string | null } | undefined>;
  /** Ends an intent: in the outcome's transaction when it succeeded, on its own when the provider refused. */
  endIntent(sql: Sql | undefined, scope: string, key: string): Promise<void>;
}
