import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { CONTENT_HASH_PATTERN, sha256Hex } from '../../kernel/hashing.ts';
import { isUuid, newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { IdempotencyService, IdempotentCommit } from '../idempotency/index.ts';
import { appendEvents, type NewProvenanceEvent } from '../provenance/index.ts';
import { noteChangeRefusal, type HostedMapping, type NoteChangeCapability, type VaultsService } from '../vaults/index.ts';
import {
  DEFAULT_VAULT_FILE_BYTES,
  MAX_FILE_BYTES,
  type FileChange,
  type FileChangeResult,
  type FileImportResult,
  type FilesService,
  type ImportedVaultFile,
  type VaultFileSummary,
} from './contract.ts';
import { mediaTypeOf } from './media-types.ts';
import { assertPortableFilePath, fileKindOf, filePathKey, normalizeFilePath } from './paths.ts';
import * as store from './store.ts';

/** Most changes one `change` call takes. */
export const MAX_FILE_CHANGES = 100;
/** Most files one `importFiles` call takes (importers also keep a batch's bytes bounded). */
export const MAX_FILE_IMPORT_BATCH = 500;
/** Default and largest page of `listFiles` and `listTrash`. */
export const DEFAULT_FILE_PAGE = 100;
/** Bytes `iterateFiles` holds in one page at most (a single larger file is a page of its own). */
const EXPORT_PAGE_BYTES = 32 * 1024 * 1024;
/** The operation name a file change's idempotency key is claimed under. */
export const FILE_CHANGE_OPERATION = 'files.change';

/** What the files service needs besides the database and the vaults. */
export interface FilesServiceOptions {
  /** The idempotency ledger: every applied change runs under its key (docs/api.md, "Idempotency"). */
  idempotency: IdempotencyService;
  /** One vault's ceiling of canvases and attachments together, in bytes (default DEFAULT_VAULT_FILE_BYTES). */
  maxVaultBytes?: number;
  /** Called once a change of a vault's files committed (caches of embeds forget the vault). */
  onFilesChanged?: (vaultId: string) => void;
}

/** The 'sha256:' hash of bytes: a file's revision. */
export function fileHash(content: Buffer): string {
  return `sha256:${sha256Hex(content)}`;
}

/** A file change with its path checked and its hash computed, before any read. */
type CanonicalChange =
  | { type: 'write-file'; path: string; pathKey: string; write: store.FileWrite; expectedHash?: string }
  | { type: 'delete-file'; path: string; pathKey: string; expectedHash: string }
  | { type: 'restore-file'; trashId: string };

function checkHash(value: unknown, index: number): string {
  if (typeof value !== 'string' || !CONTENT_HASH_PATTERN.test(value)) {
    throw new KgateError('invalid_request', `changes[${index}].expectedHash must be "sha256:" and 64 lower-case hex digits.`, { index, field: 'expectedHash' });
  }
  return value;
}

function fileWrite(path: string, content: Buffer): store.FileWrite {
  return { path, pathKey: filePathKey(path), kind: fileKindOf(path), mediaType: mediaTypeOf(path, content), content, contentHash: fileHash(content), size: content.length };
}

/** Checks every change before anything is read: paths, sizes, hashes, and one change per path. */
function canonicalize(changes: readonly FileChange[]): CanonicalChange[] {
  if (changes.length === 0) throw new KgateError('invalid_request', 'A file change needs at least one change.');
  if (changes.length > MAX_FILE_CHANGES) throw new KgateError('invalid_request', `A file change holds at most ${MAX_FILE_CHANGES} changes.`, { limit: MAX_FILE_CHANGES });
  const seen = new Set<string>();
  const canonical = changes.map((change, index): CanonicalChange => {
    if (change.type === 'restore-file') {
      if (!isUuid(change.trashId)) throw new KgateError('not_found', 'There is no trashed file with this id.', { index });
      if (seen.has(`trash:${change.trashId}`)) throw new KgateError('invalid_request', 'The same trashed file is restored twice.', { index });
      seen.add(`trash:${change.trashId}`);
      return { type: 'restore-file', trashId: change.trashId };
    }
    let path: string;
    try {
      path = normalizeFilePath(change.path);
      if (change.type === 'write-file') assertPortableFilePath(path);
    } catch (error) {
      if (error instanceof KgateError) throw new KgateError(error.code, error.message, { ...error.details, index });
      throw error;
    }
    const pathKey = filePathKey(path);
    if (seen.has(pathKey)) throw new KgateError('invalid_request', 'A file change names each path at most once.', { index, path });
    seen.add(pathKey);
    if (change.type === 'delete-file') return { type: 'delete-file', path, pathKey, expectedHash: checkHash(change.expectedHash, index) };
    if (!Buffer.isBuffer(change.content)) throw new KgateError('invalid_request', `changes[${index}].content must be bytes.`, { index });
    if (change.content.length > MAX_FILE_BYTES) {
      throw new KgateError('payload_too_large', `A file holds at most ${MAX_FILE_BYTES} bytes.`, { index, path, limit: MAX_FILE_BYTES });
    }
    return {
      type: 'write-file',
      path,
      pathKey,
      write: fileWrite(path, change.content),
      ...(change.expectedHash !== undefined ? { expectedHash: checkHash(change.expectedHash, index) } : {}),
    };
  });
  // Two new files of one batch may not clash either (`a` and `a/b.png`); the stored ones are checked in the plan.
  const written = new Set(canonical.flatMap((c) => (c.type === 'write-file' ? [c.pathKey] : [])));
  for (const [index, change] of canonical.entries()) {
    if (change.type !== 'write-file') continue;
    const segments = change.pathKey.split('/');
    const folder = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/')).find((key) => written.has(key));
    if (folder !== undefined) {
      throw new KgateError('conflict', `${JSON.stringify(change.path)} would sit under another file of this change; one would be a folder of the other.`, { index, path: change.path });
    }
  }
  return canonical;
}

/** One planned step: what the result says, and what the apply does. */
type Step =
  | { result: FileChangeResult; op: 'none' }
  | { result: FileChangeResult; op: 'write'; write: store.FileWrite; before: VaultFileSummary | undefined }
  | { result: FileChangeResult; op: 'delete'; pathKey: string; before: VaultFileSummary; trashId: string }
  | { result: FileChangeResult; op: 'restore'; write: store.FileWrite; trashId: string };

/** May this caller change files of this mapping? The notes' rules: read-only, pull-only, the owner's switch, bodies the server cannot write. */
function assertMayChangeFiles(mapping: HostedMapping, capability: NoteChangeCapability): void {
  if (mapping.provider !== 'hosted') throw remoteRefusal();
  const refusal = noteChangeRefusal(mapping, capability);
  if (refusal) throw refusal;
  if (mapping.deviceEncrypted) throw deviceEncrypted();
  // Preview receipts and proposals carry notes only: under a policy other than `open`, files change only through a
  // person on the workspace pages, never through a credential that would skip the owner's approval.
  if (capability !== 'person' && mapping.approvalPolicy !== 'open') {
    throw new KgateError('approval_required', `The owner's approval policy (${mapping.approvalPolicy}) covers file changes too, and they cannot be proposed yet: a person changes this mapping's files.`, { policy: mapping.approvalPolicy });
  }
}

function remoteRefusal(): KgateError {
  return new KgateError('unavailable', "Canvases and attachments are stored for hosted vaults only; a remote mapping's files live at its provider.");
}

function deviceEncrypted(): KgateError {
  return new KgateError('device_encrypted', 'Files of this mapping would be encrypted with a device-held key; the server cannot read or write them.');
}

/** Refuses a new file where a folder of that name holds notes or files, or under a name that is a note or file. */
async function assertNoFolderClash(sql: Sql, vaultId: string, path: string, index: number): Promise<void> {
  const clash = await store.findFolderClash(sql, vaultId, filePathKey(path));
  if (clash !== undefined) {
    throw new KgateError('conflict', `${JSON.stringify(path)} and ${JSON.stringify(clash)} cannot both exist in a folder tree: one would be a folder of the other.`, { index, path, clash });
  }
}

/** Builds the files service (FilesService, contract.ts). */
export function createFilesService(db: Database, vaults: VaultsService, options: FilesServiceOptions): FilesService {
  const maxVaultBytes = options.maxVaultBytes ?? DEFAULT_VAULT_FILE_BYTES;

  async function hostedMapping(actor: Actor, mappingId: string, access: 'read' | 'write', sql: Sql = db): Promise<HostedMapping> {
    const mapping = await vaults.resolveHostedMapping(actor.accountId, mappingId, access, sql);
    if (mapping.provider !== 'hosted') throw remoteRefusal();
    return mapping;
  }

  function storageExhausted(used: number, adding: number): KgateError {
    return new KgateError('vault_storage_exhausted', `This vault's canvases and attachments may take ${maxVaultBytes} bytes together; this change would take ${used + adding}.`, {
      limit: maxVaultBytes,
      used,
      adding,
    });
  }

  /** Plans the changes against the vault as it is in `sql` (under the lock when applying); throws the first refusal. */
  async function plan(sql: Sql, vaultId: string, changes: readonly CanonicalChange[], mode: 'preview' | 'apply'): Promise<Step[]> {
    const keys = changes.flatMap((c) => (c.type === 'restore-file' ? [] : [c.pathKey]));
    const current = await store.findFileSummaries(sql, vaultId, keys);
    const steps: Step[] = [];
    let growth = 0;
    for (const [index, change] of changes.entries()) {
      if (change.type === 'restore-file') {
        const trashed = await store.findTrashed(sql, vaultId, change.trashId);
        if (!trashed) throw new KgateError('not_found', 'There is no trashed file with this id.', { index });
        const write = fileWrite(trashed.originalPath, trashed.content);
        await assertNoFolderClash(sql, vaultId, write.path, index);
        if (keys.includes(write.pathKey) || (await store.findFileSummaries(sql, vaultId, [write.pathKey])).size > 0) {
          throw new KgateError('conflict', 'A file exists at the trashed file\'s path; delete or move it first.', { index, path: trashed.originalPath });
        }
        keys.push(write.pathKey);
        growth += write.size;
        steps.push({ op: 'restore', write, trashId: change.trashId, result: { path: write.path, status: 'restore', beforeHash: null, afterHash: write.contentHash, trashId: change.trashId } });
        continue;
      }
      const before = current.get(change.pathKey);
      if (change.type === 'delete-file') {
        if (!before) throw new KgateError('not_found', 'There is no file at this path.', { index, path: change.path });
        if (before.contentHash !== change.expectedHash) {
          throw new KgateError('stale_revision', 'The file changed since the expected hash was read; nothing was deleted.', { index, path: before.path, currentHash: before.contentHash });
        }
        const trashId = newId();
        growth -= before.size;
        // A preview's trash id would never exist; only an applied delete names its entry.
        const result: FileChangeResult = { path: before.path, status: 'delete', beforeHash: before.contentHash, afterHash: null, ...(mode === 'apply' ? { trashId } : {}) };
        steps.push({ op: 'delete', pathKey: change.pathKey, before, trashId, result });
        continue;
      }
      const { write } = change;
      if (before) {
        // A preview may leave the hash out: it answers the current one (beforeHash), as a note's preview does.
        if (change.expectedHash === undefined && mode === 'apply') {
          throw new KgateError('precondition_required', 'Replacing an existing file needs its current hash (expectedHash).', { index, path: before.path, currentHash: before.contentHash });
        }
        if (change.expectedHash !== undefined && before.contentHash !== change.expectedHash) {
          throw new KgateError('stale_revision', 'The file changed since the expected hash was read; nothing was overwritten.', { index, path: before.path, currentHash: before.contentHash });
        }
        if (before.contentHash === write.contentHash && before.path === write.path) {
          steps.push({ op: 'none', result: { path: before.path, status: 'no-op', beforeHash: before.contentHash, afterHash: before.contentHash } });
          continue;
        }
      } else if (change.expectedHash !== undefined) {
        throw new KgateError('stale_revision', 'There is no file at this path any more; nothing was written.', { index, path: write.path, currentHash: null });
      } else {
        await assertNoFolderClash(sql, vaultId, write.path, index);
      }
      growth += write.size - (before?.size ?? 0);
      steps.push({ op: 'write', write, before, result: { path: write.path, status: before ? 'update' : 'create', beforeHash: before?.contentHash ?? null, afterHash: write.contentHash } });
    }
    if (growth > 0) {
      const used = await store.totalFileBytes(sql, vaultId);
      if (used + growth > maxVaultBytes) throw storageExhausted(used, growth);
    }
    return steps;
  }

  async function applySteps(sql: Sql, actor: Actor, mapping: HostedMapping, steps: readonly Step[], idempotencyKey: string | undefined, via: string): Promise<void> {
    const events: NewProvenanceEvent[] = [];
    const by = {
      mappingId: mapping.id,
      vaultId: mapping.vaultId,
      accountId: actor.accountId,
      credentialKind: actor.credentialKind,
      credentialId: actor.credentialId,
      client: actor.client,
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    };
    for (const step of steps) {
      if (step.op === 'none') continue;
      if (step.op === 'write') {
        await store.upsertFile(sql, mapping.vaultId, newId(), step.write);
        events.push({
          ...by,
          kind: step.before ? 'file.updated' : 'file.created',
          path: step.write.path,
          beforeRevision: step.before?.contentHash ?? null,
          afterRevision: step.write.contentHash,
          details: { via, kind: step.write.kind, mediaType: step.write.mediaType, size: step.write.size, ...(step.before && step.before.path !== step.write.path ? { previousPath: step.before.path } : {}) },
        });
      } else if (step.op === 'delete') {
        await store.trashFile(sql, mapping.vaultId, step.pathKey, step.trashId, actor.accountId);
        events.push({ ...by, kind: 'file.deleted', path: step.before.path, beforeRevision: step.before.contentHash, afterRevision: null, trashId: step.trashId, details: { via, kind: step.before.kind, size: step.before.size } });
      } else {
        await store.upsertFile(sql, mapping.vaultId, newId(), step.write);
        await store.markRestored(sql, step.trashId);
        events.push({ ...by, kind: 'file.restored', path: step.write.path, beforeRevision: null, afterRevision: step.write.contentHash, trashId: step.trashId, details: { via, kind: step.write.kind, size: step.write.size } });
      }
    }
    if (events.length === 0) return;
    await appendEvents(sql, events);
    const changed = options.onFilesChanged;
    if (changed) sql.afterCommit(() => changed(mapping.vaultId));
  }

  const change: FilesService['change'] = async (input) => {
    const capability = input.capability ?? 'direct';
    const changes = canonicalize(input.changes);
    if (input.dryRun) {
      const mapping = await hostedMapping(input.actor, input.mappingId, 'write');
      assertMayChangeFiles(mapping, capability);
      const steps = await plan(db, mapping.vaultId, changes, 'preview');
      return { results: steps.map((s) => s.result), replayed: false };
    }
    const applyIn = async (commit: IdempotentCommit): Promise<FileChangeResult[]> => {
      const mapping = await hostedMapping(input.actor, input.mappingId, 'write', commit.sql);
      assertMayChangeFiles(mapping, capability);
      await store.lockVault(commit.sql, mapping.vaultId);
      const steps = await plan(commit.sql, mapping.vaultId, changes, 'apply');
      await applySteps(commit.sql, input.actor, mapping, steps, commit.key, 'change');
      return steps.map((s) => s.result);
    };
    if (input.commit) return { results: await applyIn(input.commit), replayed: false };
    if (input.idempotencyKey === undefined) throw new KgateError('idempotency_key_required', 'Applying a file change needs an idempotency key.');
    // The fingerprint names the bytes by their hash: a retry with other bytes under the same key is refused.
    const fingerprinted = changes.map((c) =>
      c.type === 'write-file' ? { type: c.type, path: c.path, contentHash: c.write.contentHash, expectedHash: c.expectedHash ?? null } : c.type === 'delete-file' ? { type: c.type, path: c.path, expectedHash: c.expectedHash } : c,
    );
    const outcome = await options.idempotency.run(
      { accountId: input.actor.accountId, key: input.idempotencyKey, operation: FILE_CHANGE_OPERATION, input: { mappingId: input.mappingId, changes: fingerprinted } },
      applyIn,
    );
    if (!outcome.replayed) return { results: outcome.value, replayed: false };
    const stored = outcome.outcome;
    if (stored.kind === 'error') throw new KgateError(stored.code, stored.message, stored.details);
    return { results: stored.value as FileChangeResult[], replayed: true };
  };

  const importFiles: FilesService['importFiles'] = async (actor, mappingId, files, importOptions = {}) => {
    if (files.length > MAX_FILE_IMPORT_BATCH) throw new KgateError('invalid_request', `An import batch holds at most ${MAX_FILE_IMPORT_BATCH} files.`);
    const result: FileImportResult = { created: 0, updated: 0, unchanged: 0, rejected: [] };
    const writes = prepareImport(files, result.rejected);
    if (writes.length === 0) return result;
    const mapping = await hostedMapping(actor, mappingId, 'write');
    if (mapping.deviceEncrypted) throw deviceEncrypted();
    const keys = writes.map((w) => w.pathKey);
    const unchanged = (before: VaultFileSummary | undefined, write: store.FileWrite) => before !== undefined && before.contentHash === write.contentHash && before.path === write.path;
    // Re-importing an unchanged folder is the common case: one read, no write transaction.
    const first = await store.findFileSummaries(db, mapping.vaultId, keys);
    if (writes.every((w) => unchanged(first.get(w.pathKey), w))) {
      result.unchanged = writes.length;
      return result;
    }
    return db.transaction(async (tx) => {
      await hostedMapping(actor, mappingId, 'write', tx);
      await store.lockVault(tx, mapping.vaultId);
      const existing = await store.findFileSummaries(tx, mapping.vaultId, keys);
      let used = await store.totalFileBytes(tx, mapping.vaultId);
      const steps: Step[] = [];
      for (const write of writes) {
        const before = existing.get(write.pathKey);
        if (unchanged(before, write)) {
          result.unchanged += 1;
          continue;
        }
        const adding = write.size - (before?.size ?? 0);
        // A file past the ceiling is reported, the others are stored: an import never half-writes one file.
        if (used + adding > maxVaultBytes) {
          result.rejected.push({ path: write.path, code: 'vault_storage_exhausted', reason: storageExhausted(used, adding).message });
          continue;
        }
        used += adding;
        if (before) result.updated += 1;
        else result.created += 1;
        steps.push({ op: 'write', write, before, result: { path: write.path, status: before ? 'update' : 'create', beforeHash: before?.contentHash ?? null, afterHash: write.contentHash } });
      }
      if (!importOptions.dryRun) await applySteps(tx, actor, mapping, steps, undefined, 'import');
      return result;
    });
  };

  return {
    async listFiles(actor, mappingId, listOptions = {}) {
      const mapping = await hostedMapping(actor, mappingId, 'read');
      const limit = Math.min(Math.max(1, Math.trunc(listOptions.limit ?? DEFAULT_FILE_PAGE)), store.MAX_FILE_PAGE);
      const page = await store.listFileSummaries(db, mapping.vaultId, { ...(listOptions.kind ? { kind: listOptions.kind } : {}), after: listOptions.after ?? null, limit: limit + 1 });
      const files = page.slice(0, limit);
      return { files, nextAfter: page.length > limit ? files[files.length - 1]!.path : null };
    },
    async readFile(actor, mappingId, path) {
      const mapping = await hostedMapping(actor, mappingId, 'read');
      if (mapping.deviceEncrypted) throw deviceEncrypted();
      const canonical = normalizeFilePath(path);
      const file = await store.readFileByKey(db, mapping.vaultId, filePathKey(canonical));
      if (!file) throw new KgateError('not_found', 'There is no file at this path.', { path: canonical });
      return file;
    },
    async *iterateFiles(actor, mappingId) {
      const mapping = await hostedMapping(actor, mappingId, 'read');
      let after: string | null = null;
      for (;;) {
        const summaries = await store.listFileSummaries(db, mapping.vaultId, { after, limit: store.MAX_FILE_PAGE });
        if (summaries.length === 0) return;
        // Pages bounded by bytes, not by count: a page of 20 MiB files would otherwise hold gigabytes.
        let group: string[] = [];
        let bytes = 0;
        for (const summary of summaries) {
          if (group.length > 0 && bytes + summary.size > EXPORT_PAGE_BYTES) {
            yield await store.readFilesByKeys(db, mapping.vaultId, group);
            group = [];
            bytes = 0;
          }
          group.push(filePathKey(summary.path));
          bytes += summary.size;
        }
        yield await store.readFilesByKeys(db, mapping.vaultId, group);
        after = summaries[summaries.length - 1]!.path;
      }
    },
    change,
    async listTrash(actor, mappingId, trashOptions = {}) {
      const mapping = await hostedMapping(actor, mappingId, 'read');
      return store.listTrash(db, mapping.vaultId, Math.min(Math.max(1, Math.trunc(trashOptions.limit ?? DEFAULT_FILE_PAGE)), store.MAX_FILE_PAGE));
    },
    importFiles,
  };
}

/** Checks an import batch's paths and sizes; what fails is reported in `rejected`, not imported. */
function prepareImport(files: readonly ImportedVaultFile[], rejected: FileImportResult['rejected']): store.FileWrite[] {
  const seen = new Set<string>();
  const writes: store.FileWrite[] = [];
  for (const file of files) {
    let path: string;
    try {
      path = normalizeFilePath(file.path);
      assertPortableFilePath(path);
    } catch (error) {
      rejected.push({ path: String(file.path), code: 'invalid_path', reason: error instanceof KgateError ? error.message : 'invalid path' });
      continue;
    }
    if (file.content.length > MAX_FILE_BYTES) {
      rejected.push({ path, code: 'payload_too_large', reason: `larger than ${MAX_FILE_BYTES} bytes` });
      continue;
    }
    const write = fileWrite(path, file.content);
    if (seen.has(write.pathKey)) {
      rejected.push({ path, code: 'conflict', reason: 'another file has the same path up to letter case' });
      continue;
    }
    seen.add(write.pathKey);
    writes.push(write);
  }
  return writes;
}
