import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { normalizeNotePath } from '../../kernel/vault-path.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { compareTitles } from './lexical.ts';
import { noteAt, notesAt, type NoteRef } from './link-targets.ts';
import { decodeCursor, limitOf, type PageRequest } from './page.ts';
import { RELATED_CURSOR_PARTS, RelatedCollector } from './related-collector.ts';
import { RELATION_TYPES, type RelatedPage, type RelationType } from './relation-contract.ts';
import { incomingCandidates, outgoingEdges, type Edge } from './relation-edges.ts';
import { MAX_TYPE_CANDIDATES, classify, decisionNotes, edgeEvidence, isExplicit, lexicalCandidates, resolveEdges, sharedAssertions } from './relation-graph.ts';
import { inSlice } from './slice.ts';

/** Most notes a derived (two-hop) path goes through per call. */
export const MAX_DERIVED_VIAS = 50;
/** Most links of those notes followed per call. */
export const MAX_DERIVED_EDGES = 5000;

/** A find_related request: the note, which types (default all), and the page. */
export interface RelatedRequest extends PageRequest {
  path: string;
  types?: readonly RelationType[];
}

/** The note at `path` when it exists now and is in the slice; `not_found` otherwise (the same answer for both). */
export async function noteInSlice(db: Database, slice: ScopeSlice, path: string): Promise<NoteRef> {
  const note = await noteAt(db, slice.vaultId, normalizeNotePath(path));
  if (!note || !inSlice(slice, note.path, note.tagKeys)) throw new KgateError('not_found', 'No such note in this context scope.');
  return note;
}

/** A target naming a file that is not a note (`diagram.png`, `Board.canvas`): not a relation between notes. */
const ATTACHMENT = /\.(?!md$)[a-z][a-z0-9]{1,5}$/i;

const visible = (slice: ScopeSlice, note: NoteRef) => inSlice(slice, note.path, note.tagKeys);

/** The note's explicit, decision and evidence relations, both directions; returns every note directly linked either way. */
async function addEdgeRelations(db: Database, slice: ScopeSlice, note: NoteRef, related: RelatedCollector): Promise<{ outgoing: Edge[]; direct: Set<string>; targets: Awaited<ReturnType<typeof resolveEdges>> }> {
  const subjects = related.wants('decision');
  const [outgoing, incoming] = await Promise.all([outgoingEdges(db, slice.vaultId, [note], { subjects }), incomingCandidates(db, slice.vaultId, note, { subjects })]);
  const targets = await resolveEdges(db, slice.vaultId, [...outgoing.edges, ...incoming.edges]);
  const deciders = await decisionNotes(db, slice.vaultId, [note.path, ...incoming.holders.keys()]);
  const direct = new Set<string>();
  if (incoming.capped || targets.incomplete) for (const type of ['explicit', 'decision', 'evidence'] as const) related.limitReached(type);
  for (const edge of outgoing.edges) {
    const found = targets.targetsOf(edge);
    for (const { type, relation } of classify(edge, deciders.has(note.path))) {
      // A link to a note nobody wrote (yet) is withheld as missing; a subject that names no note is no relation.
      if (found.length === 0 && edge.kind !== 'subject' && !ATTACHMENT.test(edge.target)) related.withhold(type, `out\u0000${relation}\u0000missing\u0000${edge.target.toLowerCase()}`);
      for (const other of found) {
        if (other.path === note.path) continue;
        if (isExplicit(edge)) direct.add(other.path);
        if (visible(slice, other)) related.add(type, other, { direction: 'outgoing', relation }, [edgeEvidence(edge)]);
        else related.withhold(type, `out\u0000${relation}\u0000${other.path}`);
      }
    }
  }
  for (const edge of incoming.edges) {
    if (!targets.targetsOf(edge).some((t) => t.path === note.path)) continue;
    const holder = incoming.holders.get(edge.source)!;
    if (isExplicit(edge)) direct.add(holder.path);
    for (const { type, relation } of classify(edge, deciders.has(holder.path))) {
      if (visible(slice, holder)) related.add(type, holder, { direction: 'incoming', relation }, [edgeEvidence(edge)]);
      else related.withhold(type, `in\u0000${relation}\u0000${holder.path}`);
    }
  }
  return { outgoing: outgoing.edges, direct, targets };
}

/** Notes asserting about the same entities (type and id) as this note. */
async function addTemporal(db: Database, slice: ScopeSlice, note: NoteRef, related: RelatedCollector): Promise<void> {
  const shared = await sharedAssertions(db, slice.vaultId, note.path, { max: MAX_TYPE_CANDIDATES + 1 });
  if (shared.length > MAX_TYPE_CANDIDATES) related.limitReached('temporal');
  const kept = shared.slice(0, MAX_TYPE_CANDIDATES);
  const notes = await notesAt(db, slice.vaultId, kept.map((s) => s.path));
  for (const { path, record } of kept) {
    const other = notes.get(path);
    if (!other || !visible(slice, other)) {
      related.withhold('temporal', path);
      continue;
    }
    const evidence = { path, lines: record.evidence.lines, text: `${record.entityType} ${record.entityId}: ${record.property}`, recordId: record.id, blockId: null };
    related.add('temporal', other, { direction: 'mutual', relation: null, entities: [{ entityType: record.entityType, entityId: record.entityId }] }, [evidence]);
  }
}

