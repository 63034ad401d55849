import { uuidArrayParam, type Sql } from '../../../db/port.ts';
import type { Trigger, TriggerAction, TriggerCondition, TriggerWhen } from '../contract.ts';

interface TriggerRow {
  id: string;
  workspace_id: string;
  name: string;
  enabled: boolean;
  kind: 'event' | 'schedule';
  event_type: string | null;
  conditions: TriggerCondition[];
  interval_minutes: number | null;
  next_due_at: Date | null;
  action: TriggerAction;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  version: number;
  [key: string]: unknown;
}

const COLUMNS = 'id, workspace_id, name, enabled, kind, event_type, conditions, interval_minutes, next_due_at, action, created_by, created_at, updated_at, version';

/** A trigger's `when` as stored columns. */
export function whenColumns(when: TriggerWhen): { kind: 'event' | 'schedule'; eventType: string | null; conditions: TriggerCondition[]; intervalMinutes: number | null } {
  return 'everyMinutes' in when
    ? { kind: 'schedule', eventType: null, conditions: [], intervalMinutes: when.everyMinutes }
    : { kind: 'event', eventType: when.eventType, conditions: when.conditions ?? [], intervalMinutes: null };
}

function toTrigger(row: TriggerRow): Trigger {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    enabled: row.enabled,
    when: row.kind === 'schedule' ? { everyMinutes: row.interval_minutes! } : { eventType: row.event_type!, conditions: row.conditions },
    action: row.action,
    nextDueAt: row.next_due_at ? row.next_due_at.toISOString() : null,
    createdBy: row.created_by,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    version: row.version,
  };
}

/** What a new or changed trigger stores. */
export interface TriggerValues {
  name: string;
  enabled: boolean;
  when: TriggerWhen;
  action: TriggerAction;
  nextDueAt: Date | null;
}

/** Stores a new trigger. */
export async function insertTrigger(sql: Sql, t: TriggerValues & { id: string; workspaceId: string; createdBy: string; at: Date }): Promise<Trigger> {
  const w = whenColumns(t.when);
  const rows = await sql.query<TriggerRow>(
    `INSERT INTO automation_triggers (id, workspace_id, name, enabled, kind, event_type, conditions, interval_minutes, next_due_at, action, created_by,
        created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10::jsonb, $11, $12, $12) RETURNING ${COLUMNS}`,
    [t.id, t.workspaceId, t.name, t.enabled, w.kind, w.eventType, JSON.stringify(w.conditions), w.intervalMinutes, t.nextDueAt, JSON.stringify(t.action), t.createdBy, t.at],
  );
  return toTrigger(rows[0]!);
}

/** Replaces a trigger's values when its version is still `version`; undefined when it changed meanwhile. */
export async function updateTrigger(sql: Sql, id: string, version: number, t: TriggerValues, at: Date): Promise<Trigger | undefined> {
  const w = whenColumns(t.when);
  const rows = await sql.query<TriggerRow>(
    `UPDATE automation_triggers SET name = $3, enabled = $4, kind = $5, event_type = $6, conditions = $7::jsonb, interval_minutes = $8,
        next_due_at = $9, action = $10::jsonb, updated_at = $11, version = version + 1
     WHERE id = $1 AND version = $2 RETURNING ${COLUMNS}`,
    [id, version, t.name, t.enabled, w.kind, w.eventType, JSON.stringify(w.conditions), w.intervalMinutes, t.nextDueAt, JSON.stringify(t.action), at],
  );
  return rows[0] && toTrigger(rows[0]);
}

/** One trigger by id (with `lock`, its row locked for the transaction). */
export async function findTrigger(sql: Sql, id: string, lock = false): Promise<Trigger | undefined> {
  const rows = await sql.query<TriggerRow>(`SELECT ${COLUMNS} FROM automation_triggers WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
  return rows[0] && toTrigger(rows[0]);
}

/** A workspace's triggers, newest first. */
export async function listTriggers(sql: Sql, workspaceId: string): Promise<Trigger[]> {
  const rows = await sql.query<TriggerRow>(`SELECT ${COLUMNS} FROM automation_triggers WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC`, [workspaceId]);
  return rows.map(toTrigger);
}

/** How many triggers a workspace has. */
export async function countTriggers(sql: Sql, workspaceId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM automation_triggers WHERE workspace_id = $1', [workspaceId]);
  return rows[0]?.n ?? 0;
}

/** Deletes a trigger; true when it existed. */
export async function deleteTrigger(sql: Sql, id: string): Promise<boolean> {
  const rows = await sql.query<{ id: string }>('DELETE FROM automation_triggers WHERE id = $1 RETURNING id', [id]);
  return rows.length > 0;
}

/** The enabled event triggers of a workspace that may take `type` (the filter is checked by the caller). */
export async function eventTriggersOf(sql: Sql, workspaceId: string): Promise<Trigger[]> {
  const rows = await sql.query<TriggerRow>(
    `SELECT ${COLUMNS} FROM automation_triggers WHERE workspace_id = $1 AND kind = 'event' AND enabled ORDER BY created_at, id`,
    [workspaceId],
  );
  return rows.map(toTrigger);
}

/**
 * Claims the schedule triggers due at `now` (of some workspaces, or all): each is moved to its next due time in the
 * same statement, so that two processes never start a run of one due time twice.
 */
export async function claimDueSchedules(sql: Sql, now: Date, workspaceIds: readonly string[] | undefined, limit: number): Promise<Trigger[]> {
  const params: unknown[] = [now, limit];
  let scope = '';
  if (workspaceIds !== undefined) {
    if (workspaceIds.length === 0) return [];
    params.push(uuidArrayParam(workspaceIds));
    scope = ` AND workspace_id = ANY($${params.length}::uuid[])`;
  }
  const rows = await sql.query<TriggerRow>(
    `UPDATE automation_triggers SET next_due_at = $1::timestamptz + make_interval(mins => interval_minutes)
     WHERE id IN (SELECT id FROM automation_triggers WHERE kind = 'schedule' AND enabled AND next_due_at <= $1${scope}
                  ORDER BY next_due_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING ${COLUMNS}`,
    params,
  );
  return rows.map(toTrigger);
}
