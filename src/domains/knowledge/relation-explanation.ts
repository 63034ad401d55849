import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { LEXICAL_THRESHOLD, compareTitles } from './lexical.ts';
import type { NoteRef } from './link-targets.ts';
import { RelatedCollector } from './related-collector.ts';
import { RELATION_TYPES, type NoteFreshness, type RelatedNote, type RelationshipExplanation, type RelationType } from './relation-contract.ts';
import { outgoingEdges, type Edge } from './relation-edges.ts';
import { MAX_TYPE_CANDIDATES, classify, decisionNotes, edgeEvidence, isExplicit, resolveEdges, sharedAssertions } from './relation-graph.ts';
import { MAX_DERIVED_EDGES, MAX_DERIVED_VIAS, noteInSlice } from './relation-reads.ts';
import { inSlice } from './slice.ts';

/** Longest quote of an evidence entry (characters). */
const MAX_QUOTE = 500;

/** A get_relationship_explanation request. */
export interface ExplanationRequest {
  from: string;
  to: string;
  type: RelationType;
}

/**
 * The edges written between two notes, either way, added to `related` as seen from `from`; true when an explicit
 * edge links them.
 */
async function addPairEdges(db: Database, vaultId: string, from: NoteRef, to: NoteRef, related: RelatedCollector): Promise<{ linked: boolean; incomplete: boolean }> {
  const { edges, capped } = await outgoingEdges(db, vaultId, [from, to], { subjects: true });
  const targets = await resolveEdges(db, vaultId, edges);
  const deciders = await decisionNotes(db, vaultId, [from.path, to.path]);
  let linked = false;
  for (const edge of edges) {
    const other = edge.source === from.path ? to : from;
    if (!targets.targetsOf(edge).some((t) => t.path === other.path)) continue;
    linked ||= isExplicit(edge);
    const direction = edge.source === from.path ? 'outgoing' : 'incoming';
    for (const { type, relation } of classify(edge, deciders.has(edge.source))) related.add(type, to, { direction, relation }, [edgeEvidence(edge)]);
  }
  return { linked, incomplete: capped || targets.incomplete };
}

/** Paths from -> via -> to; those through notes outside the slice (or missing) are only counted. */
async function addDerivedPaths(db: Database, slice: ScopeSlice, from: NoteRef, to: NoteRef, related: RelatedCollector): Promise<{ withheld: number; truncated: boolean }> {
  const { edges: firstEdges, capped: firstCapped } = await outgoingEdges(db, slice.vaultId, [from], { subjects: false });
  const firstTargets = await resolveEdges(db, slice.vaultId, firstEdges.filter(isExplicit));
  const hops = new Map<string, { via: NoteRef; edge: Edge }>();
  for (const edge of firstEdges.filter(isExplicit)) {
    for (const via of firstTargets.targetsOf(edge)) if (via.path !== from.path && via.path !== to.path && !hops.has(via.path)) hops.set(via.path, { via, edge });
  }
  const vias = [...hops.values()].sort((a, b) => (a.via.path < b.via.path ? -1 : 1)).slice(0, MAX_DERIVED_VIAS);
  const second = await outgoingEdges(db, slice.vaultId, vias.map((h) => h.via), { subjects: false, limit: MAX_DERIVED_EDGES });
  const secondTargets = await resolveEdges(db, slice.vaultId, second.edges);
  const hidden = new Set<string>();
  for (const edge of second.edges) {
    if (!secondTargets.targetsOf(edge).some((t) => t.path === to.path)) continue;
    const { via, edge: hop } = hops.get(edge.source)!;
    if (!inSlice(slice, via.path, via.tagKeys)) hidden.add(via.path);
    else related.add('derived', to, { direction: 'outgoing', relation: edge.relation ?? edge.kind, via: { path: via.path, title: via.title } }, [edgeEvidence(hop), edgeEvidence(edge)]);
  }
  const truncated = firstCapped || hops.size > MAX_DERIVED_VIAS || second.capped || firstTargets.incomplete || secondTargets.incomplete;
  return { withheld: hidden.size, truncated };
}

/** Fills each evidence entry with its lines as the note is now. */
async function quote(db: Database, vaultId: string, relations: RelatedNote[]): Promise<void> {
  const entries = relations.flatMap((r) => r.evidence).filter((e) => e.lines !== null);
  if (entries.length === 0) return;
  const rows = await db.query<{ ord: number; quote: string }>(
    `SELECT q.ord::int AS ord, left(array_to_string((string_to_array(n.content, E'\\n'))[q.line_from:q.line_to], E'\\n'), $5) AS quote
       FROM unnest($2::text[], $3::int[], $4::int[]) WITH ORDINALITY AS q(path, line_from, line_to, ord)
       JOIN notes n ON n.vault_id = $1 AND n.path COLLATE "C" = q.path`,
    [vaultId, entries.map((e) => e.path), entries.map((e) => e.lines![0]), entries.map((e) => e.lines![1]), MAX_QUOTE],
  );
  for (const row of rows) entries[row.ord - 1]!.quote = row.quote;
}

