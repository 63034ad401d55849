import type { Sql } from '../../db/port.ts';
import { decodeCursor, encodeCursor } from '../../kernel/cursor.ts';
import { newId } from '../../kernel/ids.ts';
import { DEFAULT_AUTOMATION_PAGE, MAX_AUTOMATION_PAGE, type Execution, type Page } from './contract.ts';

/**
 * Execution records (docs/automation.md, "Executions"): one row per attempt of an outbound action, written by the
 * webhook deliverer (each delivery attempt) and by `process` (each execution of an approved automation proposal).
 * Append-only: an attempt is recorded once, when it ended.
 */

/** One attempt as it is recorded. */
export interface NewExecution {
  workspaceId: string;
  kind: 'webhook' | 'proposal';
  runId: string | null;
  deliveryId: string | null;
  endpointId: string | null;
  proposalId: string | null;
  attempt: number;
  outcome: 'succeeded' | 'failed' | 'gave_up';
  httpStatus: number | null;
  errorCode: string | null;
  /** A short reason in our words; never a response body or a secret. */
  detail: string;
  startedAt: Date;
  durationMs: number;
  nextAttemptAt: Date | null;
}

/** Records one attempt; answers its id. */
export async function insertExecution(sql: Sql, row: NewExecution): Promise<string> {
  const id = newId();
  await sql.query(
    `INSERT INTO automation_executions (id, workspace_id, kind, run_id, delivery_id, endpoint_id, proposal_id, attempt, outcome,
        http_status, error_code, detail, started_at, duration_ms, next_attempt_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    [
      id,
      row.workspaceId,
      row.kind,
      row.runId,
      row.deliveryId,
      row.endpointId,
      row.proposalId,
      row.attempt,
      row.outcome,
      row.httpStatus,
      row.errorCode,
      row.detail.slice(0, 500),
      row.startedAt,
      Math.max(0, Math.round(row.durationMs)),
      row.nextAttemptAt,
    ],
  );
  return id;
}

interface ExecutionRow {
  id: string;
  seq: string | number;
  workspace_id: string;
  kind: 'webhook' | 'proposal';
  run_id: string | null;
  delivery_id: string | null;
  endpoint_id: string | null;
  proposal_id: string | null;
  event_type: string | null;
  attempt: number;
  outcome: 'succeeded' | 'failed' | 'gave_up';
  http_status: number | null;
  error_code: string | null;
  detail: string;
  started_at: Date;
  duration_ms: number;
  next_attempt_at: Date | null;
  [key: string]: unknown;
}

const isSeq = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/**
 * A workspace's executions, newest first (of one run, or of one delivery, when given). The cursor is opaque; a cursor
 * that does not decode is `invalid_request`.
 */
export async function listExecutions(
  sql: Sql,
  workspaceId: string,
  query: { limit?: number | undefined; cursor?: string | undefined; runId?: string | undefined; deliveryId?: string | undefined } = {},
): Promise<Page<Execution>> {
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_AUTOMATION_PAGE, 1), MAX_AUTOMATION_PAGE);
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor, isSeq);
  const rows = await sql.query<ExecutionRow>(
    `SELECT x.id, x.seq, x.workspace_id, x.kind, x.run_id, x.delivery_id, x.endpoint_id, x.proposal_id, d.event_type, x.attempt,
        x.outcome, x.http_status, x.error_code, x.detail, x.started_at, x.duration_ms, x.next_attempt_at
     FROM automation_executions x LEFT JOIN webhook_deliveries d ON d.id = x.delivery_id
     WHERE x.workspace_id = $1 AND ($2::bigint IS NULL OR x.seq < $2) AND ($3::uuid IS NULL OR x.run_id = $3)
       AND ($4::text IS NULL OR x.delivery_id = $4)
     ORDER BY x.seq DESC LIMIT $5`,
    [workspaceId, before, query.runId ?? null, query.deliveryId ?? null, limit + 1],
  );
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map(toExecution),
    nextCursor: rows.length > limit && last ? encodeCursor(Number(last.seq)) : null,
  };
}

function toExecution(row: ExecutionRow): Execution {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    kind: row.kind,
    runId: row.run_id,
    deliveryId: row.delivery_id,
    endpointId: row.endpoint_id,
    proposalId: row.proposal_id,
    eventType: row.event_type,
    attempt: row.attempt,
    outcome: row.outcome,
    httpStatus: row.http_status,
    errorCode: row.error_code,
    detail: row.detail,
    startedAt: row.started_at.toISOString(),
    durationMs: row.duration_ms,
    nextAttemptAt: row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
  };
}
