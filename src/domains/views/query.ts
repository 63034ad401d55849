import type { Sql } from '../../db/port.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { decodeCursor, encodeCursor, sliceCondition, type KnowledgePage } from '../knowledge/index.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { ViewDefinition, ViewRecord, ViewStatus } from './contract.ts';

/** A record as a view answers it, with the hash of everything but its evidence and known time (what watches compare). */
export interface ViewItem {
  record: ViewRecord;
  hash: string;
}

interface ViewRow {
  [column: string]: unknown;
  record_id: string;
  kind: ViewRecord['kind'];
  record: Record<string, unknown>;
  known_from: Date | null;
  status: ViewStatus | null;
  title: string;
  sort: string[];
}

// What each kind reads as: its title, and its status (a decision's from the latest review that still holds).
const TITLE = `CASE r.kind
    WHEN 'decision' THEN r.record ->> 'title'
    WHEN 'assertion' THEN (r.record ->> 'entityType') || '/' || (r.record ->> 'entityId') || ' ' || (r.record ->> 'property')
    WHEN 'relation' THEN (r.record ->> 'type') || ' ' || (r.record ->> 'target')
    ELSE r.record ->> 'text' END`;
const STATUS = `CASE r.kind
    WHEN 'decision' THEN COALESCE(rv.verdict, 'candidate')
    WHEN 'commitment' THEN CASE WHEN (r.record ->> 'closed')::boolean THEN 'closed' ELSE 'open' END
    WHEN 'question' THEN CASE WHEN (r.record ->> 'answered')::boolean THEN 'answered' ELSE 'open' END
    END`;
const ORDER: Readonly<Record<ViewDefinition['sort'], readonly string[]>> = {
  path: ['v.path', 'v.record_id'],
  due: [`COALESCE(v.record ->> 'due', '9999-12-31')`, 'v.path', 'v.record_id'],
  title: ['lower(v.title)', 'v.path', 'v.record_id'],
};

/** How much of a view to answer: a page size (the definition's unless given) after a cursor of an earlier page. */
export interface ViewPageRequest {
  limit: number;
  cursor?: string;
}

/**
 * Runs a view's definition over the current records of a slice, with `sql` (a transaction's, when a watch runs in
 * the change that triggered it): the kinds asked for, each status filter and field filter applied to the kinds that
 * have the field, in the definition's order, `limit` records after `cursor`. Only records of notes in the slice now
 * are answered (sliceCondition), as every knowledge read does.
 */
export async function runView(sql: Sql, slice: ScopeSlice, definition: ViewDefinition, request: ViewPageRequest): Promise<KnowledgePage<ViewItem>> {
  const params: unknown[] = [slice.vaultId, definition.kinds];
  const inner = ['r.vault_id = $1', 'r.kind = ANY($2::text[])', sliceCondition('r', slice, params)];
  const outer: string[] = [];
  params.push(definition.statuses);
  outer.push(`(v.status IS NULL OR v.status = ANY($${params.length}::text[]))`);
  if (definition.text !== undefined) {
    params.push(definition.text.toLowerCase());
    outer.push(`strpos(lower(v.title || ' ' || COALESCE(v.record ->> 'value', '')), $${params.length}) > 0`);
  }
  if (definition.owner !== undefined) {
    params.push(definition.owner);
    outer.push(`(v.kind <> 'commitment' OR lower(v.record ->> 'owner') = lower($${params.length}))`);
  }
  if (definition.dueAfter !== undefined) {
    params.push(definition.dueAfter);
    outer.push(`(v.kind <> 'commitment' OR v.record ->> 'due' >= $${params.length})`);
  }
  if (definition.dueBefore !== undefined) {
    params.push(definition.dueBefore);
    outer.push(`(v.kind <> 'commitment' OR v.record ->> 'due' <= $${params.length})`);
  }
  if (definition.entityType !== undefined) {
    params.push(definition.entityType);
    outer.push(`(v.kind <> 'assertion' OR v.record ->> 'entityType' = $${params.length})`);
  }
  if (definition.relationTypes !== undefined) {
    params.push(definition.relationTypes);
    outer.push(`(v.kind <> 'relation' OR v.record ->> 'type' = ANY($${params.length}::text[]))`);
  }
  const order = ORDER[definition.sort].map((expression) => `(${expression}) COLLATE "C"`);
  if (request.cursor !== undefined) {
    const key = decodeCursor(request.cursor, order.length);
    const placeholders = key.map((value) => {
      params.push(String(value));
      return `$${params.length}::text`;
    });
    outer.push(`(${order.join(', ')}) > (${placeholders.join(', ')})`);
  }
  params.push(request.limit + 1);
  const rows = await sql.query<ViewRow>(
    `SELECT v.record_id, v.kind, v.record, v.known_from, v.status, v.title, ARRAY[${order.join(', ')}] AS sort
       FROM (SELECT r.record_id, r.kind, r.path, r.record, r.known_from, ${TITLE} AS title, ${STATUS} AS status
               FROM knowledge_records r
               LEFT JOIN LATERAL (SELECT d.verdict FROM decision_reviews d
                                   WHERE r.kind = 'decision' AND d.vault_id = r.vault_id AND d.record_id = r.record_id
                                     AND d.record_hash = r.substance_hash
                                   ORDER BY d.reviewed_at DESC, d.id DESC LIMIT 1) rv ON true
              WHERE ${inner.join(' AND ')}) v
      ${outer.length > 0 ? `WHERE ${outer.join(' AND ')}` : ''}
      ORDER BY ${order.join(', ')}
      LIMIT $${params.length}`,
    params,
  );
  const truncated = rows.length > request.limit;
  const kept = truncated ? rows.slice(0, request.limit) : rows;
  return { items: kept.map(itemOf), truncated, nextCursor: truncated ? encodeCursor(kept[kept.length - 1]!.sort) : null };
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** The answer for one row, and its hash. */
function itemOf(row: ViewRow): ViewItem {
  const r = row.record;
  let value: unknown = null;
  if (row.kind === 'assertion' && typeof r.value === 'string') {
    try {
      value = JSON.parse(r.value);
    } catch {
      value = r.value;
    }
  }
  const record: ViewRecord = {
    id: row.record_id,
    kind: row.kind,
    title: row.title,
    status: row.status,
    owner: row.kind === 'commitment' ? text(r.owner) : null,
    due: row.kind === 'commitment' ? text(r.due) : null,
    statusInNote: row.kind === 'decision' ? text(r.statusInNote) : null,
    subject: row.kind === 'decision' ? text(r.subject) : null,
    entityType: row.kind === 'assertion' ? text(r.entityType) : null,
    entityId: row.kind === 'assertion' ? text(r.entityId) : null,
    property: row.kind === 'assertion' ? text(r.property) : null,
    value,
    relationType: row.kind === 'relation' ? text(r.type) : null,
    target: row.kind === 'relation' ? text(r.target) : null,
    knownFrom: row.known_from ? row.known_from.toISOString() : null,
    evidence: r.evidence as ViewRecord['evidence'],
  };
  return { record, hash: itemHash(record) };
}

/**
 * What a watch compares: the record as the view answers it, without its evidence (lines that move, a new revision)
 * and known time, which change with no change of substance.
 */
export function itemHash(record: ViewRecord): string {
  const { evidence: _evidence, knownFrom: _knownFrom, ...substance } = record;
  return sha256Hex(JSON.stringify(substance));
}
