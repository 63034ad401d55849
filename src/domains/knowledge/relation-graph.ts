import type { Database } from '../../db/port.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import { notesTitled, resolverFor, type NoteRef } from './link-targets.ts';
import { titleTerms } from './lexical.ts';
import type { RelationEvidence, RelationType } from './relation-contract.ts';
import type { Edge } from './relation-edges.ts';
import type { AssertionRecord } from './records.ts';
import { sliceCondition } from './slice.ts';

// What the relation reads share: which types an edge makes, where edges point, and the candidates of the
// temporal and semantic types (docs/knowledge.md, "Relations and contradictions").

/** Most candidates of the temporal and semantic types read per note. */
export const MAX_TYPE_CANDIDATES = 1000;

/** The types (and their relation labels) an edge makes, given whether its holder is a decision note. */
export function classify(edge: Edge, holderIsDecision: boolean): Array<{ type: RelationType; relation: string }> {
  if (edge.kind === 'subject') return [{ type: 'decision', relation: 'subject' }];
  const types: Array<{ type: RelationType; relation: string }> = [{ type: 'explicit', relation: edge.relation ?? edge.kind }];
  if (edge.kind === 'relation' && holderIsDecision && (edge.relation === 'supersedes' || edge.relation === 'contradicts')) {
    types.push({ type: 'decision', relation: edge.relation });
  }
  if (edge.blockId !== null) types.push({ type: 'evidence', relation: 'cites_block' });
  return types;
}

/** True for the edges that count as explicit relations: links, embeds and typed relations (not subjects). */
export const isExplicit = (edge: Edge): boolean => edge.kind !== 'subject';

/** Where an edge is written, as relation evidence. */
export function edgeEvidence(edge: Edge): RelationEvidence {
  return { path: edge.source, lines: edge.lines, text: edge.text, recordId: edge.recordId, blockId: edge.blockId };
}

/** Where edges point, against the vault as it is now. */
export interface EdgeTargets {
  /** The notes an edge points at (its own note, for a link into itself): the resolved link, or for a subject the notes of that title. */
  targetsOf(edge: Edge): NoteRef[];
  /** True when resolution read fewer candidates than exist (see MAX_RESOLUTION_CANDIDATES). */
  incomplete: boolean;
}

/**
 * Resolves a batch of edges: links and relations as the graph resolves WikiLinks; a decision's subject as a link
 * when it resolves, else to the notes whose title it is (case-insensitively).
 */
export async function resolveEdges(db: Database, vaultId: string, edges: readonly Edge[]): Promise<EdgeTargets> {
  const resolver = await resolverFor(db, vaultId, edges.map((e) => e.target));
  const byTitle = edges.filter((e) => e.kind === 'subject' && resolver.resolve(e.target, e.source) === undefined).map((e) => e.target);
  const titled = await notesTitled(db, vaultId, byTitle);
  return {
    incomplete: resolver.incomplete,
    targetsOf(edge) {
      const resolved = resolver.resolve(edge.target, edge.source);
      if (resolved) return [resolved];
      return edge.kind === 'subject' ? (titled.get(edge.target.trim().toLowerCase()) ?? []) : [];
    },
  };
}

/** Which of these notes hold a decision (frontmatter `type: decision` or a decision callout). */
export async function decisionNotes(db: Database, vaultId: string, paths: readonly string[]): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const rows = await db.query<{ path: string }>(
    `SELECT DISTINCT r.path FROM knowledge_records r WHERE r.vault_id = $1 AND r.kind = 'decision' AND r.path = ANY($2::text[])`,
    [vaultId, [...new Set(paths)]],
  );
  return new Set(rows.map((r) => r.path));
}

/** A current assertion of another note about an entity this note asserts about too. */
export interface SharedAssertion {
  path: string;
  record: AssertionRecord;
}

/**
 * Current assertions of other notes about the entities (type and id) the note at `path` asserts about, by path; at
 * most `max` (the entity index of knowledge_record_versions finds them). `others` narrows them to some notes.
 */
export async function sharedAssertions(
  db: Database,
  vaultId: string,
  path: string,
  options: { max: number; others?: readonly string[] },
): Promise<SharedAssertion[]> {
  const params: unknown[] = [vaultId, path, options.max];
  let narrow = '';
  if (options.others) {
    params.push(options.others);
    narrow = `AND v.path = ANY($${params.length}::text[])`;
  }
  return db.query<SharedAssertion & { [column: string]: unknown }>(
    `SELECT v.path, v.record FROM knowledge_record_versions v
      WHERE v.vault_id = $1 AND v.kind = 'assertion' AND v.retired_at IS NULL AND v.path <> $2 ${narrow}
        AND (v.record ->> 'entityType', v.record ->> 'entityId') IN (
              SELECT m.record ->> 'entityType', m.record ->> 'entityId' FROM knowledge_records m
               WHERE m.vault_id = $1 AND m.path = $2 AND m.kind = 'assertion')
      ORDER BY v.path COLLATE "C", v.record_id COLLATE "C" LIMIT $3`,
    params,
  );
}

/**
 * Notes of the slice (other than `note`) whose title contains one of the terms of the note's title: the candidates
 * of lexical similarity, in path order, at most `max`.
 */
export async function lexicalCandidates(db: Database, slice: ScopeSlice, note: NoteRef, max: number): Promise<NoteRef[]> {
  const terms = titleTerms(note.title);
  if (terms.length === 0) return [];
  // Terms are letters and digits only, so they hold no LIKE wildcard.
  const params: unknown[] = [slice.vaultId, note.id, terms.map((t) => `%${t}%`)];
  const condition = sliceCondition('n', slice, params);
  params.push(max);
  const rows = await db.query<{ id: string; path: string; title: string; revision: string; tag_keys: string[] }>(
    `SELECT n.id, n.path, n.title, n.content_hash AS revision, n.tag_keys FROM notes n
      WHERE n.vault_id = $1 AND n.id <> $2 AND lower(n.title) LIKE ANY($3::text[]) AND ${condition}
      ORDER BY n.path COLLATE "C" LIMIT $${params.length}`,
    params,
  );
  return rows.map((r) => ({ id: r.id, path: r.path, title: r.title, revision: r.revision, tagKeys: r.tag_keys }));
}
