import type { Actor } from '../../kernel/principal.ts';
import type { IdempotentCommit } from '../idempotency/index.ts';
import type { NoteChangeCapability } from '../vaults/index.ts';

/**
 * Canvases and attachments of hosted vaults (docs/vaults.md, migration 0027): every file of an Obsidian vault that
 * is not a Markdown note, kept byte for byte, under the same governance as notes: an expected hash for every change
 * of an existing file, an idempotency key for every apply, deletes to the trash, a provenance event per change.
 */

/** Largest canvas or attachment we store, in bytes. Larger files are reported by importers, never truncated. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
/** Default ceiling of one vault's canvases and attachments together, in bytes (`vault_storage_exhausted`). */
export const DEFAULT_VAULT_FILE_BYTES = 1024 * 1024 * 1024;

/** What a stored file is: a JSON Canvas file (`.canvas`), or anything else that is not a note. */
export type VaultFileKind = 'canvas' | 'attachment';

/** A file in an inventory: no bytes. */
export interface VaultFileSummary {
  path: string;
  kind: VaultFileKind;
  mediaType: string;
  /** 'sha256:' + hex of the bytes: what an expectedHash names. */
  contentHash: string;
  size: number;
  updatedAt: Date;
}

/** A whole file. */
export interface VaultFile extends VaultFileSummary {
  content: Buffer;
  createdAt: Date;
}

/** One file handed to an import (a canvas or an attachment). */
export interface ImportedVaultFile {
  path: string;
  content: Buffer;
}

/** What an import batch of files did. */
export interface FileImportResult {
  created: number;
  updated: number;
  unchanged: number;
  rejected: { path: string; code: string; reason: string }[];
}

/** A change to one file: write (create or replace) or delete (to the trash), or restore from the trash. */
export type FileChange =
  | { type: 'write-file'; path: string; content: Buffer; expectedHash?: string }
  | { type: 'delete-file'; path: string; expectedHash: string }
  | { type: 'restore-file'; trashId: string };

/** What a file change did, or would do in a preview. */
export interface FileChangeResult {
  path: string;
  status: 'create' | 'update' | 'delete' | 'restore' | 'no-op';
  beforeHash: string | null;
  afterHash: string | null;
  trashId?: string;
}

/** A trashed file. */
export interface TrashedVaultFile {
  trashId: string;
  originalPath: string;
  kind: VaultFileKind;
  mediaType: string;
  contentHash: string;
  size: number;
  deletedAt: Date;
}

/** The files of hosted vaults. Every call checks the actor's access to the mapping from the server's records. */
export interface FilesService {
  /** A page of the mapping's files in path order (no bytes). */
  listFiles(actor: Actor, mappingId: string, options?: { kind?: VaultFileKind; after?: string; limit?: number }): Promise<{
    files: VaultFileSummary[];
    nextAfter: string | null;
  }>;
  /** One file with its bytes; `not_found` when there is none at that path. */
  readFile(actor: Actor, mappingId: string, path: string): Promise<VaultFile>;
  /** Every file of the mapping, a page at a time (export). */
  iterateFiles(actor: Actor, mappingId: string): AsyncGenerator<VaultFile[]>;
  /**
   * Previews (`dryRun`) or applies changes to files, atomically, under the vault lock: stale hashes are
   * `stale_revision`, a change to an existing file without its hash `precondition_required`; an apply needs an
   * idempotency key, and its retry replays the stored result.
   */
  change(input: {
    actor: Actor;
    mappingId: string;
    changes: FileChange[];
    dryRun: boolean;
    idempotencyKey?: string;
    /** Under which capability the caller changes files (vaults policy); the Developer REST API's `direct` when absent. */
    capability?: NoteChangeCapability;
    /**
     * An apply whose key the caller has claimed already (the operation pipeline): the change runs in this
     * transaction, under its key, instead of claiming `idempotencyKey` itself; `replayed` is then always false.
     */
    commit?: IdempotentCommit;
  }): Promise<{ results: FileChangeResult[]; replayed: boolean }>;
  /** The mapping's trashed files, newest first. */
  listTrash(actor: Actor, mappingId: string, options?: { limit?: number }): Promise<TrashedVaultFile[]>;
  /** Imports a batch of files (the CLI's `kgate import`): unchanged files are counted, not rewritten. */
  importFiles(actor: Actor, mappingId: string, files: readonly ImportedVaultFile[], options?: { dryRun?: boolean }): Promise<FileImportResult>;
}
