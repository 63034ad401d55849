import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { TemporalRecord } from './contract.ts';
import { decodeCursor, limitOf, pageOf, type KnowledgePage, type PageRequest } from './page.ts';
import type { AssertionRecord } from './records.ts';
import { sliceCondition } from './slice.ts';

/** How get_temporal_records reads (spec 2.5). */
export type TemporalMode = 'current' | 'valid-at' | 'known-at' | 'history';

/** A temporal read: a mode, its point in time, and optional entity filters. */
export interface TemporalRequest extends PageRequest {
  mode: TemporalMode;
  /** Required by valid-at and known-at; refused by the others. */
  at?: Date;
  entityType?: string;
  entityId?: string;
}

/** Assertions whose known time is unknown, and so are not answered for a known-at time (spec 4.2 rule 3). */
export interface UnavailableAssertion {
  recordId: string;
  entityType: string;
  entityId: string;
  property: string;
  reason: 'observed_before_receipts';
}

/** A temporal page, with what could not be answered. */
export interface TemporalAnswer extends KnowledgePage<TemporalRecord> {
  /** known-at only: assertions that may have held at `at` but were stored before receipts existed (at most a page). */
  unavailable: UnavailableAssertion[];
  /**
   * Versions in the slice withheld because their source note is gone now (current authorization reads only notes
   * that exist); null when that cannot be said safely (a tag slice cannot tell where a gone note belonged).
   */
  withheldGoneSources: number | null;
}

interface VersionRow {
  [column: string]: unknown;
  seq: string;
  record: AssertionRecord;
  known_from: Date | null;
  retired_at: Date | null;
  valid_until: string | null;
  sort: string[];
}

const KEY = [`v.record ->> 'entityType'`, `v.record ->> 'entityId'`, `v.record ->> 'property'`, `lpad(v.seq::text, 20, '0')`].map((e) => `(${e}) COLLATE "C"`);

/** The filters every mode shares: the vault, assertions, the slice, the entity, and a source note that exists now. */
function baseConditions(slice: ScopeSlice, request: TemporalRequest, params: unknown[]): string[] {
  const conditions = ['v.vault_id = $1', `v.kind = 'assertion'`, sliceCondition('v', slice, params)];
  if (request.entityType !== undefined) {
    params.push(request.entityType);
    conditions.push(`v.record ->> 'entityType' = $${params.length}`);
  }
  if (request.entityId !== undefined) {
    params.push(request.entityId);
    conditions.push(`v.record ->> 'entityId' = $${params.length}`);
  }
  return conditions;
}

const SOURCE_EXISTS = 'EXISTS (SELECT 1 FROM knowledge_notes kn WHERE kn.vault_id = v.vault_id AND kn.path = v.path)';

// The next valid time any version of the same entity and property claims after this one's: where this one ends.
const VALID_UNTIL = `(SELECT min(w.record ->> 'validFrom') FROM knowledge_record_versions w
                       WHERE w.vault_id = v.vault_id AND w.kind = 'assertion'
                         AND w.record ->> 'entityType' = v.record ->> 'entityType' AND w.record ->> 'entityId' = v.record ->> 'entityId'
                         AND w.record ->> 'property' = v.record ->> 'property' AND w.record ->> 'validFrom' > v.record ->> 'validFrom')`;

/** The condition of each mode on a version (`at` as parameter `$n`). */
function modeCondition(request: TemporalRequest, params: unknown[]): string {
  switch (request.mode) {
    case 'current':
      return 'v.retired_at IS NULL';
    case 'history':
      return 'true';
    case 'known-at':
      params.push(request.at);
      return `v.known_from <= $${params.length} AND (v.retired_at IS NULL OR v.retired_at > $${params.length})`;
    case 'valid-at':
      params.push(request.at!.toISOString().slice(0, 10));
      return `v.record ->> 'validFrom' <= $${params.length}`;
  }
}

/**
 * Assertions by mode (docs/knowledge.md, "Temporal reads"): `current` (the versions in force now), `known-at` (what
 * this replica knew at `at`, by its receipts only: an author's date never moves it), `valid-at` (per entity and
 * property, the version whose stated valid time is the latest at or before `at`), `history` (every version). Only
 * versions whose source note exists now and is in the slice are answered.
 */
