import { uuidArrayParam, type Sql } from '../../../db/port.ts';
import { decodeCursor, encodeCursor } from '../../../kernel/cursor.ts';
import { DEFAULT_AUTOMATION_PAGE, MAX_AUTOMATION_PAGE, type Page, type Run, type RunState, type RunStep, type RunStepKind, type Trigger } from '../contract.ts';

/**
 * Runs and their steps (docs/automation.md, "Runs"). A run is claimed under a lease by one conditional UPDATE, so
 * that concurrent `process` calls (a script's and the gateway's own loop) never step one run at once.
 */

interface RunRow {
  id: string;
  seq: string | number;
  workspace_id: string;
  trigger_id: string | null;
  trigger_snapshot: Trigger;
  event_id: string | null;
  account_id: string;
  state: RunState;
  proposal_id: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
  failure: { code: string; detail: string } | null;
  [key: string]: unknown;
}

const COLUMNS = 'id, seq, workspace_id, trigger_id, trigger_snapshot, event_id, account_id, state, proposal_id, created_at, updated_at, finished_at, failure';

/** A run as the service works with it: its record and what only the server uses. */
export interface StoredRun {
  id: string;
  seq: number;
  workspaceId: string;
  triggerId: string | null;
  trigger: Trigger;
  eventId: string | null;
  accountId: string;
  state: RunState;
  proposalId: string | null;
  createdAt: Date;
  updatedAt: Date;
  finishedAt: Date | null;
  failure: { code: string; detail: string } | null;
}

function toStored(row: RunRow): StoredRun {
  return {
    id: row.id,
    seq: Number(row.seq),
    workspaceId: row.workspace_id,
    triggerId: row.trigger_id,
    trigger: row.trigger_snapshot,
    eventId: row.event_id,
    accountId: row.account_id,
    state: row.state,
    proposalId: row.proposal_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
    failure: row.failure,
  };
}

/** Creates a queued run of a trigger (for an event, or a schedule's due time) and its first step. */
export async function insertRun(
  sql: Sql,
  r: { id: string; trigger: Trigger; eventId: string | null; at: Date; step: RunStepKind; detail: Record<string, unknown> },
): Promise<void> {
  await sql.query(
    `INSERT INTO automation_runs (id, workspace_id, trigger_id, trigger_snapshot, event_id, account_id, state, due_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, 'queued', $7, $7, $7)`,
    [r.id, r.trigger.workspaceId, r.trigger.id, JSON.stringify(r.trigger), r.eventId, r.trigger.createdBy, r.at],
  );
  await appendStep(sql, r.id, r.step, r.detail, r.at);
}

/** Appends a step to a run, numbered after its last. */
export async function appendStep(sql: Sql, runId: string, step: RunStepKind, detail: Record<string, unknown>, at: Date): Promise<void> {
  await sql.query(
    `INSERT INTO automation_run_steps (run_id, n, step, at, detail)
     SELECT $1, COALESCE(max(n), 0) + 1, $2, $3, $4::jsonb FROM automation_run_steps WHERE run_id = $1`,
    [runId, step, at, JSON.stringify(detail)],
  );
}

/** Moves a run to `state` (and a proposal, a failure, an end), releasing its lease. */
export async function moveRun(
  sql: Sql,
  runId: string,
  state: RunState,
  at: Date,
  extra: { proposalId?: string; failure?: { code: string; detail: string } } = {},
): Promise<void> {
  const finished = state === 'succeeded' || state === 'failed';
  await sql.query(
    `UPDATE automation_runs SET state = $2, updated_at = $3, lease_until = NULL, proposal_id = COALESCE($4, proposal_id),
        failure = COALESCE($5::jsonb, failure), finished_at = CASE WHEN $6 THEN $3 ELSE finished_at END
     WHERE id = $1`,
    [runId, state, at, extra.proposalId ?? null, extra.failure ? JSON.stringify(extra.failure) : null, finished],
  );
}

/**
 * Claims runs to step: queued runs due at `now`, and waiting runs (their proposal or deliveries may have moved), not
 * under another lease, of some workspaces or all. Each claimed run is leased until `leaseUntil`.
 */
