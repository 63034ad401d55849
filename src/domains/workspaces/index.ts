/** Workspaces: tenancy between accounts and vaults, with roles and their permissions. */
export { WorkspaceRoleSchema, WorkspaceSchema } from './contract.ts';
export type { Workspace, WorkspacePermission, WorkspaceRole } from './contract.ts';
export { roleAllows } from './policy.ts';
export { createWorkspacesService } from './service.ts';
export type { WorkspacesService } from './service.ts';
