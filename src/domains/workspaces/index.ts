/** Workspaces: tenancy between accounts and vaults, with roles and their permissions. */
export { WorkspaceRoleSchema, WorkspaceSchema } from './contract.ts';
export type { Workspace, WorkspacePermission, WorkspaceRole } from './contract.ts';
export { roleAllows } from './policy.ts';
export { createWorkspacesService } from './service.ts';
export type { WorkspacesService } from './service.ts';
export { INVITABLE_ROLES, INVITATION_TTL_MS, createMembershipService } from './membership.ts';
export type { Invitation, InvitationPreview, Member, MembershipService } from './membership.ts';
