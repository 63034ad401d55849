import { z } from 'zod';

/** Workspace roles, most to least powerful. */
export const WorkspaceRoleSchema = z.enum(['owner', 'admin', 'editor', 'viewer']);
/** See WorkspaceRoleSchema. */
export type WorkspaceRole = z.infer<typeof WorkspaceRoleSchema>;

/** A workspace and the caller's role in it. */
export const WorkspaceSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  role: WorkspaceRoleSchema,
  createdAt: z.date(),
});
/** See WorkspaceSchema. */
export type Workspace = z.infer<typeof WorkspaceSchema>;

/** What a role may do inside its workspace. */
export type WorkspacePermission =
  | 'vault.read'
  | 'vault.write'
  | 'vault.manage'
  | 'members.manage'
  | 'automation.manage';
