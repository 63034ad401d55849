import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { Actor } from '../../kernel/principal.ts';
import { assertPortableNotePath, normalizeNotePath, notePathKey } from '../../kernel/vault-path.ts';
import { appendEvents, type NewProvenanceEvent } from '../provenance/index.ts';
import type { VaultsService } from '../vaults/index.ts';
import { MAX_NOTE_BYTES, type ImportBatchResult, type ImportedFile, type Note } from './contract.ts';
import { createFrontmatterScan, type FrontmatterScan } from './frontmatter-scan.ts';
import { createNoteBodyCache, type NoteBodyCache } from './body-cache.ts';
import { createNoteReads, type NoteReads } from './reads.ts';
import { reindexStaleNotes } from './reindex.ts';
import * as store from './store.ts';
import type { TransactionResult } from './transaction-contract.ts';
import { prepareTransaction, runTransaction, sharingOf, stageTransaction, type TransactionInput } from './transactions.ts';
import { applyTransactions, type PreparedTransaction } from './apply-group.ts';
import type { GroupRunner, SharedWork } from '../idempotency/index.ts';
import { createOrAppend, stageCreateOrAppend, type CreateOrAppendInput } from './append.ts';
import type { RemoteChangeInput, StagedRemoteChange } from './remote-writes.ts';
import { purgeReceipts } from './receipts.ts';
import { noteTitle } from './title.ts';
import { changedBy } from './changed-by.ts';
import { deriveNoteIndex } from './note-index.ts';
import { SHORT_SLICE_MS, Slices } from '../../kernel/slices.ts';
import type { NoteChangeObserver, NoteWriteDeps, RemoteNotes } from './write-deps.ts';

/** An applied transaction ready to share a commit (see NotesService.shareTransaction); its caller adds `present`. */
export type SharedTransaction = Omit<SharedWork<PreparedTransaction, TransactionResult, never>, 'present'>;

/** Most files one `importNotes` call takes; importers send batches of this size. */
export const MAX_IMPORT_BATCH = 500;

/** Hosted note use cases. */
export interface NotesService extends NoteReads {
  /** Previews or applies a transaction of note actions (see transactions.ts). */
  runTransaction(input: TransactionInput): Promise<TransactionResult>;
  /**
   * An applied transaction as work that may share its commit with concurrent applies to the same mapping (group
   * commit, docs/architecture.md): made ready now, on the caller's turn (canonical paths, hashes, Markdown models),
   * and applied in a group by its runner, with the same checks, outcome and provenance as `runTransaction`.
   * Undefined when it must run alone through `runTransaction`: a move that rewrites links, or actions that
   * canonicalizing refuses (whose error `runTransaction` then answers, under the caller's key like any refusal).
   */
  shareTransaction(input: Omit<TransactionInput, 'dryRun' | 'commit'>): SharedTransaction | undefined;
  /** Creates a note, or appends to it on a new line (see append.ts). */
  createOrAppend(input: CreateOrAppendInput): Promise<TransactionResult>;
  /**
   * Step one of an applied change to a remote mapping, run once the key is claimed and before the outcome's
   * transaction opens (remote-writes.ts): the provider write. Undefined for a hosted mapping; the value travels on
   * the commit (`staged`) to `runTransaction`, which records it.
   */
  stageTransaction(input: RemoteChangeInput): Promise<StagedRemoteChange | undefined>;
  /** `stageTransaction` for `createOrAppend`: the addition appended to the note as the provider holds it now. */
  stageCreateOrAppend(input: Omit<CreateOrAppendInput, 'dryRun' | 'commit'> & { scope: string; key: string }): Promise<StagedRemoteChange | undefined>;
  /** Deletes preview receipts past their retention (receipts.ts); returns how many. */
  purgePreviewReceipts(): Promise<number>;
  /**
   * Imports a batch of files into a hosted vault as the operator acting for `actor`: creates new notes, replaces
   * changed ones, leaves identical ones untouched, and records a provenance event for each change. One
   * transaction per batch; invalid, oversized and duplicate paths are reported, not imported.
   */
  importNotes(
    actor: Actor,
    mappingId: string,
    files: readonly ImportedFile[],
    options?: { dryRun?: boolean },
  ): Promise<ImportBatchResult>;
  /**
   * `importNotes` in two steps, so that an importer can check and parse its next batch on the request thread while
   * the database writes the current one: `prepareImport` does the CPU work (paths, sizes, hashes, the Markdown
   * model) and touches nothing; `importPrepared` reads and writes. Same outcome as `importNotes`.
   */
  prepareImport(files: readonly ImportedFile[]): Promise<PreparedImport>;
  importPrepared(actor: Actor, mappingId: string, prepared: PreparedImport, options?: { dryRun?: boolean }): Promise<ImportBatchResult>;
  /** Every note of a hosted vault, in pages, in byte order of path (for export). */
  iterateNotes(actor: Actor, mappingId: string, pageSize?: number): AsyncGenerator<Note[]>;
  countNotes(actor: Actor, mappingId: string): Promise<number>;
  /**
   * Reads the frontmatter of at most `limit` hosted notes (default and maximum 2,000) in byte order of path, with
   * `scanned`, `total` and `truncated` so a caller knows when it stopped early. Refuses device-encrypted mappings.
   */
  scanFrontmatter(actor: Actor, mappingId: string, limit?: number): Promise<FrontmatterScan>;
  /** Refreshes the planner's statistics of the notes table; importers call it after a bulk load. */
  refreshStatistics(): Promise<void>;
  /**
   * Re-derives the stored Markdown model of notes written by an older parser (or before it existed), in batches;
   * returns how many. The gateway runs it in the background at start.
   */
  reindexStale(shouldStop?: () => boolean): Promise<number>;
}

