import type { Sql } from '../../db/port.ts';
import type { WorkspaceRole } from '../workspaces/index.ts';
import type { ApprovalPolicy, Mapping, MappingFlags, ProviderKind } from './contract.ts';

interface MappingRow {
  id: string;
  workspace_id: string;
  owner_account_id: string;
  provider: ProviderKind;
  vault_id: string;
  name: string;
  read_only: boolean;
  pull_only: boolean;
  allow_mcp_note_changes: boolean;
  approval_policy: ApprovalPolicy;
  device_encrypted: boolean;
  remote_root: string | null;
  remote_config: Record<string, unknown> | null;
  provider_connection_id: string | null;
  connection_status: 'active' | 'revoked' | null;
  can_read: boolean | null;
  can_write: boolean | null;
  created_at: Date;
  [key: string]: unknown;
}

// A mapping always comes with its provider connection's status and capabilities: every call resolves both (spec 2.1).
const COLUMNS = `m.id, m.workspace_id, m.owner_account_id, m.provider, m.vault_id, m.name, m.read_only, m.pull_only,
  m.allow_mcp_note_changes, m.approval_policy, m.device_encrypted, m.remote_root, m.remote_config, m.provider_connection_id,
  c.status AS connection_status, c.can_read, c.can_write, m.created_at`;
const FROM = 'mappings m LEFT JOIN provider_connections c ON c.id = m.provider_connection_id';

function toMapping(row: MappingRow): Mapping {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    ownerAccountId: row.owner_account_id,
    provider: row.provider,
    vaultId: row.vault_id,
    name: row.name,
    readOnly: row.read_only,
    pullOnly: row.pull_only,
    allowMcpNoteChanges: row.allow_mcp_note_changes,
    approvalPolicy: row.approval_policy,
    deviceEncrypted: row.device_encrypted,
    remoteRoot: row.remote_root,
    remoteConfig: row.remote_config,
    connection:
      row.provider_connection_id === null
        ? null
        : {
            id: row.provider_connection_id,
            status: row.connection_status ?? 'revoked',
            canRead: row.connection_status === 'active' && row.can_read === true,
            canWrite: row.connection_status === 'active' && row.can_write === true,
          },
    createdAt: row.created_at,
  };
}

/** Inserts a hosted vault and its mapping. */
export async function insertHostedVault(
  sql: Sql,
  input: { vaultId: string; mappingId: string; workspaceId: string; ownerId: string; name: string; allowMcpNoteChanges: boolean },
): Promise<Mapping> {
  await sql.query('INSERT INTO vaults (id, workspace_id, name) VALUES ($1, $2, $3)', [
    input.vaultId,
    input.workspaceId,
    input.name,
  ]);
  const rows = await sql.query<MappingRow>(
    `INSERT INTO mappings (id, workspace_id, owner_account_id, provider, vault_id, name, allow_mcp_note_changes)
     VALUES ($1, $2, $3, 'hosted', $4, $5, $6)
     RETURNING id`,
    [input.mappingId, input.workspaceId, input.ownerId, input.vaultId, input.name, input.allowMcpNoteChanges],
  );
  return (await findMapping(sql, rows[0]!.id))!;
}

