import type { Database } from '../../db/port.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { notesAt, resolverFor, type NoteRef } from './link-targets.ts';
import { decodeCursor, encodeCursor, limitOf, type KnowledgePage, type PageRequest } from './page.ts';
import type { DecisionRecord, RelationRecord } from './records.ts';
import type { SideDecision, Tension, TensionSide } from './relation-contract.ts';
import { inSlice, sliceCondition } from './slice.ts';

/** Most versions, and most change events, shown in one tension's history (the latest ones). */
export const MAX_TENSION_HISTORY = 20;
/** Most decisions shown per side of a tension. */
const MAX_SIDE_DECISIONS = 5;
/** Most tensions examined per call when resolved ones are left out (the page then ends early, truncated). */
export const MAX_TENSION_SCAN = 1000;

/** A get_contradictions request: resolved tensions are included unless `includeResolved` is false. */
export interface ContradictionsRequest extends PageRequest {
  includeResolved?: boolean;
}

/** A tension's place in the order: its holding note's path, then its record id. */
type TensionKey = [string, string];

/** The next tensions after `after` whose holding note is in the slice now. */
async function tensionKeys(db: Database, slice: ScopeSlice, after: TensionKey | undefined, count: number): Promise<TensionKey[]> {
  const params: unknown[] = [slice.vaultId];
  const where = [`EXISTS (SELECT 1 FROM knowledge_notes k WHERE k.vault_id = t.vault_id AND k.path = t.path)`, sliceCondition('t', slice, params)];
  if (after) {
    params.push(after[0], after[1]);
    where.push(`((t.path) COLLATE "C", (t.record_id) COLLATE "C") > ($${params.length - 1}::text, $${params.length}::text)`);
  }
  params.push(count);
  const rows = await db.query<{ path: string; record_id: string }>(
    `SELECT t.path, t.record_id FROM (
       SELECT DISTINCT v.vault_id, v.path, v.record_id FROM knowledge_record_versions v
        WHERE v.vault_id = $1 AND v.kind = 'relation' AND v.record ->> 'type' = 'contradicts') t
      WHERE ${where.join(' AND ')}
      ORDER BY (t.path) COLLATE "C", (t.record_id) COLLATE "C" LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => [r.path, r.record_id]);
}

interface VersionRow {
  [column: string]: unknown;
  record_id: string;
  record: RelationRecord;
  revision: string;
  known_from: Date | null;
  retired_at: Date | null;
  retired_revision: string | null;
}

interface EventRow {
  [column: string]: unknown;
  record_id: string;
  type: string;
  before_revision: string | null;
  after_revision: string | null;
  created_at: Date;
}

/** The latest MAX_TENSION_HISTORY + 1 rows per record of a table, oldest first. */
function latestPerRecord(table: string, columns: string): string {
  return `SELECT ${columns} FROM (
            SELECT x.*, row_number() OVER (PARTITION BY x.record_id ORDER BY x.seq DESC) AS rn
              FROM ${table} x WHERE x.vault_id = $1 AND x.record_id = ANY($2::text[])) h
           WHERE h.rn <= $3 ORDER BY h.record_id, h.seq`;
}

/** The decisions of some notes with what a person decided of each (a review holds for the decision as reviewed). */
async function sideDecisions(db: Database, vaultId: string, paths: readonly string[]): Promise<Map<string, SideDecision[]>> {
  const byPath = new Map<string, SideDecision[]>();
  if (paths.length === 0) return byPath;
  const rows = await db.query<{ path: string; record: DecisionRecord; verdict: 'confirmed' | 'rejected' | 'superseded' | null; reviewed_at: Date | null }>(
    `SELECT r.path, r.record, rv.verdict, rv.reviewed_at FROM knowledge_records r
       LEFT JOIN LATERAL (SELECT d.verdict, d.reviewed_at FROM decision_reviews d
                           WHERE d.vault_id = r.vault_id AND d.record_id = r.record_id AND d.record_hash = r.substance_hash
                           ORDER BY d.reviewed_at DESC, d.id DESC LIMIT 1) rv ON true
      WHERE r.vault_id = $1 AND r.kind = 'decision' AND r.path = ANY($2::text[])
      ORDER BY r.path COLLATE "C", r.record_id COLLATE "C"`,
    [vaultId, [...new Set(paths)]],
  );
  for (const row of rows) {
    const list = byPath.get(row.path) ?? [];
    list.push({
      id: row.record.id,
      title: row.record.title,
      status: row.verdict ?? 'candidate',
      statusInNote: row.record.statusInNote,
      review: row.verdict && row.reviewed_at ? { verdict: row.verdict, reviewedAt: row.reviewed_at.toISOString() } : null,
    });
    byPath.set(row.path, list);
  }
  return byPath;
}

/** A side's resolution when a person superseded or rejected every decision of it. */
function sideResolution(decisions: readonly SideDecision[], side: 'holder' | 'target'): Tension['resolution'][number] | undefined {
  if (decisions.length === 0 || !decisions.every((d) => d.status === 'superseded' || d.status === 'rejected')) return undefined;
  const at = decisions.map((d) => d.review?.reviewedAt ?? '').sort().at(-1) || null;
  return { reason: decisions.some((d) => d.status === 'superseded') ? 'side_superseded' : 'side_rejected', at, side };
}

const WITHHELD_SIDE: TensionSide = { withheld: true, path: null, title: null, targetAsWritten: null, decisions: [] };
const iso = (at: Date | null) => (at ? at.toISOString() : null);

/** The tensions of these keys, with both sides resolved now and their histories, in the keys' order. */
async function buildTensions(db: Database, slice: ScopeSlice, keys: readonly TensionKey[]): Promise<Tension[]> {
  const ids = keys.map(([, id]) => id);
  const bound = MAX_TENSION_HISTORY + 1;
  const versions = await db.query<VersionRow>(
    latestPerRecord('knowledge_record_versions', 'h.record_id, h.record, h.revision, h.known_from, h.retired_at, h.retired_revision'),
    [slice.vaultId, ids, bound],
  );
  const events = await db.query<EventRow>(latestPerRecord('knowledge_changes', 'h.record_id, h.type, h.before_revision, h.after_revision, h.created_at'), [slice.vaultId, ids, bound]);
  const holders = await notesAt(db, slice.vaultId, keys.map(([path]) => path));
  const latest = new Map(versions.map((v) => [v.record_id, v]));
  const resolver = await resolverFor(db, slice.vaultId, [...latest.values()].map((v) => v.record.target));
  const targets = new Map<string, NoteRef | undefined>(keys.map(([path, id]) => [id, resolver.resolve(latest.get(id)!.record.target, path)]));
  const visibleTargets = [...targets.values()].filter((t): t is NoteRef => t !== undefined && inSlice(slice, t.path, t.tagKeys));
  const decisions = await sideDecisions(db, slice.vaultId, [...keys.map(([path]) => path), ...visibleTargets.map((t) => t.path)]);
  return keys.map(([path, id]) => {
    const mine = versions.filter((v) => v.record_id === id);
    const myEvents = events.filter((e) => e.record_id === id);
    const holder = holders.get(path)!;
    const target = targets.get(id);
    const targetVisible = target !== undefined && visibleTargets.includes(target);
    const holderDecisions = decisions.get(path) ?? [];
    const targetDecisions = targetVisible ? (decisions.get(target.path) ?? []) : [];
    const resolution: Tension['resolution'] = [];
    const last = mine[mine.length - 1]!;
    if (last.retired_at !== null) resolution.push({ reason: 'relation_removed', at: iso(last.retired_at), side: null });
    const holderEnd = sideResolution(holderDecisions, 'holder');
    if (holderEnd) resolution.push(holderEnd);
    const targetEnd = sideResolution(targetDecisions, 'target');
    if (targetEnd) resolution.push(targetEnd);
    return {
      id,
      state: resolution.length > 0 ? 'resolved' : 'open',
      resolution,
      holder: { withheld: false, path, title: holder.title, targetAsWritten: null, decisions: holderDecisions.slice(0, MAX_SIDE_DECISIONS) },
      target: targetVisible
        ? { withheld: false, path: target.path, title: target.title, targetAsWritten: last.record.target, decisions: targetDecisions.slice(0, MAX_SIDE_DECISIONS) }
        : WITHHELD_SIDE,
      history: {
        versions: mine.slice(-MAX_TENSION_HISTORY).map((v) => ({ revision: v.revision, knownFrom: iso(v.known_from), retiredAt: iso(v.retired_at), retiredRevision: v.retired_revision })),
        events: myEvents.slice(-MAX_TENSION_HISTORY).map((e) => ({ type: e.type, beforeRevision: e.before_revision, afterRevision: e.after_revision, recordedAt: e.created_at.toISOString() })),
        truncated: mine.length > MAX_TENSION_HISTORY || myEvents.length > MAX_TENSION_HISTORY,
      },
    };
  });
}

/**
 * Recorded tensions in a slice (docs/knowledge.md, "Relations and contradictions"): every `contradicts` relation
 * whose holding note is in the slice now, present or removed, with both sides as they are now and the relation's
 * whole history; a target outside the slice or missing is withheld. Ordered by holding note, then record id.
 */
export async function readContradictions(db: Database, slice: ScopeSlice, request: ContradictionsRequest): Promise<KnowledgePage<Tension>> {
  const limit = limitOf(request);
  let position = request.cursor !== undefined ? (decodeCursor(request.cursor, 2).map(String) as TensionKey) : undefined;
  const kept: Array<{ tension: Tension; key: TensionKey }> = [];
  let exhausted = false;
  let scanned = 0;
  while (kept.length <= limit && !exhausted && scanned < MAX_TENSION_SCAN) {
    const keys = await tensionKeys(db, slice, position, limit + 1);
    exhausted = keys.length < limit + 1;
    scanned += keys.length;
    if (keys.length === 0) break;
    const tensions = await buildTensions(db, slice, keys);
    tensions.forEach((tension, k) => {
      if (request.includeResolved !== false || tension.state === 'open') kept.push({ tension, key: keys[k]! });
    });
    position = keys[keys.length - 1];
  }
  const more = kept.length > limit;
  const page = kept.slice(0, limit);
  // Stopped by the scan bound before the end: the next page starts after the last tension examined.
  const nextKey = more ? page[page.length - 1]!.key : !exhausted ? position : undefined;
  return { items: page.map((k) => k.tension), truncated: nextKey !== undefined, nextCursor: nextKey ? encodeCursor(nextKey) : null };
}
