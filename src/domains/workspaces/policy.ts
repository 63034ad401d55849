import type { WorkspacePermission, WorkspaceRole } from './contract.ts';

// Spec 5 rule 7: automation management follows workspace roles; a token never adds a permission a role lacks.
const GRANTS: Readonly<Record<WorkspaceRole, ReadonlySet<WorkspacePermission>>> = {
  owner: new Set(['vault.read', 'vault.write', 'vault.manage', 'members.manage', 'automation.manage']),
  admin: new Set(['vault.read', 'vault.write', 'vault.manage', 'members.manage', 'automation.manage']),
  editor: new Set(['vault.read', 'vault.write']),
  viewer: new Set(['vault.read']),
};

/** True when `role` grants `permission`. Pure: the single place where role semantics live. */
export function roleAllows(role: WorkspaceRole | undefined, permission: WorkspacePermission): boolean {
  return role !== undefined && GRANTS[role].has(permission);
}
