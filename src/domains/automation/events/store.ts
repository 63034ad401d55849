import type { Sql } from '../../../db/port.ts';
import { AUTOMATION_CONTRACT, type AutomationEvent } from '../contract.ts';
import type { NormalizedEvent } from './normalize.ts';

interface EventRow {
  id: string;
  workspace_id: string;
  fingerprint: string;
  type: string;
  source: string;
  subject: string | null;
  occurred_at: Date;
  received_at: Date;
  data: Record<string, unknown>;
  [key: string]: unknown;
}

const COLUMNS = 'id, workspace_id, fingerprint, type, source, subject, occurred_at, received_at, data';

/** A stored event with its fingerprint. */
export interface StoredEvent {
  event: AutomationEvent;
  fingerprint: string;
}

function toEvent(row: EventRow): StoredEvent {
  return {
    fingerprint: row.fingerprint,
    event: {
      contract: AUTOMATION_CONTRACT,
      id: row.id,
      workspaceId: row.workspace_id,
      type: row.type,
      source: row.source,
      subject: row.subject,
      occurredAt: row.occurred_at.toISOString(),
      receivedAt: row.received_at.toISOString(),
      data: row.data,
    },
  };
}

/**
 * Stores an event unless the workspace already has one under `key`; answers the stored one and whether it is new.
 * The unique index decides between racing deliveries of one key: exactly one inserts.
 */
export async function insertEvent(
  sql: Sql,
  e: NormalizedEvent & { id: string; receivedBy: string; key: string; fingerprint: string; receivedAt: Date },
): Promise<{ stored: StoredEvent; inserted: boolean }> {
  const rows = await sql.query<EventRow>(
    `INSERT INTO automation_events (id, workspace_id, received_by, idempotency_key, fingerprint, contract_version, type, source, subject,
        occurred_at, received_at, data, size_bytes)
     VALUES ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $11::jsonb, $12)
     ON CONFLICT (workspace_id, idempotency_key) DO NOTHING
     RETURNING ${COLUMNS}`,
    [e.id, e.workspaceId, e.receivedBy, e.key, e.fingerprint, e.type, e.source, e.subject, e.occurredAt ?? e.receivedAt, e.receivedAt, JSON.stringify(e.data), e.sizeBytes],
  );
  if (rows[0]) return { stored: toEvent(rows[0]), inserted: true };
  const existing = await sql.query<EventRow>(`SELECT ${COLUMNS} FROM automation_events WHERE workspace_id = $1 AND idempotency_key = $2`, [e.workspaceId, e.key]);
  return { stored: toEvent(existing[0]!), inserted: false };
}

/** Records how many triggers an event matched. */
export async function setMatched(sql: Sql, eventId: string, matched: number): Promise<void> {
  await sql.query('UPDATE automation_events SET matched_triggers = $2 WHERE id = $1', [eventId, matched]);
}

/** One event by id. */
export async function findEvent(sql: Sql, id: string): Promise<AutomationEvent | undefined> {
  const rows = await sql.query<EventRow>(`SELECT ${COLUMNS} FROM automation_events WHERE id = $1`, [id]);
  return rows[0] && toEvent(rows[0]).event;
}

/** The ids of the runs an event started (a replayed delivery answers them again). */
export async function runsOfEvent(sql: Sql, eventId: string): Promise<string[]> {
  const rows = await sql.query<{ id: string }>('SELECT id FROM automation_runs WHERE event_id = $1 ORDER BY seq', [eventId]);
  return rows.map((r) => r.id);
}
