import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Actor } from '../../kernel/principal.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { roleAllows, type WorkspaceRole } from '../workspaces/index.ts';
import type { Decision } from './contract.ts';
import { readDecisions } from './record-reads.ts';
import { sliceCondition } from './slice.ts';

/** Longest comment a reviewer leaves. */
export const MAX_REVIEW_COMMENT = 2000;

/** A person's verdict on a decision. */
export interface DecisionReviewInput {
  actor: Actor;
  /** The reviewer's role in the mapping's workspace, resolved from records for this request. */
  role: WorkspaceRole;
  slice: ScopeSlice;
  recordId: string;
  verdict: 'confirmed' | 'rejected' | 'superseded';
  /** The decision that supersedes it: required for `superseded`, refused otherwise. */
  supersededBy?: string;
  comment?: string;
}

/** The substance hash of a current decision in the slice; undefined when there is none of that id. */
async function decisionHash(db: Database, slice: ScopeSlice, recordId: string): Promise<string | undefined> {
  const params: unknown[] = [slice.vaultId, recordId];
  const rows = await db.query<{ substance_hash: string }>(
    `SELECT r.substance_hash FROM knowledge_records r WHERE r.vault_id = $1 AND r.record_id = $2 AND r.kind = 'decision' AND ${sliceCondition('r', slice, params)}`,
    params,
  );
  return rows[0]?.substance_hash;
}

/**
 * Records a person's verdict on a decision (spec 4.3 rule 8). Only a signed-in person may: the credential must be a
 * web session, never a token or a connected client, whatever their role; and the role must allow writing the
 * vault. The review holds for the decision as it is now: if the note changes it later, it is a candidate again.
 */
export async function reviewDecision(db: Database, clock: Clock, input: DecisionReviewInput): Promise<Decision> {
  if (input.actor.credentialKind !== 'session') {
    throw new KgateError('forbidden', 'Only a signed-in person confirms, rejects or supersedes a decision, on the workspace page; an agent never can.');
  }
  if (!roleAllows(input.role, 'vault.write')) throw new KgateError('forbidden', 'Your role in this workspace does not allow reviewing decisions.', { permission: 'vault.write' });
  const comment = (input.comment ?? '').trim();
  if (comment.length > MAX_REVIEW_COMMENT) throw new KgateError('invalid_request', `A comment has at most ${MAX_REVIEW_COMMENT} characters.`);
  if ((input.verdict === 'superseded') !== (input.supersededBy !== undefined && input.supersededBy !== '')) {
    throw new KgateError('invalid_request', 'A superseded decision names the decision that supersedes it, and only then.');
  }
  const hash = await decisionHash(db, input.slice, input.recordId);
  if (hash === undefined) throw new KgateError('not_found', 'No such decision in this scope.');
  if (input.supersededBy !== undefined && input.supersededBy !== '') {
    if (input.supersededBy === input.recordId || (await decisionHash(db, input.slice, input.supersededBy)) === undefined) {
      throw new KgateError('invalid_request', 'The superseding decision must be another decision of this scope.');
    }
  }
  await db.query(
    `INSERT INTO decision_reviews (id, vault_id, record_id, record_hash, verdict, superseded_by, reviewed_by, reviewed_at, comment)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [newId(), input.slice.vaultId, input.recordId, hash, input.verdict, input.supersededBy || null, input.actor.accountId, clock.now(), comment],
  );
  const page = await readDecisions(db, input.slice, { recordId: input.recordId, statuses: ['confirmed', 'superseded', 'rejected', 'candidate'], limit: 1 });
  return page.items[0]!;
}

/** One review of a decision's history. */
export interface ReviewHistoryEntry {
  verdict: 'confirmed' | 'rejected' | 'superseded';
  reviewedAt: string;
  reviewedBy: string | null;
  comment: string;
  supersededBy: string | null;
  /** True when made on the decision as it is now; false when the note changed it since (the review no longer holds). */
  holds: boolean;
}

/** Every review of a decision in the slice, newest first (at most 100). */
export async function reviewHistory(db: Database, slice: ScopeSlice, recordId: string): Promise<ReviewHistoryEntry[]> {
  const hash = await decisionHash(db, slice, recordId);
  if (hash === undefined) return [];
  const rows = await db.query<{ verdict: ReviewHistoryEntry['verdict']; reviewed_at: Date; reviewed_by: string | null; comment: string; superseded_by: string | null; record_hash: string }>(
    `SELECT verdict, reviewed_at, reviewed_by, comment, superseded_by, record_hash FROM decision_reviews
      WHERE vault_id = $1 AND record_id = $2 ORDER BY reviewed_at DESC, id DESC LIMIT 100`,
    [slice.vaultId, recordId],
  );
  return rows.map((r) => ({
    verdict: r.verdict,
    reviewedAt: r.reviewed_at.toISOString(),
    reviewedBy: r.reviewed_by,
    comment: r.comment,
    supersededBy: r.superseded_by,
    holds: r.record_hash === hash,
  }));
}
