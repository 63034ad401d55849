import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { contentHash } from '../../kernel/hashing.ts';
import { notePathKey } from '../../kernel/vault-path.ts';
import type { NoteMirror, RemoteChangeAttribution, RemoteFileState, RemoteNotes } from '../notes/index.ts';
import type { Mapping } from '../vaults/index.ts';
import { PROVIDER_BUDGETS, MAX_REMOTE_NOTE_BYTES, type AdapterRegistry, type CallFactory } from './contract.ts';
import { providerFailure } from './errors.ts';
import type { ProviderBudget } from './call.ts';
import { ProviderError, type RemoteEntry, type RemoteKind, type RemoteRoot } from './port.ts';
import { findRemoteFiles, upsertRemoteFiles } from './remote-files-store.ts';
import { readSyncState } from './sync-store.ts';

/** What the remote notes need: the adapters, calls under a mapping's connection, and the copy's writer. */
export interface RemoteNotesDeps {
  db: Database;
  adapters: AdapterRegistry;
  callFor: CallFactory;
  mirror: NoteMirror;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** A remote mapping's kind, connection and root, from the server's record of it. */
function remoteOf(mapping: Mapping): { provider: RemoteKind; connectionId: string; root: RemoteRoot } {
  const root = mapping.remoteConfig as RemoteRoot | null;
  if (mapping.provider === 'hosted' || !mapping.connection || !root || root.kind !== mapping.provider) {
    throw new KgateError('provider_disconnected', "This remote mapping's provider connection is disconnected; its owner reconnects the provider.");
  }
  return { provider: mapping.provider, connectionId: mapping.connection.id, root };
}

function stateOf(entry: RemoteEntry): RemoteFileState {
  return { fileId: entry.fileId, revision: entry.revision, size: entry.size, modifiedAt: entry.modifiedAt };
}

/**
 * The providers' side of remote notes (notes domain, RemoteNotes): live reads and conditional writes through the
 * mapping's adapter under its connection, bounded per operation, and the recording of kgate's own changes in the
 * synchronized copy and in what the sync engine compares against.
 */
export function createRemoteNotes(deps: RemoteNotesDeps): RemoteNotes {
  const { db, adapters, callFor } = deps;

  async function withCall<T>(mapping: Mapping, budget: ProviderBudget, writing: boolean, work: (call: Awaited<ReturnType<CallFactory>>, remote: ReturnType<typeof remoteOf>) => Promise<T>): Promise<T> {
    const remote = remoteOf(mapping);
    try {
      return await work(await callFor({ connectionId: remote.connectionId, provider: remote.provider }, budget), remote);
    } catch (error) {
      throw providerFailure(error, writing);
    }
  }

  /** The provider's own names of paths kgate knows (their letter case may differ from the caller's), else the paths. */
  async function providerPaths(mapping: Mapping, paths: readonly string[]): Promise<string[]> {
    const known = await findRemoteFiles(db, mapping.id, paths.map(notePathKey));
    return paths.map((path) => {
      const row = known.get(notePathKey(path));
      return row && row.state !== 'duplicate' ? row.path : path;
    });
  }
  const providerPath = async (mapping: Mapping, path: string): Promise<string> => (await providerPaths(mapping, [path]))[0]!;

  /** One live note under `call`: its file and text; null when no file is there. `invalid_encoding` when not UTF-8. */
  async function readLive(call: Awaited<ReturnType<CallFactory>>, remote: ReturnType<typeof remoteOf>, at: string): Promise<{ file: RemoteFileState; content: string } | null> {
    try {
      const { entry, content } = await adapters[remote.provider].read(call, remote.root, at, MAX_REMOTE_NOTE_BYTES);
      try {
        return { file: stateOf(entry), content: decoder.decode(content) };
      } catch {
        throw new KgateError('invalid_encoding', 'The note at the provider is not valid UTF-8 text.');
      }
    } catch (error) {
      if (error instanceof ProviderError && error.code === 'not_found') return null;
      throw error;
    }
  }

  return {
    async read(mapping, path, purpose) {
      const at = await providerPath(mapping, path);
      return withCall(mapping, purpose === 'write' ? PROVIDER_BUDGETS.write : PROVIDER_BUDGETS.read, false, (call, remote) => readLive(call, remote, at));
    },

    async readMany(mapping, paths) {
      const notes: Array<{ path: string; content: string } | { path: string; content: null }> = [];
      let exhausted = false;
      const at = await providerPaths(mapping, paths);
      await withCall(mapping, PROVIDER_BUDGETS.schema, false, async (call, remote) => {
        for (const [index, path] of paths.entries()) {
          try {
            notes.push({ path, content: (await readLive(call, remote, at[index]!))?.content ?? null });
          } catch (error) {
            if (error instanceof ProviderError && error.code === 'budget_exhausted') {
              exhausted = true;
              return;
            }
            // Too large, or not text, is no note to scan; other failures end the scan.
            if ((error instanceof ProviderError && error.code === 'too_large') || (error instanceof KgateError && error.code === 'invalid_encoding')) {
              notes.push({ path, content: null });
              continue;
            }
            throw error;
          }
        }
      });
      return { notes, exhausted };
    },

    async write(mapping, path, content, expected, message) {
      const at = await providerPath(mapping, path);
      return withCall(mapping, PROVIDER_BUDGETS.write, true, async (call, remote) =>
        stateOf(
          await adapters[remote.provider].write(call, remote.root, {
            path: at,
            content: Buffer.from(content, 'utf8'),
            expected: expected && { fileId: expected.fileId, revision: expected.revision },
            message,
          }),
        ),
      );
    },

    async trash(mapping, path, expected, message) {
      const at = await providerPath(mapping, path);
      await withCall(mapping, PROVIDER_BUDGETS.write, true, (call, remote) =>
        adapters[remote.provider].trash(call, remote.root, { path: at, expected: { fileId: expected.fileId, revision: expected.revision }, message }),
      );
    },

    async record(sql, mapping, change, by: RemoteChangeAttribution) {
      const remote = remoteOf(mapping);
      const pathKey = notePathKey(change.path);
      await deps.mirror(
        sql,
        { id: mapping.id, vaultId: mapping.vaultId, ownerAccountId: mapping.ownerAccountId, connectionId: remote.connectionId, deviceEncrypted: mapping.deviceEncrypted },
        [change.content === null ? { path: change.path, content: null, providerRevision: null } : { path: change.path, content: change.content, providerRevision: change.file?.revision ?? '' }],
        by,
      );
      if (change.file === null) {
        await sql.query('DELETE FROM remote_files WHERE mapping_id = $1 AND path_key = $2', [mapping.id, pathKey]);
        return;
      }
      // The sync compares provider revisions: the file as kgate wrote it, seen in the current generation, is not
      // downloaded again as if another device had changed it.
      const generation = (await readSyncState(sql, mapping.id))?.generation ?? 1;
      const known = (await findRemoteFiles(sql, mapping.id, [pathKey])).get(pathKey);
      await upsertRemoteFiles(sql, mapping.id, [
        {
          pathKey,
          path: known?.path ?? change.path,
          fileIds: [change.file.fileId],
          revision: change.file.revision,
          size: change.file.size,
          modifiedAt: change.file.modifiedAt === null ? null : new Date(change.file.modifiedAt),
          contentHash: change.content === null ? null : contentHash(change.content),
          state: 'synced',
          seenGeneration: generation,
        },
      ]);
    },

    async beginIntent(input) {
      await db.query(
        `INSERT INTO remote_write_intents (scope, idempotency_key, mapping_id, path, action, before_hash, after_hash)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (scope, idempotency_key) DO UPDATE SET mapping_id = EXCLUDED.mapping_id, path = EXCLUDED.path,
           action = EXCLUDED.action, before_hash = EXCLUDED.before_hash, after_hash = EXCLUDED.after_hash, created_at = now()`,
        [input.scope, input.key, input.mappingId, input.path, input.action, input.beforeHash, input.afterHash],
      );
    },

    async findIntent(scope, key) {
      const rows = await db.query<{ mapping_id: string; path: string; action: 'write' | 'delete'; before_hash: string | null; after_hash: string | null }>(
        'SELECT mapping_id, path, action, before_hash, after_hash FROM remote_write_intents WHERE scope = $1 AND idempotency_key = $2',
        [scope, key],
      );
      const row = rows[0];
      return row && { mappingId: row.mapping_id, path: row.path, action: row.action, beforeHash: row.before_hash, afterHash: row.after_hash };
    },

    async endIntent(sql: Sql | undefined, scope, key) {
      await (sql ?? db).query('DELETE FROM remote_write_intents WHERE scope = $1 AND idempotency_key = $2', [scope, key]);
    },
  };
}