export async function claimRuns(
  sql: Sql,
  now: Date,
  leaseUntil: Date,
  states: readonly ('queued' | 'waiting')[],
  workspaceIds: readonly string[] | undefined,
  limit: number,
): Promise<StoredRun[]> {
  const params: unknown[] = [now, leaseUntil, limit, states.includes('queued'), states.includes('waiting')];
  let scope = '';
  if (workspaceIds !== undefined) {
    if (workspaceIds.length === 0) return [];
    params.push(uuidArrayParam(workspaceIds));
    scope = ` AND workspace_id = ANY($${params.length}::uuid[])`;
  }
  const rows = await sql.query<RunRow>(
    `UPDATE automation_runs SET lease_until = $2
     WHERE id IN (SELECT id FROM automation_runs
                  WHERE ((state = 'queued' AND $4 AND due_at <= $1) OR (state = 'waiting' AND $5))
                    AND (lease_until IS NULL OR lease_until < $1)${scope}
                  ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    params,
  );
  return rows.map(toStored).sort((a, b) => a.seq - b.seq);
}

/** Releases a run's lease without moving it (a waiting run with nothing new). */
export async function releaseRun(sql: Sql, runId: string): Promise<void> {
  await sql.query('UPDATE automation_runs SET lease_until = NULL WHERE id = $1', [runId]);
}

/** The runs that wait on a proposal. */
export async function runsOfProposal(sql: Sql, proposalId: string): Promise<StoredRun[]> {
  const rows = await sql.query<RunRow>(`SELECT ${COLUMNS} FROM automation_runs WHERE proposal_id = $1 ORDER BY seq`, [proposalId]);
  return rows.map(toStored);
}

/** The steps of runs, in order, by run. */
async function stepsOf(sql: Sql, runIds: readonly string[]): Promise<Map<string, RunStep[]>> {
  const steps = new Map<string, RunStep[]>(runIds.map((id) => [id, []]));
  if (runIds.length === 0) return steps;
  const rows = await sql.query<{ run_id: string; n: number; step: RunStepKind; at: Date; detail: Record<string, unknown> }>(
    'SELECT run_id, n, step, at, detail FROM automation_run_steps WHERE run_id = ANY($1::uuid[]) ORDER BY run_id, n',
    [uuidArrayParam(runIds)],
  );
  for (const row of rows) steps.get(row.run_id)!.push({ n: row.n, step: row.step, at: row.at.toISOString(), detail: row.detail });
  return steps;
}

function toRun(run: StoredRun, steps: RunStep[]): Run {
  return {
    id: run.id,
    workspaceId: run.workspaceId,
    triggerId: run.triggerId,
    triggerName: run.trigger.name,
    eventId: run.eventId,
    proposalId: run.proposalId,
    state: run.state,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    finishedAt: run.finishedAt ? run.finishedAt.toISOString() : null,
    failure: run.failure,
    steps,
  };
}

/** One run with its steps. */
export async function findRun(sql: Sql, id: string): Promise<(Run & { accountId: string }) | undefined> {
  const rows = await sql.query<RunRow>(`SELECT ${COLUMNS} FROM automation_runs WHERE id = $1`, [id]);
  if (!rows[0]) return undefined;
  const run = toStored(rows[0]);
  return { ...toRun(run, (await stepsOf(sql, [run.id])).get(run.id)!), accountId: run.accountId };
}

const isSeq = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** A workspace's runs with their steps, newest first. */
export async function listRuns(
  sql: Sql,
  workspaceId: string,
  query: { limit?: number | undefined; cursor?: string | undefined; triggerId?: string | undefined; state?: RunState | undefined },
): Promise<Page<Run>> {
  const limit = Math.min(Math.max(query.limit ?? DEFAULT_AUTOMATION_PAGE, 1), MAX_AUTOMATION_PAGE);
  const before = query.cursor === undefined ? null : decodeCursor(query.cursor, isSeq);
  const rows = await sql.query<RunRow>(
    `SELECT ${COLUMNS} FROM automation_runs
     WHERE workspace_id = $1 AND ($2::bigint IS NULL OR seq < $2) AND ($3::uuid IS NULL OR trigger_id = $3) AND ($4::text IS NULL OR state = $4)
     ORDER BY seq DESC LIMIT $5`,
    [workspaceId, before, query.triggerId ?? null, query.state ?? null, limit + 1],
  );
  const page = rows.slice(0, limit).map(toStored);
  const steps = await stepsOf(sql, page.map((r) => r.id));
  return { items: page.map((r) => toRun(r, steps.get(r.id)!)), nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!.seq) : null };
}