/** How current each note and its compiled knowledge are (see NoteFreshnessSchema). */
async function freshness(db: Database, vaultId: string, notes: readonly NoteRef[]): Promise<NoteFreshness[]> {
  const rows = await db.query<{ path: string; first_seen_at: Date | null; compiled_revision: string | null; compiled_at: Date | null }>(
    `SELECT n.path, o.first_seen_at, k.revision AS compiled_revision, k.compiled_at
       FROM notes n
       LEFT JOIN knowledge_observations o ON o.vault_id = n.vault_id AND o.path = n.path AND o.revision = n.content_hash
       LEFT JOIN knowledge_notes k ON k.vault_id = n.vault_id AND k.path = n.path
      WHERE n.vault_id = $1 AND n.path COLLATE "C" = ANY($2::text[])`,
    [vaultId, notes.map((n) => n.path)],
  );
  const byPath = new Map(rows.map((r) => [r.path, r]));
  return notes.map((note) => {
    const row = byPath.get(note.path);
    const current = row?.compiled_revision === note.revision;
    const storedAt = row?.first_seen_at ?? (current ? (row?.compiled_at ?? null) : null);
    return {
      path: note.path,
      title: note.title,
      revision: note.revision,
      storedAt: storedAt ? storedAt.toISOString() : null,
      storedAtSource: row?.first_seen_at ? 'observation_receipt' : storedAt ? 'compiled_at' : null,
      compiledRevision: row?.compiled_revision ?? null,
      knowledgeCurrent: current,
    };
  });
}

/**
 * Whether a typed relation holds now between two notes of the slice, with its evidence quoted from the notes as they
 * are now and the freshness of both (docs/knowledge.md, "Relations and contradictions"). `not_found` when either
 * note is outside the slice or missing: the same answer for both.
 */
export async function explainRelationship(db: Database, slice: ScopeSlice, request: ExplanationRequest): Promise<RelationshipExplanation> {
  if (!RELATION_TYPES.includes(request.type)) throw new KgateError('invalid_request', `Unknown relation type: ${String(request.type)}.`);
  const from = await noteInSlice(db, slice, request.from);
  const to = await noteInSlice(db, slice, request.to);
  if (from.path === to.path) throw new KgateError('invalid_request', 'from and to are the same note.');
  const related = new RelatedCollector(new Set([request.type]));
  let lexical: RelationshipExplanation['lexical'] = null;
  let directlyLinked: boolean | null = null;
  let withheld = 0;
  let truncated = false;
  if (request.type === 'temporal') {
    const shared = await sharedAssertions(db, slice.vaultId, from.path, { max: MAX_TYPE_CANDIDATES, others: [to.path] });
    for (const { path, record } of shared) {
      const evidence = { path, lines: record.evidence.lines, text: `${record.entityType} ${record.entityId}: ${record.property}`, recordId: record.id, blockId: null };
      related.add('temporal', to, { direction: 'mutual', relation: null, entities: [{ entityType: record.entityType, entityId: record.entityId }] }, [evidence]);
    }
  } else if (request.type === 'semantic') {
    const match = compareTitles(from.title, to.title);
    lexical = { method: 'lexical', score: match.score, threshold: LEXICAL_THRESHOLD, sharedTerms: match.sharedTerms };
    if (match.holds) {
      const evidence = { path: to.path, lines: null, text: to.title, recordId: null, blockId: null };
      related.add('semantic', to, { direction: 'mutual', relation: null, method: 'lexical', score: match.score, sharedTerms: match.sharedTerms }, [evidence]);
    }
  } else if (request.type === 'derived') {
    // A derived relation holds only between notes that are not directly linked.
    const pair = await addPairEdges(db, slice.vaultId, from, to, new RelatedCollector(new Set()));
    directlyLinked = pair.linked;
    if (!pair.linked) ({ withheld, truncated } = await addDerivedPaths(db, slice, from, to, related));
  } else {
    truncated = (await addPairEdges(db, slice.vaultId, from, to, related)).incomplete;
  }
  const relations = related.page(from, Number.MAX_SAFE_INTEGER, undefined).related;
  await quote(db, slice.vaultId, relations);
  const [fromFresh, toFresh] = await freshness(db, slice.vaultId, [from, to]);
  return { type: request.type, from: fromFresh!, to: toFresh!, holds: relations.length > 0, relations, lexical, directlyLinked, withheld, truncated };
}
