/**
 * Drive round trips of delegated connections (connections.execute): a retry-safe create, an update that carries the
 * last observed `version` (a mismatch is `conflict` and nothing is written), and a bounded import of a folder the
 * user picked. Provider writes run outside any database transaction; what a key is about to write is recorded first
 * (an intent), so a retry after a lost answer finds what the first attempt did instead of doing it twice.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../../db/port.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { driveFiles, type DriveFile } from '../../providers/index.ts';
import type { CallMaker } from './calls.ts';
import { DRIVE_IMPORT_CEILINGS, MAX_DRIVE_WRITE_BYTES, ROUND_TRIP_BUDGETS, type ConnectionOwner } from './contract.ts';
import { connectionFailure, translated } from './errors.ts';
import * as store from './store.ts';

/** A Drive file as products see it. */
export interface DriveFileView {
  id: string;
  name: string;
  mimeType: string;
  /** Drive's `version`: the value an update carries as `expectedVersion`. */
  version: string;
  size: number;
  modifiedTime: string | null;
  parentIds: string[];
}

/** A file written by a product: the file, and the SHA-256 of the bytes written. */
export interface WrittenDriveFile {
  file: DriveFileView;
  sha256: string;
  /** True when a retry found the file the first attempt created or updated (nothing was written again). */
  recovered: boolean;
}

/** One imported file. */
export interface ImportedDriveFile extends DriveFileView {
  /** Path below the imported folder, `/`-separated. */
  path: string;
  sha256: string;
  content: Buffer;
}

/** The bounds of one import, each at most its ceiling (DRIVE_IMPORT_CEILINGS). */
export interface DriveImportLimits {
  maxFiles: number;
  maxBytes: number;
  maxDepth: number;
  maxRequests: number;
}

/** Whose key a write is under (the idempotency claim). */
export interface WriteClaim {
  scope: string;
  key: string;
}

/** Drive round trips. */
export interface DriveRoundTrips {
  createFile(owner: ConnectionOwner, connectionId: string, claim: WriteClaim, input: { name: string; mimeType: string; parentId: string; content: Buffer }): Promise<WrittenDriveFile>;
  updateFile(owner: ConnectionOwner, connectionId: string, claim: WriteClaim, input: { fileId: string; expectedVersion: string; content: Buffer }): Promise<WrittenDriveFile>;
  importFolder(
    owner: ConnectionOwner,
    connectionId: string,
    input: { folderId: string } & DriveImportLimits,
  ): Promise<{ folder: { id: string; name: string }; files: ImportedDriveFile[]; requests: number }>;
}

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

function present(file: DriveFile): DriveFileView {
  if (file.version === undefined) throw new KgateError('provider_unavailable', 'Drive answered a file without its version.');
  return {
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    version: file.version,
    size: Number(file.size ?? 0),
    modifiedTime: file.modifiedTime ?? null,
    parentIds: [...(file.parents ?? [])],
  };
}

function limitReached(bound: string, limit: number, message: string): KgateError {
  return new KgateError('provider_limit_reached', message, { bound, limit });
}

const reused = () => new KgateError('idempotency_key_reused', 'This idempotency key was already used with a different request; use a new key for a new request.');