/** Inserts a remote mapping and the vault that holds its synchronized copy. */
export async function insertRemoteMapping(
  sql: Sql,
  input: {
    vaultId: string;
    mappingId: string;
    workspaceId: string;
    ownerId: string;
    name: string;
    provider: Exclude<ProviderKind, 'hosted'>;
    connectionId: string;
    remoteRoot: string;
    remoteConfig: Record<string, unknown>;
    flags: { pullOnly: boolean; allowMcpNoteChanges: boolean; deviceEncrypted: boolean };
  },
): Promise<Mapping> {
  await sql.query('INSERT INTO vaults (id, workspace_id, name) VALUES ($1, $2, $3)', [input.vaultId, input.workspaceId, input.name]);
  await sql.query(
    `INSERT INTO mappings (id, workspace_id, owner_account_id, provider, vault_id, name, pull_only, allow_mcp_note_changes,
       device_encrypted, provider_connection_id, remote_root, remote_config)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
    [
      input.mappingId,
      input.workspaceId,
      input.ownerId,
      input.provider,
      input.vaultId,
      input.name,
      input.flags.pullOnly,
      input.flags.allowMcpNoteChanges,
      input.flags.deviceEncrypted,
      input.connectionId,
      input.remoteRoot,
      JSON.stringify(input.remoteConfig),
    ],
  );
  return (await findMapping(sql, input.mappingId))!;
}

/** Finds a mapping by id. */
export async function findMapping(sql: Sql, id: string): Promise<Mapping | undefined> {
  const rows = await sql.query<MappingRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE m.id = $1`, [id]);
  return rows[0] && toMapping(rows[0]);
}

/**
 * A mapping with the caller's role in its workspace (undefined when not a member) and its vault's content version,
 * in one round trip: every vault operation starts here.
 */
export async function findMappingForCaller(
  sql: Sql,
  id: string,
  accountId: string,
): Promise<{ mapping: Mapping; role: WorkspaceRole | undefined; contentVersion: number } | undefined> {
  const rows = await sql.query<MappingRow & { role: WorkspaceRole | null; content_version: number | null }>(
    `SELECT ${COLUMNS}, w.role, v.content_version
       FROM ${FROM}
       LEFT JOIN workspace_members w ON w.workspace_id = m.workspace_id AND w.account_id = $2
       LEFT JOIN vaults v ON v.id = m.vault_id
      WHERE m.id = $1`,
    [id, accountId],
  );
  const row = rows[0];
  return row && { mapping: toMapping(row), role: row.role ?? undefined, contentVersion: row.content_version ?? 0 };
}

/** The mappings an account owns, oldest first. */
export async function listMappingsOwnedBy(sql: Sql, accountId: string): Promise<Mapping[]> {
  const rows = await sql.query<MappingRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE m.owner_account_id = $1 ORDER BY m.created_at, m.id`,
    [accountId],
  );
  return rows.map(toMapping);
}

/** The mappings of every workspace the account belongs to, with its role there; oldest first. */
export async function listMappingsForMember(sql: Sql, accountId: string): Promise<Array<{ mapping: Mapping; role: WorkspaceRole }>> {
  const rows = await sql.query<MappingRow & { role: WorkspaceRole }>(
    `SELECT ${COLUMNS}, w.role
       FROM ${FROM} JOIN workspace_members w ON w.workspace_id = m.workspace_id AND w.account_id = $1
      ORDER BY m.created_at, m.id`,
    [accountId],
  );
  return rows.map((row) => ({ mapping: toMapping(row), role: row.role }));
}

/** How many hosted vaults an account owns (plan limit). */
export async function countHostedVaultsOwnedBy(sql: Sql, accountId: string): Promise<number> {
  const rows = await sql.query<{ count: number }>(
    "SELECT count(*)::int AS count FROM mappings WHERE owner_account_id = $1 AND provider = 'hosted'",
    [accountId],
  );
  return rows[0]?.count ?? 0;
}

/** Changes the given flags of a mapping; returns false when it does not exist. */
export async function updateMappingFlags(sql: Sql, id: string, flags: MappingFlags): Promise<boolean> {
  const rows = await sql.query(
    `UPDATE mappings SET
       read_only = COALESCE($2, read_only),
       pull_only = COALESCE($3, pull_only),
       allow_mcp_note_changes = COALESCE($4, allow_mcp_note_changes),
       device_encrypted = COALESCE($5, device_encrypted),
       approval_policy = COALESCE($6, approval_policy),
       updated_at = now()
     WHERE id = $1 RETURNING 1`,
    [id, flags.readOnly ?? null, flags.pullOnly ?? null, flags.allowMcpNoteChanges ?? null, flags.deviceEncrypted ?? null, flags.approvalPolicy ?? null],
  );
  return rows.length === 1;
}
