import type { Database } from '../../db/port.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { Commitment, Decision, Question } from './contract.ts';
import { decodeCursor, limitOf, pageOf, type KnowledgePage, type PageRequest } from './page.ts';
import type { CommitmentRecord, DecisionRecord, KnowledgeRecord, QuestionRecord } from './records.ts';
import { sliceCondition } from './slice.ts';

/** A current record as read, with when this replica came to know its version. */
interface RecordRow<R extends KnowledgeRecord> {
  [column: string]: unknown;
  record: R;
  known_from: Date | null;
  sort: Array<string | number>;
}

/**
 * Reads current records of one kind in a slice, a page at a time, in the order of `order` (SQL expressions over
 * `r`, the record row; compared bytewise), with extra conditions and columns. Each row carries the known time of
 * its current version (a record's row is its current version).
 */
async function readRecords<R extends KnowledgeRecord>(
  db: Database,
  slice: ScopeSlice,
  kind: R['kind'],
  request: PageRequest,
  options: { order: readonly string[]; where?: (params: unknown[]) => string[]; columns?: string; join?: string },
): Promise<{ rows: Array<RecordRow<R>>; limit: number }> {
  const limit = limitOf(request);
  const params: unknown[] = [slice.vaultId, kind];
  const where = ['r.vault_id = $1', 'r.kind = $2', sliceCondition('r', slice, params), ...(options.where?.(params) ?? [])];
  const order = options.order.map((expression) => `(${expression}) COLLATE "C"`);
  if (request.cursor !== undefined) {
    const key = decodeCursor(request.cursor, order.length);
    const placeholders = key.map((value) => {
      params.push(String(value));
      return `$${params.length}::text`;
    });
    where.push(`(${order.join(', ')}) > (${placeholders.join(', ')})`);
  }
  params.push(limit + 1);
  const rows = await db.query<RecordRow<R>>(
    `SELECT r.record, r.known_from, ARRAY[${order.join(', ')}] AS sort ${options.columns ?? ''}
       FROM knowledge_records r
       ${options.join ?? ''}
      WHERE ${where.join(' AND ')}
      ORDER BY ${order.join(', ')}
      LIMIT $${params.length}`,
    params,
  );
  return { rows, limit };
}

const iso = (at: Date | null): string | null => (at ? at.toISOString() : null);
const byPath = ['r.path', 'r.record_id'];

/** Which decisions a read returns, by status; default: confirmed, superseded and candidates. */
export type DecisionStatusFilter = ReadonlyArray<Decision['status']>;

/** Decisions in a slice, with the latest review of each that still holds (docs/knowledge.md, "Decisions"). */
export async function readDecisions(
  db: Database,
  slice: ScopeSlice,
  request: PageRequest & { statuses?: DecisionStatusFilter; recordId?: string },
): Promise<KnowledgePage<Decision>> {
  const statuses = request.statuses ?? ['confirmed', 'superseded', 'candidate'];
  const { rows, limit } = await readRecords<DecisionRecord>(db, slice, 'decision', request, {
    order: byPath,
    // A review holds for the decision as it was reviewed: one edited since is a candidate again.
    join: `LEFT JOIN LATERAL (SELECT d.verdict, d.reviewed_at, d.comment, d.superseded_by FROM decision_reviews d
                               WHERE d.vault_id = r.vault_id AND d.record_id = r.record_id AND d.record_hash = r.substance_hash
                               ORDER BY d.reviewed_at DESC, d.id DESC LIMIT 1) rv ON true`,
    columns: ', rv.verdict, rv.reviewed_at, rv.comment, rv.superseded_by',
    where: (params) => {
      params.push(statuses);
      const conditions = [`COALESCE(rv.verdict, 'candidate') = ANY($${params.length}::text[])`];
      if (request.recordId !== undefined) {
        params.push(request.recordId);
        conditions.push(`r.record_id = $${params.length}`);
      }
      return conditions;
    },
  });
  return pageOf(
    rows,
    limit,
    (row): Decision => {
      const r = row.record;
      const verdict = row.verdict as 'confirmed' | 'rejected' | 'superseded' | null;
      const reviewedAt = row.reviewed_at as Date | null;
      return {
        id: r.id,
        title: r.title,
        status: verdict ?? 'candidate',
        candidate: verdict === null,
        statusInNote: r.statusInNote,
        subject: r.subject,
        decided: r.decided,
        validFrom: r.validFrom ?? r.decided,
        validUntil: r.validUntil ?? (verdict === 'superseded' && reviewedAt ? reviewedAt.toISOString() : null),
        supersedes: r.supersedes,
        review:
          verdict && reviewedAt
            ? { verdict, reviewedAt: reviewedAt.toISOString(), comment: row.comment as string, supersededBy: (row.superseded_by as string | null) ?? null }
            : null,
        knownFrom: iso(row.known_from),
        evidence: r.evidence,
      };
    },
    (row) => row.sort,
  );
}

/** Commitments in a slice, soonest due first (undated last): open ones unless `includeClosed`, of one owner if given. */
export async function readCommitments(
  db: Database,
  slice: ScopeSlice,
  request: PageRequest & { includeClosed?: boolean; owner?: string; dueBefore?: string },
): Promise<KnowledgePage<Commitment>> {
  const { rows, limit } = await readRecords<CommitmentRecord>(db, slice, 'commitment', request, {
    order: [`COALESCE(r.record ->> 'due', '9999-12-31')`, 'r.path', 'r.record_id'],
    where: (params) => {
      const conditions: string[] = [];
      if (!request.includeClosed) conditions.push(`(r.record ->> 'closed')::boolean = false`);
      if (request.owner !== undefined) {
        params.push(request.owner);
        conditions.push(`lower(r.record ->> 'owner') = lower($${params.length})`);
      }
      if (request.dueBefore !== undefined) {
        params.push(request.dueBefore);
        conditions.push(`r.record ->> 'due' <= $${params.length}`);
      }
      return conditions;
    },
  });
  return pageOf(
    rows,
    limit,
    ({ record: r, known_from }): Commitment => ({ id: r.id, text: r.text, closed: r.closed, owner: r.owner, due: r.due, knownFrom: iso(known_from), evidence: r.evidence }),
    (row) => row.sort,
  );
}

/** Questions in a slice: open ones unless `includeAnswered`. */
export async function readQuestions(db: Database, slice: ScopeSlice, request: PageRequest & { includeAnswered?: boolean }): Promise<KnowledgePage<Question>> {
  const { rows, limit } = await readRecords<QuestionRecord>(db, slice, 'question', request, {
    order: byPath,
    where: () => (request.includeAnswered ? [] : [`(r.record ->> 'answered')::boolean = false`]),
  });
  return pageOf(
    rows,
    limit,
    ({ record: r, known_from }): Question => ({ id: r.id, text: r.text, answered: r.answered, knownFrom: iso(known_from), evidence: r.evidence }),
    (row) => row.sort,
  );
}
