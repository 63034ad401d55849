import { randomBytes } from 'node:crypto';
import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { entitlementsOf } from '../accounts/index.ts';
import { WorkspaceRoleSchema, type WorkspacePermission, type WorkspaceRole } from './contract.ts';
import * as store from './membership-store.ts';
import type { WorkspacesService } from './service.ts';
import { findRole, upsertMember } from './store.ts';

/** How long an invitation link can be used. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60_000;
/** Roles an invitation can give: ownership is never handed out by a link. */
export const INVITABLE_ROLES: readonly WorkspaceRole[] = ['admin', 'editor', 'viewer'];

/** A member of a workspace. */
export interface Member {
  accountId: string;
  email: string;
  role: WorkspaceRole;
  joinedAt: Date;
}

/** An open invitation (its secret is never kept). */
export interface Invitation {
  id: string;
  role: WorkspaceRole;
  createdAt: Date;
  expiresAt: Date;
}

/** What an invitation's link shows before it is accepted. */
export interface InvitationPreview {
  workspaceId: string;
  workspaceName: string;
  role: WorkspaceRole;
  expiresAt: Date;
}

/** Team membership: members, roles, and single-use invitation links (docs/workspaces.md). */
export interface MembershipService {
  /** The members of a workspace the account belongs to (any member may see who else is in it). */
  listMembers(accountId: string, workspaceId: string): Promise<Member[]>;
  /** Open invitations of a workspace; needs `members.manage`. */
  listInvitations(accountId: string, workspaceId: string): Promise<Invitation[]>;
  /** A new invitation and its secret, shown once; needs `members.manage`, and the plan must allow one more member. */
  invite(accountId: string, workspaceId: string, role: WorkspaceRole): Promise<{ invitation: Invitation; token: string }>;
  /** Revokes an open invitation; needs `members.manage`. */
  revokeInvitation(accountId: string, workspaceId: string, invitationId: string): Promise<void>;
  /** What a link invites to; `not_found` for an unknown, used, revoked or expired link alike. */
  previewInvitation(token: string): Promise<InvitationPreview>;
  /** Joins the workspace with the invited role, once: the link is used up in the same transaction. */
  acceptInvitation(accountId: string, token: string): Promise<InvitationPreview>;
  /**
   * Sets a member's role; needs `members.manage`, and only an owner makes or unmakes an owner. The last owner cannot
   * be demoted.
   */
  setRole(accountId: string, workspaceId: string, memberId: string, role: WorkspaceRole): Promise<void>;
  /** Removes a member (or the account itself: leaving); the last owner cannot leave or be removed. */
  removeMember(accountId: string, workspaceId: string, memberId: string): Promise<void>;
}

const goneInvitation = () => new KgateError('not_found', 'This invitation does not exist, was used or revoked, or has expired.');

/**
 * Builds the membership service on the workspaces service, whose `authorize` decides every role check;
 * `onRolesChanged` tells caches of authority that a workspace's roles changed.
 */