/** Notes of the slice whose titles are lexically similar (docs/knowledge.md): labelled method "lexical". */
async function addSemantic(db: Database, slice: ScopeSlice, note: NoteRef, related: RelatedCollector): Promise<void> {
  const candidates = await lexicalCandidates(db, slice, note, MAX_TYPE_CANDIDATES + 1);
  if (candidates.length > MAX_TYPE_CANDIDATES) related.limitReached('semantic');
  for (const other of candidates.slice(0, MAX_TYPE_CANDIDATES)) {
    const match = compareTitles(note.title, other.title);
    if (!match.holds) continue;
    const rank = String(1000 - Math.round(match.score * 1000)).padStart(4, '0');
    const evidence = { path: other.path, lines: null, text: other.title, recordId: null, blockId: null };
    related.add('semantic', other, { direction: 'mutual', relation: null, method: 'lexical', score: match.score, sharedTerms: match.sharedTerms }, [evidence], rank);
  }
}

/**
 * Two explicit hops, note -> via -> other, where the note and the other are not directly linked either way. A path
 * through a note outside the slice, or to one, is counted as withheld, never shown.
 */
async function addDerived(db: Database, slice: ScopeSlice, note: NoteRef, related: RelatedCollector, first: { outgoing: Edge[]; direct: Set<string>; targets: Awaited<ReturnType<typeof resolveEdges>> }): Promise<void> {
  const firstHop = new Map<string, { via: NoteRef; edge: Edge }>();
  for (const edge of first.outgoing.filter(isExplicit)) {
    for (const via of first.targets.targetsOf(edge)) {
      if (via.path !== note.path && !firstHop.has(via.path)) firstHop.set(via.path, { via, edge });
    }
  }
  const vias = [...firstHop.values()].sort((a, b) => (a.via.path < b.via.path ? -1 : a.via.path > b.via.path ? 1 : 0));
  if (vias.length > MAX_DERIVED_VIAS) related.limitReached('derived');
  const followed = vias.slice(0, MAX_DERIVED_VIAS);
  const second = await outgoingEdges(db, slice.vaultId, followed.map((f) => f.via), { subjects: false, limit: MAX_DERIVED_EDGES });
  const targets = await resolveEdges(db, slice.vaultId, second.edges);
  if (second.capped || targets.incomplete) related.limitReached('derived');
  for (const edge of second.edges) {
    const { via, edge: hop } = firstHop.get(edge.source)!;
    for (const other of targets.targetsOf(edge)) {
      if (other.path === note.path || other.path === via.path || first.direct.has(other.path)) continue;
      const relation = edge.relation ?? edge.kind;
      if (!visible(slice, via) || !visible(slice, other)) related.withhold('derived', `${via.path}\u0000${other.path}`);
      else related.add('derived', other, { direction: 'outgoing', relation, via: { path: via.path, title: via.title } }, [edgeEvidence(hop), edgeEvidence(edge)]);
    }
  }
}

/**
 * The typed relationships of a note in a slice (docs/knowledge.md, "Relations and contradictions"): explicit,
 * decision, evidence, temporal, semantic (lexical) and derived, each bounded; relations to notes outside the slice
 * or missing are counted as withheld, never shown. `not_found` when the note is not in the slice now.
 */
export async function readRelated(db: Database, slice: ScopeSlice, request: RelatedRequest): Promise<RelatedPage> {
  const limit = limitOf(request);
  const after = request.cursor !== undefined ? decodeCursor(request.cursor, RELATED_CURSOR_PARTS) : undefined;
  const types = request.types && request.types.length > 0 ? request.types : RELATION_TYPES;
  for (const type of types) if (!RELATION_TYPES.includes(type)) throw new KgateError('invalid_request', `Unknown relation type: ${String(type)}.`);
  const note = await noteInSlice(db, slice, request.path);
  const related = new RelatedCollector(new Set(types));
  if (['explicit', 'decision', 'evidence', 'derived'].some((t) => related.wants(t as RelationType))) {
    const first = await addEdgeRelations(db, slice, note, related);
    if (related.wants('derived')) await addDerived(db, slice, note, related, first);
  }
  await Promise.all([
    related.wants('temporal') ? addTemporal(db, slice, note, related) : undefined,
    related.wants('semantic') ? addSemantic(db, slice, note, related) : undefined,
  ]);
  return related.page(note, limit, after);
}