/** Builds the Drive round trips. */
export function createDriveRoundTrips(deps: { db: Database; calls: CallMaker }): DriveRoundTrips {
  const { db, calls } = deps;

  function tooLarge(content: Buffer): void {
    if (content.length > MAX_DRIVE_WRITE_BYTES) throw new KgateError('payload_too_large', `A file written to Drive has at most ${MAX_DRIVE_WRITE_BYTES} bytes.`, { limit: MAX_DRIVE_WRITE_BYTES });
  }

  return {
    async createFile(owner, connectionId, claim, input) {
      tooLarge(input.content);
      const { connection, call } = await calls(owner, connectionId, 'drive', ROUND_TRIP_BUDGETS.driveWrite);
      const at = { connectionId: connection.id, claimScope: claim.scope, key: claim.key };
      const contentSha = sha256(input.content);
      const fingerprint = sha256(JSON.stringify(['drive.create', input.name, input.mimeType, input.parentId, contentSha]));
      let intent = await store.findIntent(db, at);
      if (!intent) {
        const id = await translated(() => driveFiles.generateId(call));
        intent = await store.insertIntent(db, at, { kind: 'drive.create', fingerprint, target: id, detail: contentSha });
      }
      if (intent.kind !== 'drive.create' || intent.fingerprint !== fingerprint) throw reused();
      const fileId = intent.target;
      const { file, existed } = await translated(() => driveFiles.create(call, { id: fileId, name: input.name, parentId: input.parentId, mimeType: input.mimeType, content: input.content }));
      return { file: present(file), sha256: contentSha, recovered: existed };
    },

    async updateFile(owner, connectionId, claim, input) {
      tooLarge(input.content);
      const { connection, call } = await calls(owner, connectionId, 'drive', ROUND_TRIP_BUDGETS.driveWrite);
      const at = { connectionId: connection.id, claimScope: claim.scope, key: claim.key };
      const contentSha = sha256(input.content);
      const fingerprint = sha256(JSON.stringify(['drive.update', input.fileId, input.expectedVersion, contentSha]));
      const earlier = await store.findIntent(db, at);
      if (earlier && (earlier.kind !== 'drive.update' || earlier.fingerprint !== fingerprint)) throw reused();
      if (!earlier) await store.insertIntent(db, at, { kind: 'drive.update', fingerprint, target: input.fileId, detail: contentSha });
      return translated(async () => {
        const live = await driveFiles.metadata(call, input.fileId);
        if (!live || live.trashed) throw new KgateError('not_found', 'The file does not exist in Drive, or this connection may not see it.');
        if (driveFiles.isFolder(live) || !driveFiles.isContentFile(live)) {
          throw new KgateError('invalid_request', 'This item is a folder or a Google document, not a file with content.', { field: 'fileId' });
        }
        if (live.version !== input.expectedVersion) {
          // A retry under the same key: the first attempt may have written and lost its answer. Its bytes are there
          // when the file holds exactly what this request writes; then nothing is written again.
          if (earlier) {
            const { content, file } = await driveFiles.download(call, { id: live.id, version: live.version ?? '', size: Number(live.size ?? 0) }, MAX_DRIVE_WRITE_BYTES);
            if (sha256(content) === contentSha) return { file: present(file), sha256: contentSha, recovered: true };
          }
          throw new KgateError('conflict', 'The file changed in Drive since the version this request carries; nothing was overwritten.', {
            expectedVersion: input.expectedVersion,
            currentVersion: live.version ?? null,
          });
        }
        const written = await driveFiles.uploadContent(call, live, input.content);
        return { file: present(written), sha256: contentSha, recovered: false };
      });
    },

    async importFolder(owner, connectionId, input) {
      const budget = {
        maxRequests: input.maxRequests,
        // Listing answers count too: the files' own bytes are bounded by maxBytes below, before any download.
        maxBytes: input.maxBytes + 2 * 1024 * 1024,
        wallMs: DRIVE_IMPORT_CEILINGS.wallMs,
      };
      const { call } = await calls(owner, connectionId, 'drive', budget);
      try {
        const folder = await driveFiles.metadata(call, input.folderId);
        if (!folder || folder.trashed || !driveFiles.isFolder(folder)) throw new KgateError('not_found', 'No folder with this id is in Drive for this connection (the user picks it in Google Picker).');
        const entries: Awaited<ReturnType<typeof driveFiles.listTree>>['entries'] = [];
        let page: string | null = null;
        do {
          const listed = await driveFiles.listTree(call, folder.id, page, { maxDepth: input.maxDepth, maxEntries: 1000 });
          entries.push(...listed.entries);
          if (entries.length > input.maxFiles) throw limitReached('files', input.maxFiles, `An import holds at most ${input.maxFiles} files; this folder holds more.`);
          page = listed.next;
        } while (page !== null);
        const total = entries.reduce((sum, entry) => sum + entry.size, 0);
        if (total > input.maxBytes) throw limitReached('bytes', input.maxBytes, `An import reads at most ${input.maxBytes} bytes; the files of this folder hold ${total}.`);
        entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        const files: ImportedDriveFile[] = [];
        let left = input.maxBytes;
        for (const entry of entries) {
          const { content, file } = await driveFiles.download(call, { id: entry.fileId, version: entry.revision, size: entry.size }, Math.max(0, left));
          left -= content.length;
          if (left < 0) throw limitReached('bytes', input.maxBytes, `An import reads at most ${input.maxBytes} bytes; the files grew while they were read.`);
          files.push({ ...present(file), path: entry.path, sha256: sha256(content), content });
        }
        return { folder: { id: folder.id, name: folder.name }, files, requests: call.spent.requests };
      } catch (error) {
        const failure = connectionFailure(error);
        if (failure.code !== 'provider_limit_reached' || failure.details?.limit !== undefined) throw failure;
        // A bound the provider call or the listing reached: named with the value it had.
        const limits: Record<string, number> = { requests: input.maxRequests, bytes: input.maxBytes, depth: input.maxDepth, wall_time: DRIVE_IMPORT_CEILINGS.wallMs };
        const bound = typeof failure.details?.bound === 'string' ? failure.details.bound : 'requests';
        throw new KgateError('provider_limit_reached', failure.message, { bound, ...(limits[bound] !== undefined ? { limit: limits[bound] } : {}) });
      }
    },
  };
}
