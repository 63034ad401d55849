import type { Sql } from '../../db/port.ts';
import type { TraceSessionSummary, TraceStepInput } from './contract.ts';

interface SessionRow {
  [column: string]: unknown;
  id: string;
  session_id: string;
  title: string;
  agent: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  step_count: number;
  reference_count: number;
  published_by: string | null;
  published_at: Date;
}

const COLUMNS = 'id, session_id, title, agent, started_at, ended_at, step_count, reference_count, published_by, published_at';

const summaryOf = (r: SessionRow): TraceSessionSummary => ({
  id: r.id,
  sessionId: r.session_id,
  title: r.title,
  agent: r.agent,
  startedAt: r.started_at,
  endedAt: r.ended_at,
  stepCount: r.step_count,
  referenceCount: r.reference_count,
  publishedBy: r.published_by,
  publishedAt: r.published_at,
});

/** A session to store, its steps normalized. */
export interface NewSession {
  id: string;
  scopeId: string;
  sessionId: string;
  title: string;
  agent: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  steps: readonly TraceStepInput[];
  referenceCount: number;
  publishedBy: string;
  publishedAt: Date;
}

/** Stores a session; undefined when the scope already holds one under that session id (nothing is written). */
export async function insertSession(sql: Sql, s: NewSession): Promise<TraceSessionSummary | undefined> {
  const rows = await sql.query<SessionRow>(
    `INSERT INTO trace_sessions (id, context_scope_id, session_id, title, agent, started_at, ended_at, steps, step_count, reference_count, published_by, published_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)
     ON CONFLICT (context_scope_id, session_id) DO NOTHING
     RETURNING ${COLUMNS}`,
    [s.id, s.scopeId, s.sessionId, s.title, s.agent, s.startedAt, s.endedAt, JSON.stringify(s.steps), s.steps.length, s.referenceCount, s.publishedBy, s.publishedAt],
  );
  return rows[0] ? summaryOf(rows[0]) : undefined;
}

/** How many sessions a scope holds. */
export async function countSessions(sql: Sql, scopeId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM trace_sessions WHERE context_scope_id = $1', [scopeId]);
  return rows[0]!.n;
}

/** A session of a scope by its session id, with its steps. */
export async function findSession(sql: Sql, scopeId: string, sessionId: string): Promise<{ summary: TraceSessionSummary; steps: TraceStepInput[] } | undefined> {
  const rows = await sql.query<SessionRow & { steps: TraceStepInput[] }>(`SELECT ${COLUMNS}, steps FROM trace_sessions WHERE context_scope_id = $1 AND session_id = $2`, [
    scopeId,
    sessionId,
  ]);
  const row = rows[0];
  return row ? { summary: summaryOf(row), steps: row.steps } : undefined;
}

/** Sessions of a scope, newest published first, after `after` (published time and id of the last one seen). */
export async function listSessions(sql: Sql, scopeId: string, after: { at: string; id: string } | undefined, count: number): Promise<TraceSessionSummary[]> {
  const params: unknown[] = [scopeId];
  let where = 'context_scope_id = $1';
  if (after) {
    params.push(after.at, after.id);
    where += ` AND (published_at, id) < ($2::timestamptz, $3::uuid)`;
  }
  params.push(count);
  const rows = await sql.query<SessionRow>(`SELECT ${COLUMNS} FROM trace_sessions WHERE ${where} ORDER BY published_at DESC, id DESC LIMIT $${params.length}`, params);
  return rows.map(summaryOf);
}
