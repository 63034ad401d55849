import { textArrayParam, uuidArrayParam, type Sql } from '../../db/port.ts';
import type { ActionResult } from '../notes/index.ts';
import type { Proposal, ProposalKind, ProposalState, ProposalStep, ProposedAction } from './contract.ts';

/** A proposal row as stored, with what only the server uses (the vault, the contents an undo writes back). */
export interface StoredProposal extends Omit<Proposal, 'reversible'> {
  seq: number;
  vaultId: string;
  beforeContents: Record<string, string> | null;
  expiresAtDate: Date;
  /** Who approved or rejected it (the bounded executor acts for the approving person). */
  decidedBy: string | null;
}

interface ProposalRow {
  id: string;
  seq: string | number;
  mapping_id: string;
  vault_id: string;
  scope_id: string | null;
  kind: ProposalKind;
  state: ProposalState;
  title: string;
  rationale: string;
  actions: ProposedAction[];
  preview: ActionResult[];
  notes_hash: string;
  against_hash: string;
  proposed_by: string;
  proposed_credential_kind: string;
  proposed_client: string | null;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  decision_comment: string | null;
  executed_at: Date | null;
  result: ActionResult[] | null;
  before_contents: Record<string, string> | null;
  failure: Proposal['failure'];
  undone_at: Date | null;
  origin: 'agent' | 'automation';
  automation_source: string | null;
  [key: string]: unknown;
}

const COLUMNS = `id, seq, mapping_id, vault_id, scope_id, kind, state, title, rationale, actions, preview, notes_hash, against_hash,
  proposed_by, proposed_credential_kind, proposed_client, created_at, expires_at, decided_at, decision_comment, executed_at,
  result, before_contents, failure, undone_at, origin, automation_source, decided_by`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toProposal(row: ProposalRow): StoredProposal {
  return {
    id: row.id,
    seq: Number(row.seq),
    mappingId: row.mapping_id,
    vaultId: row.vault_id,
    contextScopeId: row.scope_id,
    kind: row.kind,
    origin: row.origin,
    automationSource: row.automation_source,
    state: row.state,
    title: row.title,
    rationale: row.rationale,
    actions: row.actions,
    preview: row.preview,
    notesHash: row.notes_hash,
    againstHash: row.against_hash,
    proposedBy: { accountId: row.proposed_by, credentialKind: row.proposed_credential_kind, client: row.proposed_client },
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    expiresAtDate: row.expires_at,
    decidedAt: iso(row.decided_at),
    decidedBy: row.decided_by,
    decisionComment: row.decision_comment,
    executedAt: iso(row.executed_at),
    result: row.result,
    beforeContents: row.before_contents,
    failure: row.failure,
    undoneAt: iso(row.undone_at),
  };
}

/** What a new proposal stores. */
export interface NewProposal {
  id: string;
  mappingId: string;
  vaultId: string;
  scopeId: string | null;
  kind: ProposalKind;
  title: string;
  rationale: string;
  actions: ProposedAction[];
  preview: ActionResult[];
  notesHash: string;
  againstHash: string;
  proposedBy: { accountId: string; credentialKind: string; credentialId: string | null; client: string | null };
  at: Date;
  expiresAt: Date;
  origin: 'agent' | 'automation';
  automationSource: string | null;
}

/** Stores a new proposal in state `proposed`. */
export async function insertProposal(sql: Sql, p: NewProposal): Promise<StoredProposal> {
  const rows = await sql.query<ProposalRow>(
    `INSERT INTO action_proposals (id, mapping_id, vault_id, scope_id, kind, state, title, rationale, actions, preview, notes_hash,
        against_hash, proposed_by, proposed_credential_kind, proposed_credential_id, proposed_client, created_at, expires_at, updated_at,
        origin, automation_source)
     VALUES ($1, $2, $3, $4, $5, 'proposed', $6, $7, $8::jsonb, $9::jsonb, $10, $11, $12, $13, $14, $15, $16, $17, $16, $18, $19)
     RETURNING ${COLUMNS}`,
    [
      p.id,
      p.mappingId,
      p.vaultId,
      p.scopeId,
      p.kind,
      p.title,
      p.rationale,
      JSON.stringify(p.actions),
      JSON.stringify(p.preview),
      p.notesHash,
      p.againstHash,
      p.proposedBy.accountId,
      p.proposedBy.credentialKind,
      p.proposedBy.credentialId,
      p.proposedBy.client,
      p.at,
      p.expiresAt,
      p.origin,
      p.automationSource,
    ],
  );
  return toProposal(rows[0]!);
}

