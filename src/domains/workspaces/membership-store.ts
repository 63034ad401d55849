import type { Sql } from '../../db/port.ts';
import type { Plan } from '../../kernel/principal.ts';
import type { WorkspaceRole } from './contract.ts';

/** A member as a workspace's member list shows them. */
export interface MemberRow {
  account_id: string;
  email: string;
  role: WorkspaceRole;
  created_at: Date;
  [key: string]: unknown;
}

/** The members of a workspace, owners first, then by when they joined. */
export async function listMembers(sql: Sql, workspaceId: string): Promise<MemberRow[]> {
  return sql.query<MemberRow>(
    `SELECT m.account_id, a.email, m.role, m.created_at
       FROM workspace_members m JOIN accounts a ON a.id = m.account_id
      WHERE m.workspace_id = $1
      ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 WHEN 'editor' THEN 2 ELSE 3 END, m.created_at, a.email`,
    [workspaceId],
  );
}

/** Locks the workspace's member rows (and the workspace) so that role changes and joins serialize per workspace. */
export async function lockWorkspace(sql: Sql, workspaceId: string): Promise<{ name: string; plan: Plan } | undefined> {
  const rows = await sql.query<{ name: string; plan: Plan }>(
    `SELECT w.name, a.plan FROM workspaces w JOIN accounts a ON a.id = w.created_by WHERE w.id = $1 FOR UPDATE OF w`,
    [workspaceId],
  );
  return rows[0];
}

/** Members of the workspace with each role, counted. */
export async function countMembers(sql: Sql, workspaceId: string): Promise<{ members: number; owners: number }> {
  const rows = await sql.query<{ members: number; owners: number }>(
    `SELECT count(*)::int AS members, count(*) FILTER (WHERE role = 'owner')::int AS owners FROM workspace_members WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows[0] ?? { members: 0, owners: 0 };
}

/** Removes a member; true when there was one. */
export async function deleteMember(sql: Sql, workspaceId: string, accountId: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM workspace_members WHERE workspace_id = $1 AND account_id = $2 RETURNING account_id', [workspaceId, accountId]);
  return rows.length > 0;
}

/** An invitation as stored (never its secret, only the secret's hash). */
export interface InvitationRow {
  id: string;
  workspace_id: string;
  role: WorkspaceRole;
  created_by: string;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
  [key: string]: unknown;
}

const INVITATION_COLUMNS = 'id, workspace_id, role, created_by, created_at, expires_at, accepted_at, revoked_at';

/** Stores a new invitation. */
export async function insertInvitation(
  sql: Sql,
  input: { id: string; workspaceId: string; role: WorkspaceRole; tokenHash: string; createdBy: string; expiresAt: Date },
): Promise<void> {
  await sql.query(
    'INSERT INTO workspace_invitations (id, workspace_id, role, token_hash, created_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [input.id, input.workspaceId, input.role, input.tokenHash, input.createdBy, input.expiresAt],
  );
}

/** The invitations of a workspace that can still be accepted at `now`, newest first. */
export async function listOpenInvitations(sql: Sql, workspaceId: string, now: Date): Promise<InvitationRow[]> {
  return sql.query<InvitationRow>(
    `SELECT ${INVITATION_COLUMNS} FROM workspace_invitations
      WHERE workspace_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2
      ORDER BY created_at DESC, id`,
    [workspaceId, now],
  );
}

/** The invitation with this secret's hash, with its workspace's name; `forUpdate` locks it (accepting). */
export async function findInvitationByHash(sql: Sql, tokenHash: string, forUpdate = false): Promise<(InvitationRow & { workspace_name: string }) | undefined> {
  const rows = await sql.query<InvitationRow & { workspace_name: string }>(
    `SELECT i.id, i.workspace_id, i.role, i.created_by, i.created_at, i.expires_at, i.accepted_at, i.revoked_at, w.name AS workspace_name
       FROM workspace_invitations i JOIN workspaces w ON w.id = i.workspace_id
      WHERE i.token_hash = $1${forUpdate ? ' FOR UPDATE OF i' : ''}`,
    [tokenHash],
  );
  return rows[0];
}

/** Marks an invitation used by `accountId`. */
export async function markAccepted(sql: Sql, invitationId: string, accountId: string, at: Date): Promise<void> {
  await sql.query('UPDATE workspace_invitations SET accepted_at = $2, accepted_by = $3 WHERE id = $1', [invitationId, at, accountId]);
}

/** Revokes an open invitation of a workspace; true when there was one. */
export async function revokeInvitation(sql: Sql, workspaceId: string, invitationId: string, at: Date): Promise<boolean> {
  const rows = await sql.query(
    'UPDATE workspace_invitations SET revoked_at = $3 WHERE workspace_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL RETURNING id',
    [workspaceId, invitationId, at],
  );
  return rows.length > 0;
}