export function createMembershipService(
  db: Database,
  clock: Clock,
  workspaces: Pick<WorkspacesService, 'authorize'>,
  onRolesChanged: (workspaceId: string) => void = () => undefined,
): MembershipService {
  const authorize = (accountId: string, workspaceId: string, permission: WorkspacePermission) => workspaces.authorize(accountId, workspaceId, permission);

  async function usableInvitation(token: string, forUpdate: boolean, sql: Sql = db) {
    if (typeof token !== 'string' || token.length < 20 || token.length > 100) throw goneInvitation();
    const found = await store.findInvitationByHash(sql, sha256Hex(token), forUpdate);
    if (!found || found.accepted_at || found.revoked_at || found.expires_at <= clock.now()) throw goneInvitation();
    return found;
  }

  return {
    async listMembers(accountId, workspaceId) {
      await authorize(accountId, workspaceId, 'vault.read');
      return (await store.listMembers(db, workspaceId)).map((m) => ({ accountId: m.account_id, email: m.email, role: m.role, joinedAt: m.created_at }));
    },

    async listInvitations(accountId, workspaceId) {
      await authorize(accountId, workspaceId, 'members.manage');
      return (await store.listOpenInvitations(db, workspaceId, clock.now())).map((i) => ({ id: i.id, role: i.role, createdAt: i.created_at, expiresAt: i.expires_at }));
    },

    async invite(accountId, workspaceId, role) {
      await authorize(accountId, workspaceId, 'members.manage');
      if (!INVITABLE_ROLES.includes(role)) throw new KgateError('invalid_request', 'An invitation makes an admin, an editor or a viewer.', { field: 'role' });
      return db.transaction(async (tx) => {
        const workspace = await store.lockWorkspace(tx, workspaceId);
        if (!workspace) throw new KgateError('not_found', 'The workspace does not exist.');
        const limit = entitlementsOf(workspace.plan).maxWorkspaceMembers;
        const { members } = await store.countMembers(tx, workspaceId);
        if (members >= limit) throw new KgateError('plan_required', `The workspace's plan includes at most ${limit} members.`, { limit });
        const token = randomBytes(32).toString('base64url');
        const now = clock.now();
        const invitation = { id: newId(), role, createdAt: now, expiresAt: new Date(now.getTime() + INVITATION_TTL_MS) };
        await store.insertInvitation(tx, { id: invitation.id, workspaceId, role, tokenHash: sha256Hex(token), createdBy: accountId, expiresAt: invitation.expiresAt });
        return { invitation, token };
      });
    },

    async revokeInvitation(accountId, workspaceId, invitationId) {
      await authorize(accountId, workspaceId, 'members.manage');
      if (!(await store.revokeInvitation(db, workspaceId, invitationId, clock.now()))) throw goneInvitation();
    },

    async previewInvitation(token) {
      const found = await usableInvitation(token, false);
      return { workspaceId: found.workspace_id, workspaceName: found.workspace_name, role: found.role, expiresAt: found.expires_at };
    },

    async acceptInvitation(accountId, token) {
      const preview = await db.transaction(async (tx) => {
        const found = await usableInvitation(token, true, tx);
        const workspace = await store.lockWorkspace(tx, found.workspace_id);
        if (!workspace) throw goneInvitation();
        if ((await findRole(tx, found.workspace_id, accountId)) !== undefined) {
          throw new KgateError('conflict', 'You are a member of this workspace already; the invitation stays unused.');
        }
        const limit = entitlementsOf(workspace.plan).maxWorkspaceMembers;
        if ((await store.countMembers(tx, found.workspace_id)).members >= limit) {
          throw new KgateError('plan_required', `The workspace's plan includes at most ${limit} members.`, { limit });
        }
        await upsertMember(tx, found.workspace_id, accountId, found.role);
        await store.markAccepted(tx, found.id, accountId, clock.now());
        return { workspaceId: found.workspace_id, workspaceName: found.workspace_name, role: found.role, expiresAt: found.expires_at };
      });
      onRolesChanged(preview.workspaceId);
      return preview;
    },

    async setRole(accountId, workspaceId, memberId, role) {
      const actorRole = await authorize(accountId, workspaceId, 'members.manage');
      if (!WorkspaceRoleSchema.safeParse(role).success) throw new KgateError('invalid_request', 'A role is owner, admin, editor or viewer.', { field: 'role' });
      await db.transaction(async (tx) => {
        if (!(await store.lockWorkspace(tx, workspaceId))) throw new KgateError('not_found', 'The workspace does not exist.');
        const current = await findRole(tx, workspaceId, memberId);
        if (current === undefined) throw new KgateError('not_found', 'No such member.');
        if ((current === 'owner' || role === 'owner') && actorRole !== 'owner') {
          throw new KgateError('forbidden', 'Only an owner makes or unmakes an owner.', { permission: 'members.manage' });
        }
        if (current === 'owner' && role !== 'owner' && (await store.countMembers(tx, workspaceId)).owners <= 1) {
          throw new KgateError('conflict', 'The workspace needs an owner: make someone else owner first.');
        }
        await upsertMember(tx, workspaceId, memberId, role);
      });
      onRolesChanged(workspaceId);
    },

    async removeMember(accountId, workspaceId, memberId) {
      const actorRole = await authorize(accountId, workspaceId, memberId === accountId ? 'vault.read' : 'members.manage');
      await db.transaction(async (tx) => {
        if (!(await store.lockWorkspace(tx, workspaceId))) throw new KgateError('not_found', 'The workspace does not exist.');
        const current = await findRole(tx, workspaceId, memberId);
        if (current === undefined) throw new KgateError('not_found', 'No such member.');
        if (current === 'owner' && memberId !== accountId && actorRole !== 'owner') {
          throw new KgateError('forbidden', 'Only an owner removes an owner.', { permission: 'members.manage' });
        }
        if (current === 'owner' && (await store.countMembers(tx, workspaceId)).owners <= 1) {
          throw new KgateError('conflict', 'The last owner cannot leave: make someone else owner first.');
        }
        await store.deleteMember(tx, workspaceId, memberId);
      });
      onRolesChanged(workspaceId);
    },
  };
}