export async function readTemporal(db: Database, slice: ScopeSlice, request: TemporalRequest): Promise<TemporalAnswer> {
  const needsAt = request.mode === 'valid-at' || request.mode === 'known-at';
  if (needsAt && request.at === undefined) throw new KgateError('invalid_request', `mode ${request.mode} needs at (a timestamp).`);
  if (!needsAt && request.at !== undefined) throw new KgateError('invalid_request', `at applies to modes valid-at and known-at only.`);
  const limit = limitOf(request);
  const params: unknown[] = [slice.vaultId];
  const base = baseConditions(slice, request, params);
  const mode = modeCondition(request, params);
  const inner = `SELECT v.seq, v.record, v.known_from, v.retired_at, ${VALID_UNTIL} AS valid_until, ARRAY[${KEY.join(', ')}] AS sort
                   FROM knowledge_record_versions v
                  WHERE ${[...base, SOURCE_EXISTS, mode].join(' AND ')}`;
  // valid-at: one version per entity and property, the one with the latest stated valid time (then the latest seen).
  const source =
    request.mode === 'valid-at'
      ? `SELECT * FROM (SELECT DISTINCT ON (x.record ->> 'entityType', x.record ->> 'entityId', x.record ->> 'property') x.*
                          FROM (${inner}) x
                         ORDER BY x.record ->> 'entityType', x.record ->> 'entityId', x.record ->> 'property', x.record ->> 'validFrom' DESC, x.seq DESC) y`
      : `SELECT * FROM (${inner}) y`;
  const outer: string[] = [];
  if (request.cursor !== undefined) {
    const key = decodeCursor(request.cursor, KEY.length);
    const placeholders = key.map((value) => {
      params.push(String(value));
      return `$${params.length}::text`;
    });
    outer.push(`y.sort > ARRAY[${placeholders.join(', ')}]`);
  }
  params.push(limit + 1);
  const rows = await db.query<VersionRow>(`${source} ${outer.length > 0 ? `WHERE ${outer.join(' AND ')}` : ''} ORDER BY y.sort LIMIT $${params.length}`, params);
  const page = pageOf(
    rows,
    limit,
    (row): TemporalRecord => {
      const r = row.record;
      return {
        recordId: r.id,
        entityType: r.entityType,
        entityId: r.entityId,
        property: r.property,
        value: JSON.parse(r.value) as unknown,
        validFrom: r.validFrom,
        validUntil: row.valid_until,
        knownFrom: row.known_from?.toISOString() ?? null,
        knownUntil: row.retired_at?.toISOString() ?? null,
        current: row.retired_at === null,
        evidence: r.evidence,
      };
    },
    (row) => row.sort,
  );
  return { ...page, unavailable: request.mode === 'known-at' ? await unavailableAt(db, slice, request, limit) : [], withheldGoneSources: await goneSources(db, slice, request) };
}

/** known-at: versions in force at `at` whose known time is unknown (stored before receipts existed). */
async function unavailableAt(db: Database, slice: ScopeSlice, request: TemporalRequest, limit: number): Promise<UnavailableAssertion[]> {
  const params: unknown[] = [slice.vaultId];
  const base = baseConditions(slice, request, params);
  params.push(request.at, limit);
  const rows = await db.query<{ record: AssertionRecord }>(
    `SELECT v.record FROM knowledge_record_versions v
      WHERE ${[...base, SOURCE_EXISTS].join(' AND ')} AND v.known_from IS NULL AND (v.retired_at IS NULL OR v.retired_at > $${params.length - 1})
      ORDER BY ${KEY.join(', ')} LIMIT $${params.length}`,
    params,
  );
  return rows.map(({ record: r }) => ({ recordId: r.id, entityType: r.entityType, entityId: r.entityId, property: r.property, reason: 'observed_before_receipts' }));
}

/** How many versions the mode would answer in the slice's folders but whose notes are gone; null for a tag slice. */
async function goneSources(db: Database, slice: ScopeSlice, request: TemporalRequest): Promise<number | null> {
  if (slice.tags.length > 0) return null;
  const params: unknown[] = [slice.vaultId];
  const base = baseConditions(slice, request, params);
  const mode = modeCondition(request, params);
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM knowledge_record_versions v WHERE ${[...base, mode].join(' AND ')} AND NOT ${SOURCE_EXISTS}`,
    params,
  );
  return rows[0]!.n;
}