interface PreparedFile {
  path: string;
  write: store.NoteWrite;
}

/** A batch of files checked and parsed by `prepareImport`, not yet written. */
export interface PreparedImport {
  readonly files: readonly PreparedFile[];
  /** What preparing found: the files it rejected. */
  readonly rejected: ImportBatchResult['rejected'];
}

async function prepare(files: readonly ImportedFile[], result: Pick<ImportBatchResult, 'rejected'>): Promise<PreparedFile[]> {
  const seen = new Set<string>();
  const prepared: PreparedFile[] = [];
  // Parsing a batch takes tens of milliseconds: in short slices, so that the database's replies (an importer writes
  // one batch while it parses the next) and, inside a gateway, requests are served in between.
  const slices = new Slices(SHORT_SLICE_MS);
  for (const file of files) {
    if (slices.due()) await slices.pause();
    let path: string;
    try {
      path = normalizeNotePath(file.path);
      // An import writes every file it takes: a name Windows or a synced drive refuses is reported, not stored.
      assertPortableNotePath(path);
    } catch (error) {
      const reason = error instanceof KgateError ? error.message : 'invalid path';
      result.rejected.push({ path: String(file.path), code: 'invalid_path', reason });
      continue;
    }
    const size = Buffer.byteLength(file.content, 'utf8');
    if (size > MAX_NOTE_BYTES) {
      result.rejected.push({ path, code: 'payload_too_large', reason: `larger than ${MAX_NOTE_BYTES} bytes` });
      continue;
    }
    const pathKey = notePathKey(path);
    if (seen.has(pathKey)) {
      result.rejected.push({ path, code: 'conflict', reason: 'another file has the same path up to letter case' });
      continue;
    }
    seen.add(pathKey);
    const write: store.NoteWrite = {
      path,
      pathKey,
      content: file.content,
      contentHash: contentHash(file.content),
      size,
      title: noteTitle(path, file.content),
      derived: deriveNoteIndex(file.content),
    };
    prepared.push({ path, write });
  }
  return prepared;
}

// A case-only rename is a change too: the stored path must follow the folder.
function isUnchanged(before: { path: string; contentHash: string } | undefined, write: store.NoteWrite): boolean {
  return before !== undefined && before.contentHash === write.contentHash && before.path === write.path;
}

/** What the notes service keeps in memory, and whom it tells of its changes. */
export interface NotesServiceOptions {
  /** Bodies of notes read again at the same content version (default: the default budget). */
  bodies?: NoteBodyCache;
  /** Called once a change of a vault's notes committed, before it is answered (the authority cache forgets it). */
  onContentChanged: (vaultId: string) => void;
  /** Told of every applied change, in its transaction (knowledge compiles from it). */
  observeChanges?: NoteChangeObserver;
  /** Remote mappings' providers (the providers domain); none: remote notes are neither read live nor changed. */
  remote?: RemoteNotes;
}

