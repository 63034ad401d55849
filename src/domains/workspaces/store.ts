import type { Sql } from '../../db/port.ts';
import type { Workspace, WorkspaceRole } from './contract.ts';

interface WorkspaceRow {
  id: string;
  name: string;
  role: WorkspaceRole;
  created_at: Date;
  [key: string]: unknown;
}

function toWorkspace(row: WorkspaceRow): Workspace {
  return { id: row.id, name: row.name, role: row.role, createdAt: row.created_at };
}

/** Creates a workspace and makes `ownerId` its owner. */
export async function insertWorkspace(sql: Sql, input: { id: string; name: string; ownerId: string }): Promise<void> {
  await sql.query('INSERT INTO workspaces (id, name, created_by) VALUES ($1, $2, $3)', [
    input.id,
    input.name,
    input.ownerId,
  ]);
  await sql.query("INSERT INTO workspace_members (workspace_id, account_id, role) VALUES ($1, $2, 'owner')", [
    input.id,
    input.ownerId,
  ]);
}

/** Adds a member or changes their role. */
export async function upsertMember(sql: Sql, workspaceId: string, accountId: string, role: WorkspaceRole) {
  await sql.query(
    `INSERT INTO workspace_members (workspace_id, account_id, role) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id, account_id) DO UPDATE SET role = EXCLUDED.role`,
    [workspaceId, accountId, role],
  );
}

/** The workspaces an account belongs to, oldest first, with its role in each. */
export async function listWorkspacesOf(sql: Sql, accountId: string): Promise<Workspace[]> {
  const rows = await sql.query<WorkspaceRow>(
    `SELECT w.id, w.name, m.role, w.created_at
       FROM workspace_members m JOIN workspaces w ON w.id = m.workspace_id
      WHERE m.account_id = $1
      ORDER BY w.created_at, w.id`,
    [accountId],
  );
  return rows.map(toWorkspace);
}

/** The role of an account in a workspace, if it is a member. */
export async function findRole(sql: Sql, workspaceId: string, accountId: string): Promise<WorkspaceRole | undefined> {
  const rows = await sql.query<{ role: WorkspaceRole }>(
    'SELECT role FROM workspace_members WHERE workspace_id = $1 AND account_id = $2',
    [workspaceId, accountId],
  );
  return rows[0]?.role;
}
