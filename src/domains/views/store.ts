import type { Sql } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { textArrayParam } from '../../db/port.ts';
import type { KnowledgePage } from '../knowledge/index.ts';
import { decodeCursor, encodeCursor, sliceCondition } from '../knowledge/index.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { FINDING_STATES, type Finding, type FindingState, type SavedView, type ViewDefinition, type ViewRecord, type ViewVersion, type Watch } from './contract.ts';

// The SQL of saved views, watches and findings (0017_views.sql).

interface ViewRow {
  [column: string]: unknown;
  id: string;
  mapping_id: string;
  scope_id: string;
  name: string;
  latest_version: number;
  created_at: Date;
  updated_at: Date;
}

const viewOf = (row: ViewRow): SavedView => ({
  id: row.id,
  mappingId: row.mapping_id,
  scopeId: row.scope_id,
  name: row.name,
  latestVersion: row.latest_version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** The views of a scope, by name. */
export async function listViews(sql: Sql, scopeId: string): Promise<SavedView[]> {
  return (await sql.query<ViewRow>('SELECT * FROM knowledge_views WHERE scope_id = $1 ORDER BY lower(name), id', [scopeId])).map(viewOf);
}

/** A view of the scope; undefined for any other id. */
export async function findView(sql: Sql, scopeId: string, viewId: string, lock = false): Promise<SavedView | undefined> {
  const rows = await sql.query<ViewRow>(`SELECT * FROM knowledge_views WHERE scope_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [scopeId, viewId]);
  return rows[0] ? viewOf(rows[0]) : undefined;
}

/** How many views the scope holds. */
export async function countViews(sql: Sql, scopeId: string): Promise<number> {
  return (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_views WHERE scope_id = $1', [scopeId]))[0]!.n;
}

/** True when another view of the scope has this name, whatever the letter case. */
export async function viewNameTaken(sql: Sql, scopeId: string, name: string, except?: string): Promise<boolean> {
  const rows = await sql.query('SELECT 1 FROM knowledge_views WHERE scope_id = $1 AND lower(name) = lower($2) AND id IS DISTINCT FROM $3::uuid', [scopeId, name, except ?? null]);
  return rows.length > 0;
}

interface VersionRow {
  [column: string]: unknown;
  view_id: string;
  version: number;
  name: string;
  definition: ViewDefinition;
  created_by: string | null;
  created_at: Date;
}

const versionOf = (row: VersionRow): ViewVersion => ({
  viewId: row.view_id,
  version: row.version,
  name: row.name,
  definition: row.definition,
  createdBy: row.created_by,
  createdAt: row.created_at,
});

/** One version of a view; undefined when it has none of that number. */
export async function findVersion(sql: Sql, viewId: string, version: number): Promise<ViewVersion | undefined> {
  const rows = await sql.query<VersionRow>('SELECT * FROM knowledge_view_versions WHERE view_id = $1 AND version = $2', [viewId, version]);
  return rows[0] ? versionOf(rows[0]) : undefined;
}

/** Every version of a view, newest first (at most MAX_VERSIONS_PER_VIEW exist). */
export async function listVersions(sql: Sql, viewId: string): Promise<ViewVersion[]> {
  return (await sql.query<VersionRow>('SELECT * FROM knowledge_view_versions WHERE view_id = $1 ORDER BY version DESC', [viewId])).map(versionOf);
}

/** Stores a new view with its first version. */
export async function insertView(sql: Sql, input: { id: string; mappingId: string; scopeId: string; name: string; definition: ViewDefinition; createdBy: string; at: Date }): Promise<void> {
  await sql.query(
    `WITH v AS (INSERT INTO knowledge_views (id, mapping_id, scope_id, name, latest_version, created_by, created_at, updated_at)
                VALUES ($1, $2, $3, $4, 1, $6, $7, $7) RETURNING id)
     INSERT INTO knowledge_view_versions (view_id, version, name, definition, created_by, created_at) SELECT id, 1, $4, $5::jsonb, $6, $7 FROM v`,
    [input.id, input.mappingId, input.scopeId, input.name, JSON.stringify(input.definition), input.createdBy, input.at],
  );
}

/** Stores the next version of a view and makes it the latest. */
export async function insertVersion(sql: Sql, input: { viewId: string; version: number; name: string; definition: ViewDefinition; createdBy: string; at: Date }): Promise<void> {
  await sql.query(
    `WITH v AS (UPDATE knowledge_views SET name = $3, latest_version = $2, updated_at = $6 WHERE id = $1 RETURNING id)
     INSERT INTO knowledge_view_versions (view_id, version, name, definition, created_by, created_at) SELECT id, $2, $3, $4::jsonb, $5, $6 FROM v`,
    [input.viewId, input.version, input.name, JSON.stringify(input.definition), input.createdBy, input.at],
  );
}

/** Removes a view, its versions, its watches and their findings. */
export async function deleteView(sql: Sql, viewId: string): Promise<void> {
  await sql.query('DELETE FROM knowledge_views WHERE id = $1', [viewId]);
}

// ---------------------------------------------------------------------------------------------------------------
// Watches
// ---------------------------------------------------------------------------------------------------------------

interface WatchRow {
  [column: string]: unknown;
  id: string;
  view_id: string;
  view_name: string;
  pinned_version: number | null;
  created_at: Date;
  evaluated_at: Date;
  over_limit: boolean;
  dropped_findings: number;
  counts: Partial<Record<FindingState, number>> | null;
}

const watchOf = (row: WatchRow): Watch => ({
  id: row.id,
  viewId: row.view_id,
  viewName: row.view_name,
  pinnedVersion: row.pinned_version,
  createdAt: row.created_at,
  evaluatedAt: row.evaluated_at,
  overLimit: row.over_limit,
  droppedFindings: row.dropped_findings,
  counts: Object.fromEntries(FINDING_STATES.map((s) => [s, row.counts?.[s] ?? 0])) as Record<FindingState, number>,
});

const WATCH_COLUMNS = `w.id, w.view_id, v.name AS view_name, w.pinned_version, w.created_at, w.evaluated_at, w.over_limit, w.dropped_findings,
  (SELECT jsonb_object_agg(c.state, c.n) FROM (SELECT f.state, count(*)::int AS n FROM knowledge_watch_findings f WHERE f.watch_id = w.id GROUP BY f.state) c) AS counts`;

/** The watches of a scope's views, by view name then creation. */
export async function listWatches(sql: Sql, scopeId: string): Promise<Watch[]> {
  const rows = await sql.query<WatchRow>(
    `SELECT ${WATCH_COLUMNS} FROM knowledge_watches w JOIN knowledge_views v ON v.id = w.view_id WHERE v.scope_id = $1 ORDER BY lower(v.name), w.id`,
    [scopeId],
  );
  return rows.map(watchOf);
}

/** A watch of the scope; undefined for any other id. */
export async function findWatch(sql: Sql, scopeId: string, watchId: string): Promise<Watch | undefined> {
  const rows = await sql.query<WatchRow>(
    `SELECT ${WATCH_COLUMNS} FROM knowledge_watches w JOIN knowledge_views v ON v.id = w.view_id WHERE v.scope_id = $1 AND w.id = $2`,
    [scopeId, watchId],
  );
  return rows[0] ? watchOf(rows[0]) : undefined;
}

/** How many watches the scope's views have. */
export async function countWatches(sql: Sql, scopeId: string): Promise<number> {
  const rows = await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_watches w JOIN knowledge_views v ON v.id = w.view_id WHERE v.scope_id = $1', [scopeId]);
  return rows[0]!.n;
}

/** Stores a new watch. */
export async function insertWatch(sql: Sql, input: { id: string; viewId: string; vaultId: string; pinnedVersion: number | null; createdBy: string; at: Date }): Promise<void> {
  await sql.query(
    'INSERT INTO knowledge_watches (id, view_id, vault_id, pinned_version, created_by, created_at, evaluated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)',
    [input.id, input.viewId, input.vaultId, input.pinnedVersion, input.createdBy, input.at],
  );
}

/** Removes a watch and its findings. */
export async function deleteWatch(sql: Sql, watchId: string): Promise<void> {
  await sql.query('DELETE FROM knowledge_watches WHERE id = $1', [watchId]);
}

/** A watch as a run needs it: its view's definition at the version it runs, and its scope's slice. */
export interface WatchToRun {
  id: string;
  viewId: string;
  version: number;
  definition: ViewDefinition;
  slice: ScopeSlice;
  /** The last run matched more than a watch compares: there is nothing to compare the next one with. */
  overLimit: boolean;
  /** It runs a pinned version, not the view's latest. */
  pinned: boolean;
}

/** The watches of a vault with what running them needs (the latest version for those that follow it). */
export async function watchesOfVault(sql: Sql, vaultId: string): Promise<WatchToRun[]> {
  const rows = await sql.query<{ id: string; view_id: string; version: number; definition: ViewDefinition; path_prefixes: string[]; tags: string[]; over_limit: boolean; pinned: boolean }>(
    `SELECT w.id, w.view_id, vv.version, vv.definition, s.path_prefixes, s.tags, w.over_limit, w.pinned_version IS NOT NULL AS pinned
       FROM knowledge_watches w
       JOIN knowledge_views v ON v.id = w.view_id
       JOIN context_scopes s ON s.id = v.scope_id
       JOIN knowledge_view_versions vv ON vv.view_id = v.id AND vv.version = COALESCE(w.pinned_version, v.latest_version)
      WHERE w.vault_id = $1
      ORDER BY w.id`,
    [vaultId],
  );
  return rows.map((r) => ({ id: r.id, viewId: r.view_id, version: r.version, definition: r.definition, slice: { vaultId, pathPrefixes: r.path_prefixes, tags: r.tags }, overLimit: r.over_limit, pinned: r.pinned }));
}


/** What a watch matched at its last run, by record id. */
export async function loadMatches(sql: Sql, watchId: string): Promise<Map<string, { hash: string; record: ViewRecord }>> {
  const rows = await sql.query<{ record_id: string; item_hash: string; item: ViewRecord }>('SELECT record_id, item_hash, item FROM knowledge_watch_matches WHERE watch_id = $1', [watchId]);
  return new Map(rows.map((r) => [r.record_id, { hash: r.item_hash, record: r.item }]));
}

/** Replaces what a watch matched with the records of this run. */
export async function replaceMatches(sql: Sql, watchId: string, items: ReadonlyArray<{ hash: string; record: ViewRecord }>): Promise<void> {
  await sql.query('DELETE FROM knowledge_watch_matches WHERE watch_id = $1', [watchId]);
  if (items.length === 0) return;
  await sql.query(
    `INSERT INTO knowledge_watch_matches (watch_id, record_id, item_hash, item)
     SELECT $1, m.record_id, m.item_hash, m.item::jsonb FROM unnest($2::text[], $3::text[], $4::text[]) AS m(record_id, item_hash, item)`,
    [watchId, textArrayParam(items.map((i) => i.record.id)), textArrayParam(items.map((i) => i.hash)), textArrayParam(items.map((i) => JSON.stringify(i.record)))],
  );
}

/** Notes the time of a watch's run and whether it was over its limit. */
export async function markEvaluated(sql: Sql, watchId: string, at: Date, overLimit: boolean, dropped: number): Promise<void> {
  await sql.query('UPDATE knowledge_watches SET evaluated_at = $2, over_limit = $3, dropped_findings = dropped_findings + $4 WHERE id = $1', [watchId, at, overLimit, dropped]);
}

// ---------------------------------------------------------------------------------------------------------------
// Findings
// ---------------------------------------------------------------------------------------------------------------

/** A finding to store. */
export interface NewFinding {
  id: string;
  change: Finding['change'];
  record: ViewRecord;
}

/**
 * Stores a run's findings within the watch's bound: the oldest dismissed or resolved findings make room first; what
 * still does not fit is not stored. Returns how many were dropped.
 */
export async function insertFindings(sql: Sql, watch: { id: string; vaultId: string; version: number }, findings: readonly NewFinding[], at: Date, cap: number): Promise<number> {
  if (findings.length === 0) return 0;
  const held = (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_watch_findings WHERE watch_id = $1', [watch.id]))[0]!.n;
  const excess = held + findings.length - cap;
  if (excess > 0) {
    await sql.query(
      `DELETE FROM knowledge_watch_findings WHERE seq IN (SELECT seq FROM knowledge_watch_findings
        WHERE watch_id = $1 AND state IN ('dismissed', 'resolved') ORDER BY seq LIMIT $2)`,
      [watch.id, excess],
    );
  }
  const room = cap - (await sql.query<{ n: number }>('SELECT count(*)::int AS n FROM knowledge_watch_findings WHERE watch_id = $1', [watch.id]))[0]!.n;
  const kept = findings.slice(0, Math.max(0, room));
  if (kept.length > 0) {
    await sql.query(
      `INSERT INTO knowledge_watch_findings (id, watch_id, vault_id, path, record_id, change, item, view_version, found_at)
       SELECT f.id::uuid, $1, $2, f.path, f.record_id, f.change, f.item::jsonb, $3, $4
         FROM unnest($5::text[], $6::text[], $7::text[], $8::text[], $9::text[]) WITH ORDINALITY AS f(id, path, record_id, change, item, n)
        ORDER BY f.n`,
      [
        watch.id,
        watch.vaultId,
        watch.version,
        at,
        textArrayParam(kept.map((f) => f.id)),
        textArrayParam(kept.map((f) => f.record.evidence.path)),
        textArrayParam(kept.map((f) => f.record.id)),
        textArrayParam(kept.map((f) => f.change)),
        textArrayParam(kept.map((f) => JSON.stringify(f.record))),
      ],
    );
  }
  return findings.length - kept.length;
}

interface FindingRow {
  [column: string]: unknown;
  seq: string;
  id: string;
  watch_id: string;
  view_id: string;
  view_name: string;
  view_version: number;
  change: Finding['change'];
  item: ViewRecord;
  found_at: Date;
  state: FindingState;
  state_changed_at: Date | null;
}

const findingOf = (row: FindingRow): Finding => ({
  id: row.id,
  watchId: row.watch_id,
  viewId: row.view_id,
  viewName: row.view_name,
  viewVersion: row.view_version,
  change: row.change,
  record: row.item,
  foundAt: row.found_at.toISOString(),
  state: row.state,
  stateChangedAt: row.state_changed_at ? row.state_changed_at.toISOString() : null,
});

/** Which findings of a scope to read. */
export interface FindingsQuery {
  watchId?: string;
  states: readonly FindingState[];
  findingId?: string;
  limit: number;
  cursor?: string;
}

/**
 * Findings of a scope's watches, newest first, only those of notes in the slice now (current authorization: a
 * finding about a note that left the scope is withheld), `limit` after `cursor`.
 */
export async function readFindings(sql: Sql, scopeId: string, slice: ScopeSlice, query: FindingsQuery): Promise<KnowledgePage<Finding>> {
  const params: unknown[] = [scopeId, query.states];
  const where = ['v.scope_id = $1', 'f.state = ANY($2::text[])', sliceCondition('f', slice, params)];
  if (query.watchId !== undefined) {
    params.push(query.watchId);
    where.push(`f.watch_id = $${params.length}`);
  }
  if (query.findingId !== undefined) {
    params.push(query.findingId);
    where.push(`f.id = $${params.length}`);
  }
  if (query.cursor !== undefined) {
    const [seq] = decodeCursor(query.cursor, 1);
    if (typeof seq !== 'string' || !/^\d{1,18}$/.test(seq)) throw new KgateError('invalid_request', 'The cursor is not one this service returned.');
    params.push(seq);
    where.push(`f.seq < $${params.length}::bigint`);
  }
  params.push(query.limit + 1);
  const rows = await sql.query<FindingRow>(
    `SELECT f.seq::text AS seq, f.id, f.watch_id, w.view_id, v.name AS view_name, f.view_version, f.change, f.item, f.found_at, f.state, f.state_changed_at
       FROM knowledge_watch_findings f
       JOIN knowledge_watches w ON w.id = f.watch_id
       JOIN knowledge_views v ON v.id = w.view_id
      WHERE ${where.join(' AND ')}
      ORDER BY f.seq DESC
      LIMIT $${params.length}`,
    params,
  );
  const truncated = rows.length > query.limit;
  const kept = truncated ? rows.slice(0, query.limit) : rows;
  return { items: kept.map(findingOf), truncated, nextCursor: truncated ? encodeCursor([kept[kept.length - 1]!.seq]) : null };
}

/** Moves a finding's review state, if it is still in `from`; false when it is not (someone moved it meanwhile). */
export async function setFindingState(sql: Sql, findingId: string, from: FindingState, to: FindingState, by: string, at: Date): Promise<boolean> {
  const rows = await sql.query('UPDATE knowledge_watch_findings SET state = $3, state_changed_by = $4, state_changed_at = $5 WHERE id = $1 AND state = $2 RETURNING id', [findingId, from, to, by, at]);
  return rows.length > 0;
}
