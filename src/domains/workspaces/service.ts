import type { Database, Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Workspace, WorkspacePermission, WorkspaceRole } from './contract.ts';
import { roleAllows } from './policy.ts';
import * as store from './store.ts';

/** Workspace use cases. */
export interface WorkspacesService {
  /** The account's first owned workspace, or a new one named `name` when it owns none. */
  ensureOwnedWorkspace(accountId: string, name: string, sql?: Sql): Promise<{ workspace: Workspace; created: boolean }>;
  listWorkspaces(accountId: string): Promise<Workspace[]>;
  setMemberRole(workspaceId: string, accountId: string, role: WorkspaceRole): Promise<void>;
  /**
   * Resolves the account's role and checks `permission`. A workspace the account does not belong to answers
   * `not_found`, exactly like one that does not exist (unknown and forbidden look the same).
   */
  authorize(accountId: string, workspaceId: string, permission: WorkspacePermission, sql?: Sql): Promise<WorkspaceRole>;
}

/** Whom the workspaces service tells of its changes. */
export interface WorkspacesServiceOptions {
  /** Called once a member's role changed (committed): caches of authority forget the workspace. */
  onRolesChanged?: (workspaceId: string) => void;
}

/** Builds the workspaces service. */
export function createWorkspacesService(db: Database, options: WorkspacesServiceOptions = {}): WorkspacesService {
  return {
    async ensureOwnedWorkspace(accountId, name, sql = db) {
      const owned = (await store.listWorkspacesOf(sql, accountId)).find((w) => w.role === 'owner');
      if (owned) return { workspace: owned, created: false };
      const id = newId();
      await store.insertWorkspace(sql, { id, name, ownerId: accountId });
      return { workspace: { id, name, role: 'owner', createdAt: new Date() }, created: true };
    },
    listWorkspaces: (accountId) => store.listWorkspacesOf(db, accountId),
    async setMemberRole(workspaceId, accountId, role) {
      await store.upsertMember(db, workspaceId, accountId, role);
      options.onRolesChanged?.(workspaceId);
    },
    async authorize(accountId, workspaceId, permission, sql = db) {
      const role = await store.findRole(sql, workspaceId, accountId);
      if (role === undefined) throw new KgateError('not_found', 'The workspace does not exist.');
      if (!roleAllows(role, permission)) {
        throw new KgateError('forbidden', `Your role in this workspace does not allow ${permission}.`, { permission });
      }
      return role;
    },
  };
}