/** One proposal by id alone (the automation executor, which starts from an id); with `lock`, its row is locked. */
export async function findProposalById(sql: Sql, id: string, lock = false): Promise<StoredProposal | undefined> {
  const rows = await sql.query<ProposalRow>(`SELECT ${COLUMNS} FROM action_proposals WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] && toProposal(rows[0]);
}

/** Proposals of some mappings, newest first, optionally of some states and one origin; one more than `limit`. */
export async function listProposalsOf(
  sql: Sql,
  mappingIds: readonly string[],
  query: { states?: readonly ProposalState[]; origin?: 'agent' | 'automation'; beforeSeq?: number; limit: number },
): Promise<StoredProposal[]> {
  if (mappingIds.length === 0) return [];
  const params: unknown[] = [uuidArrayParam(mappingIds)];
  let where = 'mapping_id = ANY($1::uuid[])';
  if (query.states && query.states.length > 0) {
    params.push(textArrayParam(query.states));
    where += ` AND state = ANY($${params.length}::text[])`;
  }
  if (query.origin !== undefined) {
    params.push(query.origin);
    where += ` AND origin = $${params.length}`;
  }
  if (query.beforeSeq !== undefined) {
    params.push(query.beforeSeq);
    where += ` AND seq < $${params.length}`;
  }
  params.push(query.limit + 1);
  const rows = await sql.query<ProposalRow>(`SELECT ${COLUMNS} FROM action_proposals WHERE ${where} ORDER BY seq DESC LIMIT $${params.length}`, params);
  return rows.map(toProposal);
}

/**
 * Approved automation proposals not yet past their expiry, oldest decision first: of the given workspaces, or of
 * every workspace when `workspaceIds` is undefined.
 */
export async function listApprovedAutomation(sql: Sql, now: Date, workspaceIds: readonly string[] | undefined, limit: number): Promise<string[]> {
  const params: unknown[] = [now, limit];
  let where = `p.state = 'approved' AND p.origin = 'automation' AND p.expires_at > $1`;
  if (workspaceIds !== undefined) {
    if (workspaceIds.length === 0) return [];
    params.push(uuidArrayParam(workspaceIds));
    where += ` AND m.workspace_id = ANY($${params.length}::uuid[])`;
  }
  const rows = await sql.query<{ id: string }>(
    `SELECT p.id FROM action_proposals p JOIN mappings m ON m.id = p.mapping_id WHERE ${where} ORDER BY p.decided_at, p.seq LIMIT $2`,
    params,
  );
  return rows.map((r) => r.id);
}

/** One proposal of a mapping; with `lock`, its row is locked for the rest of the transaction. */
export async function findProposal(sql: Sql, mappingId: string, id: string, lock = false): Promise<StoredProposal | undefined> {
  const rows = await sql.query<ProposalRow>(
    `SELECT ${COLUMNS} FROM action_proposals WHERE mapping_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`,
    [mappingId, id],
  );
  return rows[0] && toProposal(rows[0]);
}

/** A mapping's proposals, newest first, optionally of some states, after a cursor's seq (exclusive); one more than `limit`. */
export function listProposals(
  sql: Sql,
  mappingId: string,
  query: { states?: readonly ProposalState[]; beforeSeq?: number; limit: number },
): Promise<StoredProposal[]> {
  return listProposalsOf(sql, [mappingId], query);
}

/** How many of a mapping's proposals wait for a person. */
export async function countPending(sql: Sql, mappingId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM action_proposals WHERE mapping_id = $1 AND state = 'proposed'`, [mappingId]);
  return rows[0]?.n ?? 0;
}

/** The fields a step changes besides the state. */
export interface ProposalChange {
  state: ProposalState;
  at: Date;
  decidedBy?: string;
  decisionComment?: string;
  executedBy?: string;
  result?: ActionResult[];
  beforeContents?: Record<string, string>;
  failure?: Proposal['failure'];
  undoneBy?: string;
}

