import type { Database } from '../../db/port.ts';
import { hasControlCharacters } from '../../kernel/control-characters.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { Mapping, VaultsService } from '../vaults/index.ts';
import type { ConnectionsService } from './connections.ts';
import { PROVIDER_BUDGETS, type AdapterRegistry } from './contract.ts';
import { providerFailure } from './errors.ts';
import type { RemoteKind, RemoteRoot } from './port.ts';
import { ensureSyncState, markDue } from './sync-store.ts';

/** What the owner types to map a remote folder: a folder path (Drive, Dropbox) or repository, branch and folder (GitHub). */
export interface RemoteRootInput {
  /** Drive and Dropbox: the folder path ('' or '/' for the top); GitHub: the folder inside the repository. */
  folder: string;
  /** GitHub only: `owner/repo`. */
  repository?: string | undefined;
  /** GitHub only: the branch (empty: the repository's default branch). */
  branch?: string | undefined;
}

/** Input of `createRemoteMapping`. */
export interface CreateRemoteMappingRequest {
  workspaceId: string;
  connectionId: string;
  name: string;
  root: RemoteRootInput;
  pullOnly?: boolean;
  allowMcpNoteChanges?: boolean;
  deviceEncrypted?: boolean;
}

/** Creating remote mappings: an explicit root under one of the account's own connections. */
export interface RemoteMappingsService {
  /**
   * Maps an explicit folder or repository, branch and folder of the account's own active connection into a
   * workspace the account manages. The root is checked at the provider (it must exist), the mapping is created with
   * the vault for its synchronized copy, and its first sync is made due.
   */
  create(accountId: string, request: CreateRemoteMappingRequest): Promise<Mapping>;
}

const MAX_ROOT_PART = 512;
// Letters, digits and the punctuation GitHub allows in owner and repository names.
const GITHUB_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** The root the owner typed, checked for shape (the provider checks that it exists). */
export function rootFromInput(kind: RemoteKind, input: RemoteRootInput): RemoteRoot {
  const folder = input.folder.trim().replace(/^\/+|\/+$/g, '');
  if (folder.length > MAX_ROOT_PART || hasControlCharacters(folder) || folder.split('/').some((part) => part === '..' || part === '.')) {
    throw new KgateError('invalid_request', 'The folder is a path of folder names, without . or .. parts.', { field: 'folder' });
  }
  switch (kind) {
    case 'drive':
      return { kind, folderId: '', path: folder };
    case 'dropbox':
      return { kind, path: folder === '' ? '' : `/${folder}` };
    case 'github': {
      const [owner = '', repo = '', ...rest] = (input.repository ?? '').trim().split('/');
      if (!GITHUB_NAME.test(owner) || !GITHUB_NAME.test(repo) || rest.length > 0) {
        throw new KgateError('invalid_request', 'The repository is owner/name.', { field: 'repository' });
      }
      const branch = (input.branch ?? '').trim();
      if (branch.length > 255 || hasControlCharacters(branch) || /[\s~^:?*[\\]/.test(branch)) throw new KgateError('invalid_request', 'The branch name is not valid.', { field: 'branch' });
      return { kind, owner, repo, branch, folder };
    }
  }
}

/** How a root reads for its owner (the mapping's `remoteRoot`). */
export function describeRoot(root: RemoteRoot): string {
  switch (root.kind) {
    case 'drive':
      return `My Drive/${root.path}`.replace(/\/$/, '');
    case 'dropbox':
      return root.path === '' ? '/' : root.path;
    case 'github':
      return `${root.owner}/${root.repo}@${root.branch}${root.folder === '' ? '' : `:${root.folder}`}`;
  }
}

/** Builds the remote mappings service. */
export function createRemoteMappingsService(deps: {
  db: Database;
  vaults: VaultsService;
  connections: ConnectionsService;
  adapters: AdapterRegistry;
}): RemoteMappingsService {
  return {
    async create(accountId, request) {
      // Only the account's own connection: a connection of anyone else is as unknown as a guessed id.
      const connection = await deps.connections.get(accountId, request.connectionId);
      if (connection.status !== 'active') throw new KgateError('provider_disconnected', 'This connection is disconnected; connect the provider again first.');
      const typed = rootFromInput(connection.provider, request.root);
      let root: RemoteRoot;
      try {
        const call = await deps.connections.callFor({ connectionId: connection.id, provider: connection.provider }, PROVIDER_BUDGETS.resolveRoot);
        root = await deps.adapters[connection.provider].resolveRoot(call, typed);
      } catch (error) {
        throw providerFailure(error);
      }
      const mapping = await deps.db.transaction(async (tx) => {
        const created = await deps.vaults.createRemoteMapping(
          {
            accountId,
            workspaceId: request.workspaceId,
            name: request.name,
            provider: connection.provider,
            connectionId: connection.id,
            remoteRoot: describeRoot(root),
            remoteConfig: { ...root },
            pullOnly: request.pullOnly ?? false,
            allowMcpNoteChanges: request.allowMcpNoteChanges ?? false,
            deviceEncrypted: request.deviceEncrypted ?? false,
          },
          tx,
        );
        await ensureSyncState(tx, created.id);
        await markDue(tx, created.id, new Date());
        return created;
      });
      return mapping;
    },
  };
}
