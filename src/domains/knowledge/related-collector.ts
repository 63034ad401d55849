import { encodeCursor } from './page.ts';
import type { NoteRef } from './link-targets.ts';
import { RELATION_TYPES, type RelatedNote, type RelatedPage, type RelationEvidence, type RelationType } from './relation-contract.ts';

/** Most evidence entries shown per related note. */
export const MAX_EVIDENCE_PER_RELATION = 5;
/** Parts of a find_related cursor: type, rank, path, direction and relation, via. */
export const RELATED_CURSOR_PARTS = 5;

/** What one relation adds besides its type, note and evidence. */
export type RelationFields = Pick<RelatedNote, 'direction' | 'relation'> &
  Partial<Pick<RelatedNote, 'method' | 'score' | 'sharedTerms' | 'entities' | 'via'>>;

const compareKeys = (a: readonly string[], b: readonly (string | number)[]): number => {
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i]!;
    const y = String(b[i]);
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
};

/**
 * Gathers the relations of one note, one item per type, direction, relation label, related note and (derived) note
 * in between, with up to MAX_EVIDENCE_PER_RELATION evidence entries each; counts what is withheld; and pages them in
 * a fixed order: by type, then (semantic) best score first, then path.
 */
export class RelatedCollector {
  private readonly entries = new Map<string, { item: RelatedNote; sort: string[] }>();
  private readonly hidden = new Map<RelationType, Set<string>>(RELATION_TYPES.map((t) => [t, new Set<string>()]));
  /** Types whose candidates were cut at a bound. */
  readonly limits = new Set<RelationType>();

  constructor(private readonly wanted: ReadonlySet<RelationType>) {}

  /** True when the request asks for this type. */
  wants(type: RelationType): boolean {
    return this.wanted.has(type);
  }

  /** Adds a relation (or evidence to one already added); `rank` orders items of one type before their paths. */
  add(type: RelationType, note: NoteRef, fields: RelationFields, evidence: readonly RelationEvidence[], rank = ''): void {
    if (!this.wanted.has(type)) return;
    const relation = fields.relation ?? '';
    const via = fields.via?.path ?? '';
    const key = [type, fields.direction, relation, note.path, via].join('\u0000');
    let entry = this.entries.get(key);
    if (!entry) {
      const item: RelatedNote = { type, path: note.path, title: note.title, ...fields, evidence: [], evidenceCount: 0 };
      entry = { item, sort: [String(RELATION_TYPES.indexOf(type)), rank, note.path, `${fields.direction}\u0000${relation}`, via] };
      this.entries.set(key, entry);
    } else if (fields.entities && entry.item.entities) {
      for (const entity of fields.entities) {
        if (!entry.item.entities.some((e) => e.entityType === entity.entityType && e.entityId === entity.entityId)) entry.item.entities.push(entity);
      }
    }
    for (const e of evidence) {
      const seen = entry.item.evidence.some((x) => x.path === e.path && x.text === e.text && x.lines?.[0] === e.lines?.[0] && x.recordId === e.recordId);
      if (seen) continue;
      entry.item.evidenceCount += 1;
      if (entry.item.evidence.length < MAX_EVIDENCE_PER_RELATION) entry.item.evidence.push(e);
    }
  }

  /** Counts a relation of this type to a note outside the slice or missing, once per distinct `key`. */
  withhold(type: RelationType, key: string): void {
    if (this.wanted.has(type)) this.hidden.get(type)!.add(key);
  }

  /** Marks a type whose candidates were cut at a bound. */
  limitReached(type: RelationType): void {
    if (this.wanted.has(type)) this.limits.add(type);
  }

  /** The page after `after` (a decoded cursor), at most `limit` items. */
  page(note: NoteRef, limit: number, after: ReadonlyArray<string | number> | undefined): RelatedPage {
    const sorted = [...this.entries.values()].sort((a, b) => compareKeys(a.sort, b.sort));
    const rest = after ? sorted.filter((e) => compareKeys(e.sort, after) > 0) : sorted;
    const kept = rest.slice(0, limit);
    const more = rest.length > limit;
    const withheldByType = Object.fromEntries(RELATION_TYPES.map((t) => [t, this.hidden.get(t)!.size])) as Record<RelationType, number>;
    return {
      path: note.path,
      title: note.title,
      related: kept.map((e) => e.item),
      withheld: Object.values(withheldByType).reduce((sum, n) => sum + n, 0),
      withheldByType,
      limitsReached: RELATION_TYPES.filter((t) => this.limits.has(t)),
      truncated: more || this.limits.size > 0,
      nextCursor: more ? encodeCursor(kept[kept.length - 1]!.sort) : null,
    };
  }
}
