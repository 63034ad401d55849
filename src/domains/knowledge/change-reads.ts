import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { KnowledgeChangeEvent } from './contract.ts';
import { limitOf, type KnowledgePage, type PageRequest } from './page.ts';
import { sliceCondition } from './slice.ts';

interface ChangeRow {
  [column: string]: unknown;
  seq: string;
  type: KnowledgeChangeEvent['type'];
  record_id: string;
  record_kind: KnowledgeChangeEvent['recordKind'];
  path: string;
  before_revision: string | null;
  after_revision: string | null;
  before_value: string | null;
  after_value: string | null;
  created_at: Date;
}

/**
 * Knowledge change events in a slice, in the order this replica recorded them, after the event whose cursor is
 * `cursor` (the start when absent). A cursor is the event's sequence number; the next page's cursor is the last
 * event's, so a reader that stores it misses nothing and sees nothing twice. Optionally only some record kinds.
 */
export async function readChanges(
  db: Database,
  slice: ScopeSlice,
  request: PageRequest & { recordKinds?: ReadonlyArray<KnowledgeChangeEvent['recordKind']> },
): Promise<KnowledgePage<KnowledgeChangeEvent>> {
  const limit = limitOf(request);
  const params: unknown[] = [slice.vaultId];
  const where = ['c.vault_id = $1', sliceCondition('c', slice, params)];
  if (request.cursor !== undefined) {
    if (!/^\d{1,18}$/.test(request.cursor)) throw new KgateError('invalid_request', 'The cursor is not one this service returned.');
    params.push(request.cursor);
    where.push(`c.seq > $${params.length}::bigint`);
  }
  if (request.recordKinds !== undefined) {
    params.push(request.recordKinds);
    where.push(`c.record_kind = ANY($${params.length}::text[])`);
  }
  params.push(limit + 1);
  const rows = await db.query<ChangeRow>(
    `SELECT c.seq::text AS seq, c.type, c.record_id, c.record_kind, c.path, c.before_revision, c.after_revision, c.before_value, c.after_value, c.created_at
       FROM knowledge_changes c WHERE ${where.join(' AND ')} ORDER BY c.seq LIMIT $${params.length}`,
    params,
  );
  const truncated = rows.length > limit;
  const kept = truncated ? rows.slice(0, limit) : rows;
  return {
    items: kept.map((row) => ({
      cursor: row.seq,
      type: row.type,
      recordId: row.record_id,
      recordKind: row.record_kind,
      path: row.path,
      beforeRevision: row.before_revision,
      afterRevision: row.after_revision,
      before: row.before_value,
      after: row.after_value,
      recordedAt: row.created_at.toISOString(),
    })),
    truncated,
    nextCursor: kept.length > 0 ? kept[kept.length - 1]!.seq : (request.cursor ?? null),
  };
}