/** Builds the notes service. */
export function createNotesService(db: Database, vaults: VaultsService, options: NotesServiceOptions): NotesService {
  const { onContentChanged, observeChanges } = options;
  const deps: NoteWriteDeps = { db, vaults, onContentChanged, ...(observeChanges ? { observeChanges } : {}), ...(options.remote ? { remote: options.remote } : {}) };
  const prepareImport: NotesService['prepareImport'] = async (files) => {
    if (files.length > MAX_IMPORT_BATCH) {
      throw new KgateError('invalid_request', `An import batch holds at most ${MAX_IMPORT_BATCH} files.`);
    }
    const rejected: ImportBatchResult['rejected'] = [];
    return { files: await prepare(files, { rejected }), rejected };
  };

  const importPrepared: NotesService['importPrepared'] = async (actor, mappingId, batch, options = {}) => {
    const result: ImportBatchResult = { created: 0, updated: 0, unchanged: 0, rejected: [...batch.rejected] };
    const prepared = batch.files;
    if (prepared.length === 0) return result;
    const keys = prepared.map((p) => p.write.pathKey);
    const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'write');
    // A remote mapping's vault is only the copy of what its provider holds: an import there would be lost at the next
    // sync, and would bypass the provider's concurrency rules.
    if (mapping.provider !== 'hosted') {
      throw new KgateError('invalid_request', "Import writes hosted vaults; a remote mapping's notes live at its provider (put the files there, and the sync copies them).", { provider: mapping.provider });
    }
    // Re-importing an unchanged folder is the common case: answer it with one read and no write transaction.
    const current = await store.findHashes(db, mapping.vaultId, keys);
    if (prepared.every(({ write }) => isUnchanged(current.get(write.pathKey), write))) {
      result.unchanged = prepared.length;
      return result;
    }
    return db.transaction(async (tx) => {
      // Authority and hashes are checked again under the vault lock: the read above may be stale by now.
      await vaults.resolveHostedMapping(actor.accountId, mappingId, 'write', tx);
      await store.lockVault(tx, mapping.vaultId);
      const existing = await store.findHashes(tx, mapping.vaultId, keys);
      const writes: store.NoteWrite[] = [];
      const events: NewProvenanceEvent[] = [];
      for (const { write } of prepared) {
        const before = existing.get(write.pathKey);
        if (isUnchanged(before, write)) {
          result.unchanged += 1;
          continue;
        }
        if (before) result.updated += 1;
        else result.created += 1;
        writes.push(write);
        events.push({
          ...changedBy(actor, mapping),
          kind: before ? 'note.updated' : 'note.created',
          path: write.path,
          beforeRevision: before?.contentHash ?? null,
          afterRevision: write.contentHash,
          details: { via: 'import', ...(before && before.path !== write.path ? { previousPath: before.path } : {}) },
        });
      }
      if (!options.dryRun) {
        await store.upsertNotes(tx, mapping.vaultId, writes);
        tx.afterCommit(() => onContentChanged(mapping.vaultId));
        await appendEvents(tx, events);
        if (observeChanges && !mapping.deviceEncrypted) {
          // A note re-imported under another case of its path leaves the old one.
          const left = writes.flatMap((w) => {
            const before = existing.get(w.pathKey);
            return before && before.path !== w.path ? [{ path: before.path, after: null }] : [];
          });
          await observeChanges(tx, mapping.vaultId, [...left, ...writes.map((w) => ({ path: w.path, after: { revision: w.contentHash, content: w.content } }))]);
        }
      }
      return result;
    });
  };

  // One function for the service's life: transactions share a group only when their runners are the same.
  const runGroup: GroupRunner<PreparedTransaction, TransactionResult> = (sql, members, hooks) => applyTransactions(deps, sql, members, hooks);

  return {
    ...createNoteReads(db, vaults, options.bodies ?? createNoteBodyCache(), options.remote),
    ...createFrontmatterScan(db, vaults, options.remote),
    runTransaction: (input) => runTransaction(deps, input),
    stageTransaction: (input) => stageTransaction(deps, input),
    stageCreateOrAppend: (input) => stageCreateOrAppend(deps, input),
    shareTransaction(input) {
      // A remote mapping's change goes to its provider one note at a time, never into a shared commit; a mapping
      // whose kind this process has not seen yet runs alone once (a kind never changes).
      if (vaults.providerOf(input.mappingId) !== 'hosted') return undefined;
      let payload: PreparedTransaction;
      try {
        payload = prepareTransaction(input);
      } catch (error) {
        if (error instanceof KgateError) return undefined;
        throw error;
      }
      const sharing = sharingOf(payload);
      return sharing && { ...sharing, payload, runGroup };
    },
    createOrAppend: (input) => createOrAppend(deps, input),
    purgePreviewReceipts: () => purgeReceipts(db),
    importNotes: async (actor, mappingId, files, options = {}) => importPrepared(actor, mappingId, await prepareImport(files), options),
    prepareImport,
    importPrepared,
    async *iterateNotes(actor, mappingId, pageSize = 500) {
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      let after: string | null = null;
      for (;;) {
        const page = await store.listNotesWithContent(db, mapping.vaultId, after, pageSize);
        if (page.length === 0) return;
        yield page;
        after = page[page.length - 1]!.path;
      }
    },
    reindexStale: (shouldStop) => reindexStaleNotes(db, onContentChanged, shouldStop),
    async refreshStatistics() {
      await db.exec('ANALYZE notes');
    },
    async countNotes(actor, mappingId) {
      const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, 'read');
      return store.countNotes(db, mapping.vaultId);
    },
  };
}
