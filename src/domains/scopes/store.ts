import { textArrayParam, type Sql } from '../../db/port.ts';
import type { WorkspaceRole } from '../workspaces/index.ts';
import type { ContextScope, ScopeDefinition } from './contract.ts';

type ScopeRow = {
  id: string;
  mapping_id: string;
  name: string;
  path_prefixes: string[];
  tags: string[];
  minimum_role: WorkspaceRole;
  agents: boolean;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = 'id, mapping_id, name, path_prefixes, tags, minimum_role, agents, created_at, updated_at';

function scopeOf(row: ScopeRow): ContextScope {
  return {
    id: row.id,
    mappingId: row.mapping_id,
    name: row.name,
    pathPrefixes: row.path_prefixes,
    tags: row.tags,
    audience: { minimumRole: row.minimum_role, agents: row.agents },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The scopes of a mapping, by name. */
export async function listScopes(sql: Sql, mappingId: string): Promise<ContextScope[]> {
  const rows = await sql.query<ScopeRow>(`SELECT ${COLUMNS} FROM context_scopes WHERE mapping_id = $1 ORDER BY lower(name), id`, [mappingId]);
  return rows.map(scopeOf);
}

/** One scope of a mapping; undefined when the mapping has no scope of that id. */
export async function findScope(sql: Sql, mappingId: string, scopeId: string): Promise<ContextScope | undefined> {
  const rows = await sql.query<ScopeRow>(`SELECT ${COLUMNS} FROM context_scopes WHERE mapping_id = $1 AND id = $2`, [mappingId, scopeId]);
  return rows[0] ? scopeOf(rows[0]) : undefined;
}

/** True when another scope of the mapping has this name (names compare case-insensitively). */
export async function nameTaken(sql: Sql, mappingId: string, name: string, except?: string): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM context_scopes WHERE mapping_id = $1 AND lower(name) = lower($2) AND id IS DISTINCT FROM $3::uuid', [
    mappingId,
    name,
    except ?? null,
  ]);
  return rows.length > 0;
}

/** How many scopes the mapping has. */
export async function countScopes(sql: Sql, mappingId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM context_scopes WHERE mapping_id = $1', [mappingId]);
  return rows[0]!.n;
}

/** Stores a new scope. */
export async function insertScope(
  sql: Sql,
  input: { id: string; mappingId: string; definition: ScopeDefinition; createdBy: string | null; at: Date },
): Promise<ContextScope> {
  const { definition: d } = input;
  const rows = await sql.query<ScopeRow>(
    `INSERT INTO context_scopes (id, mapping_id, name, path_prefixes, tags, minimum_role, agents, created_by, created_at, updated_at)
     VALUES ($1, $2, $3, $4::text[], $5::text[], $6, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
    [input.id, input.mappingId, d.name, textArrayParam(d.pathPrefixes), textArrayParam(d.tags), d.audience.minimumRole, d.audience.agents, input.createdBy, input.at],
  );
  return scopeOf(rows[0]!);
}

/** Replaces a scope's definition; undefined when the mapping has no scope of that id. */
export async function updateScope(sql: Sql, mappingId: string, scopeId: string, d: ScopeDefinition, at: Date): Promise<ContextScope | undefined> {
  const rows = await sql.query<ScopeRow>(
    `UPDATE context_scopes SET name = $3, path_prefixes = $4::text[], tags = $5::text[], minimum_role = $6, agents = $7, updated_at = $8
      WHERE mapping_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [mappingId, scopeId, d.name, textArrayParam(d.pathPrefixes), textArrayParam(d.tags), d.audience.minimumRole, d.audience.agents, at],
  );
  return rows[0] ? scopeOf(rows[0]) : undefined;
}

/** Removes a scope; false when the mapping has no scope of that id. */
export async function deleteScope(sql: Sql, mappingId: string, scopeId: string): Promise<boolean> {
  const rows = await sql.query('DELETE FROM context_scopes WHERE mapping_id = $1 AND id = $2 RETURNING id', [mappingId, scopeId]);
  return rows.length > 0;
}
