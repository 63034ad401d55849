import { uuidArrayParam, type Sql } from '../../../db/port.ts';
import { MAX_LISTED_CANDIDATES, type DecidedMemoryCandidate, type Listing, type MemoryCandidate, type MemoryDecision } from './contract.ts';

// SQL of people's decisions about shared memory candidates.

interface CandidateRow {
  id: string;
  vault_id: string;
  scope_id: string;
  scope_name: string;
  product_slug: string;
  product_name: string;
  title: string;
  body: string;
  evidence: unknown;
  status: MemoryCandidate['status'];
  created_at: Date;
  decided_by: string | null;
  decided_at: Date | null;
  [key: string]: unknown;
}

const CANDIDATE_COLUMNS = `c.id, c.vault_id, c.scope_id, s.name AS scope_name, p.slug AS product_slug, p.name AS product_name,
  c.title, c.body, c.evidence, c.status, c.created_at, c.decided_by, c.decided_at`;
const CANDIDATE_FROM = `runtime_memory_candidates c
  JOIN context_scopes s ON s.id = c.scope_id
  JOIN runtime_installations i ON i.id = c.installation_id
  JOIN runtime_products p ON p.id = i.product_id`;

function toCandidate(row: CandidateRow): MemoryCandidate {
  return {
    id: row.id,
    vaultId: row.vault_id,
    scope: { id: row.scope_id, name: row.scope_name },
    product: { slug: row.product_slug, name: row.product_name },
    title: row.title,
    body: row.body,
    evidence: row.evidence,
    status: row.status,
    createdAt: row.created_at,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at,
  };
}

/** The undecided candidates of these vaults, newest first, at most MAX_LISTED_CANDIDATES. */
export async function listUndecided(sql: Sql, vaultIds: readonly string[]): Promise<Listing<MemoryCandidate>> {
  if (vaultIds.length === 0) return { items: [], truncated: false };
  const rows = await sql.query<CandidateRow>(
    `SELECT ${CANDIDATE_COLUMNS} FROM ${CANDIDATE_FROM}
      WHERE c.vault_id = ANY($1::uuid[]) AND c.status = 'candidate' ORDER BY c.created_at DESC, c.id LIMIT $2`,
    [uuidArrayParam(vaultIds), MAX_LISTED_CANDIDATES + 1],
  );
  return { items: rows.slice(0, MAX_LISTED_CANDIDATES).map(toCandidate), truncated: rows.length > MAX_LISTED_CANDIDATES };
}

/**
 * The accepted and rejected candidates of these vaults, the newest decision first, at most MAX_LISTED_CANDIDATES, each
 * with its decider's email (the accounts row, joined as the other listings of this domain join it).
 */
export async function listDecided(sql: Sql, vaultIds: readonly string[]): Promise<Listing<DecidedMemoryCandidate>> {
  if (vaultIds.length === 0) return { items: [], truncated: false };
  const rows = await sql.query<CandidateRow & { decider_email: string | null }>(
    `SELECT ${CANDIDATE_COLUMNS}, d.email AS decider_email FROM ${CANDIDATE_FROM}
      LEFT JOIN accounts d ON d.id = c.decided_by
      WHERE c.vault_id = ANY($1::uuid[]) AND c.status <> 'candidate' ORDER BY c.decided_at DESC NULLS LAST, c.id DESC LIMIT $2`,
    [uuidArrayParam(vaultIds), MAX_LISTED_CANDIDATES + 1],
  );
  const items = rows.slice(0, MAX_LISTED_CANDIDATES).map((row): DecidedMemoryCandidate => ({
    ...toCandidate(row),
    status: row.status as MemoryDecision,
    decider: row.decided_by !== null && row.decider_email !== null ? { accountId: row.decided_by, email: row.decider_email } : null,
  }));
  return { items, truncated: rows.length > MAX_LISTED_CANDIDATES };
}

/** A candidate's status and the workspace of its vault, its row locked against a concurrent decision. */
export async function lockCandidate(sql: Sql, id: string): Promise<{ status: MemoryCandidate['status']; workspaceId: string } | undefined> {
  const rows = await sql.query<{ status: MemoryCandidate['status']; workspace_id: string }>(
    `SELECT c.status, v.workspace_id FROM runtime_memory_candidates c JOIN vaults v ON v.id = c.vault_id WHERE c.id = $1 FOR UPDATE OF c`,
    [id],
  );
  return rows[0] && { status: rows[0].status, workspaceId: rows[0].workspace_id };
}

/** Records a person's decision of an undecided candidate, and answers the candidate as decided. */
export async function decide(sql: Sql, id: string, decision: MemoryDecision, accountId: string, at: Date): Promise<MemoryCandidate> {
  await sql.query(
    `UPDATE runtime_memory_candidates SET status = $2, decided_by = $3, decided_at = $4 WHERE id = $1 AND status = 'candidate'`,
    [id, decision, accountId, at],
  );
  const rows = await sql.query<CandidateRow>(`SELECT ${CANDIDATE_COLUMNS} FROM ${CANDIDATE_FROM} WHERE c.id = $1`, [id]);
  return toCandidate(rows[0]!);
}