/** Moves a locked proposal to its new state with the step's fields. */
export async function updateProposal(sql: Sql, id: string, change: ProposalChange): Promise<void> {
  await sql.query(
    `UPDATE action_proposals SET state = $2, updated_at = $3,
        decided_by = COALESCE($4, decided_by), decided_at = CASE WHEN $4::uuid IS NULL THEN decided_at ELSE $3 END,
        decision_comment = COALESCE($5, decision_comment),
        executed_by = COALESCE($6, executed_by), executed_at = CASE WHEN $6::uuid IS NULL THEN executed_at ELSE $3 END,
        result = COALESCE($7::jsonb, result), before_contents = COALESCE($8::jsonb, before_contents),
        failure = CASE WHEN $9::jsonb IS NULL THEN failure ELSE $9::jsonb END,
        undone_by = COALESCE($10, undone_by), undone_at = CASE WHEN $10::uuid IS NULL THEN undone_at ELSE $3 END
      WHERE id = $1`,
    [
      id,
      change.state,
      change.at,
      change.decidedBy ?? null,
      change.decisionComment ?? null,
      change.executedBy ?? null,
      change.result ? JSON.stringify(change.result) : null,
      change.beforeContents ? JSON.stringify(change.beforeContents) : null,
      change.failure ? JSON.stringify(change.failure) : null,
      change.undoneBy ?? null,
    ],
  );
}

/** Appends the receipt of one step. */
export async function insertStep(
  sql: Sql,
  step: { proposalId: string; step: ProposalStep['step']; from: ProposalState | null; to: ProposalState; accountId: string | null; credentialKind: string; client: string | null; receipt: Record<string, unknown>; at: Date },
): Promise<void> {
  await sql.query(
    `INSERT INTO action_proposal_steps (proposal_id, step, from_state, to_state, account_id, credential_kind, client, receipt, at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9)`,
    [step.proposalId, step.step, step.from, step.to, step.accountId, step.credentialKind, step.client, JSON.stringify(step.receipt), step.at],
  );
}

/** Every step of a proposal, oldest first (a proposal has a handful). */
export async function listSteps(sql: Sql, proposalId: string): Promise<ProposalStep[]> {
  const rows = await sql.query<{
    step: ProposalStep['step'];
    from_state: ProposalState | null;
    to_state: ProposalState;
    account_id: string | null;
    credential_kind: string;
    client: string | null;
    receipt: Record<string, unknown>;
    at: Date;
  }>(`SELECT step, from_state, to_state, account_id, credential_kind, client, receipt, at FROM action_proposal_steps WHERE proposal_id = $1 ORDER BY seq`, [proposalId]);
  return rows.map((r) => ({
    step: r.step,
    fromState: r.from_state,
    toState: r.to_state,
    by: { accountId: r.account_id, credentialKind: r.credential_kind, client: r.client },
    at: r.at.toISOString(),
    receipt: r.receipt,
  }));
}

/** The current content of notes of a vault by path key (what an execution keeps for its undo). */
export async function currentContents(sql: Sql, vaultId: string, pathKeys: readonly string[]): Promise<Array<{ path: string; content: string; contentHash: string }>> {
  if (pathKeys.length === 0) return [];
  const rows = await sql.query<{ path: string; content: string; content_hash: string }>(
    `SELECT path, content, content_hash FROM notes WHERE vault_id = $1 AND path_key = ANY($2::text[])`,
    [vaultId, textArrayParam(pathKeys)],
  );
  return rows.map((r) => ({ path: r.path, content: r.content, contentHash: r.content_hash }));
}

/** The tag keys of notes of a vault by path key (a tag-sliced scope admits a note by them). */
export async function tagKeysOf(sql: Sql, vaultId: string, pathKeys: readonly string[]): Promise<Map<string, string[]>> {
  if (pathKeys.length === 0) return new Map();
  const rows = await sql.query<{ path_key: string; tag_keys: string[] }>(`SELECT path_key, tag_keys FROM notes WHERE vault_id = $1 AND path_key = ANY($2::text[])`, [vaultId, textArrayParam(pathKeys)]);
  return new Map(rows.map((r) => [r.path_key, r.tag_keys]));
}

/** Moves the proposals of every mapping that waited past their expiry to `expired`; returns their ids and mappings. */
export async function expireDue(sql: Sql, now: Date, limit: number): Promise<Array<{ id: string; mappingId: string; vaultId: string; state: ProposalState }>> {
  const rows = await sql.query<{ id: string; mapping_id: string; vault_id: string; state: ProposalState }>(
    `SELECT id, mapping_id, vault_id, state FROM action_proposals WHERE state IN ('proposed', 'approved') AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, mappingId: r.mapping_id, vaultId: r.vault_id, state: r.state }));
}
