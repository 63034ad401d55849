import { textArrayParam, uuidArrayParam, type Sql } from '../../db/port.ts';
import { newId } from '../../kernel/ids.ts';
import type { NewProvenanceEvent } from './contract.ts';

/**
 * Appends events in one statement, in array order. Must run inside the transaction that made the change, after
 * the vault row is locked, so that `seq` order equals commit order within a vault.
 */
export async function appendEvents(sql: Sql, events: readonly NewProvenanceEvent[]): Promise<void> {
  if (events.length === 0) return;
  const column = <T>(pick: (e: NewProvenanceEvent) => T) => events.map(pick);
  await sql.query(
    `INSERT INTO provenance_events (id, mapping_id, vault_id, account_id, credential_kind, credential_id, client,
        kind, path, before_revision, after_revision, idempotency_key, trash_id, details, diff)
     SELECT id, mapping_id, vault_id, account_id, credential_kind, credential_id, client, kind, path,
            before_revision, after_revision, idempotency_key, trash_id, details, diff
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::uuid[], $7::text[], $8::text[],
                   $9::text[], $10::text[], $11::text[], $12::text[], $13::uuid[], $14::jsonb[], $15::text[])
            WITH ORDINALITY AS e(id, mapping_id, vault_id, account_id, credential_kind, credential_id, client, kind,
                                 path, before_revision, after_revision, idempotency_key, trash_id, details, diff, ord)
      ORDER BY ord`,
    [
      uuidArrayParam(column(() => newId())),
      column((e) => e.mappingId),
      column((e) => e.vaultId),
      column((e) => e.accountId),
      textArrayParam(column((e) => e.credentialKind)),
      column((e) => e.credentialId ?? null),
      textArrayParam(column((e) => e.client ?? null)),
      textArrayParam(column((e) => e.kind)),
      textArrayParam(column((e) => e.path ?? null)),
      textArrayParam(column((e) => e.beforeRevision ?? null)),
      textArrayParam(column((e) => e.afterRevision ?? null)),
      textArrayParam(column((e) => e.idempotencyKey ?? null)),
      column((e) => e.trashId ?? null),
      column((e) => JSON.stringify(e.details ?? {})),
      textArrayParam(column((e) => e.diff ?? null)),
    ],
  );
}

/** A recorded event as readers see it. */
export interface ProvenanceEvent {
  seq: number;
  id: string;
  kind: string;
  path: string | null;
  beforeRevision: string | null;
  afterRevision: string | null;
  trashId: string | null;
  idempotencyKey: string | null;
  credentialKind: string;
  client: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
  /** Present when asked for: the change's unified diff, or null when it has none. */
  diff?: string | null;
}

interface EventRow {
  seq: number;
  id: string;
  kind: string;
  path: string | null;
  before_revision: string | null;
  after_revision: string | null;
  trash_id: string | null;
  idempotency_key: string | null;
  credential_kind: string;
  client: string | null;
  details: Record<string, unknown>;
  created_at: Date;
  diff?: string | null;
  [key: string]: unknown;
}

/** Which way a page of events runs: oldest first (the feed) or newest first (what changed lately). */
export type EventOrder = 'asc' | 'desc';

/**
 * Events of one mapping by one account with `since < seq < before` (`before` null: no upper bound), oldest or
 * newest first. The index on (mapping_id, account_id, seq) serves both directions.
 */
export async function listEvents(
  sql: Sql,
  mappingId: string,
  accountId: string,
  range: { since: number; before: number | null; order: EventOrder; diffs?: boolean },
  limit: number,
): Promise<ProvenanceEvent[]> {
  const rows = await sql.query<EventRow>(
    `SELECT seq, id, kind, path, before_revision, after_revision, trash_id, idempotency_key, credential_kind, client,
            details, created_at${range.diffs ? ', diff' : ''}
       FROM provenance_events
      WHERE mapping_id = $1 AND account_id = $2 AND seq > $3 AND ($4::bigint IS NULL OR seq < $4)
      ORDER BY seq ${range.order === 'desc' ? 'DESC' : 'ASC'}
      LIMIT $5`,
    [mappingId, accountId, range.since, range.before, limit],
  );
  return rows.map((r) => ({
    seq: r.seq,
    id: r.id,
    kind: r.kind,
    path: r.path,
    beforeRevision: r.before_revision,
    afterRevision: r.after_revision,
    trashId: r.trash_id,
    idempotencyKey: r.idempotency_key,
    credentialKind: r.credential_kind,
    client: r.client,
    details: r.details,
    createdAt: r.created_at,
    ...(range.diffs ? { diff: r.diff ?? null } : {}),
  }));
}
