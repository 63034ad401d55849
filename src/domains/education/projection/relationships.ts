/**
 * Relationships as the projection evaluates them: statements of the same (kind, from, to) merged into one
 * relationship, its endpoints resolved to entities, the kinds of its endpoints checked, and whether any statement
 * backs it with provenance. Only backed relationships (sourced, resolved, of allowed kinds) count for the rules.
 */
import type { EntityKind, RelationshipKind, RelationshipStatement } from './contract.ts';
import { byText } from './order.ts';

/** Which entity kinds each relationship kind may go from and to (a superset of the education domain pack's). */
export const RELATIONSHIP_ENDPOINTS: Readonly<Record<RelationshipKind, { from: readonly EntityKind[]; to: readonly EntityKind[] }>> = Object.freeze({
  'aligns-to': { from: ['course', 'learning-target', 'artifact'], to: ['standard'] },
  assesses: { from: ['artifact'], to: ['learning-target', 'standard'] },
  evidences: { from: ['evidence'], to: ['artifact', 'learning-target', 'standard'] },
  'part-of': { from: ['learning-target', 'artifact'], to: ['course'] },
  'prerequisite-of': { from: ['learning-target', 'standard'], to: ['learning-target', 'standard'] },
  'derived-from': { from: ['artifact'], to: ['artifact'] },
  'crosswalks-to': { from: ['standard'], to: ['standard'] },
});

/** Relationship kinds that must not form cycles: a prerequisite of itself, an artifact derived from itself. */
export const ACYCLIC_KINDS: readonly RelationshipKind[] = ['prerequisite-of', 'derived-from'];

/** One relationship: every statement of its (kind, from, to) merged. */
export interface Relationship {
  kind: RelationshipKind;
  from: string;
  to: string;
  /** The kind of the entity `from` names; undefined when no entity has that id. */
  fromKind: EntityKind | undefined;
  toKind: EntityKind | undefined;
  /** At least one statement names its provenance. */
  sourced: boolean;
  /** Both endpoints resolve and their kinds are allowed for the relationship's kind. */
  wellFormed: boolean;
}

/** True when a relationship counts for the rules: sourced and well formed. */
export function isBacked(relationship: Relationship): boolean {
  return relationship.sourced && relationship.wellFormed;
}

/** Merges statements into relationships, sorted by kind, from, to (so their order never matters). */
export function mergeRelationships(statements: readonly RelationshipStatement[], kindOf: ReadonlyMap<string, EntityKind>): Relationship[] {
  const merged = new Map<string, Relationship>();
  for (const statement of statements) {
    // Ids hold no control characters (the schema refuses them), so U+0000 cannot occur inside a part of the key.
    const key = `${statement.kind}\u0000${statement.from}\u0000${statement.to}`;
    const known = merged.get(key);
    const sourced = statement.provenance !== undefined && statement.provenance !== null;
    if (known) {
      known.sourced ||= sourced;
      continue;
    }
    const fromKind = kindOf.get(statement.from);
    const toKind = kindOf.get(statement.to);
    const allowed = RELATIONSHIP_ENDPOINTS[statement.kind];
    const wellFormed = fromKind !== undefined && toKind !== undefined && allowed.from.includes(fromKind) && allowed.to.includes(toKind);
    merged.set(key, { kind: statement.kind, from: statement.from, to: statement.to, fromKind, toKind, sourced, wellFormed });
  }
  return [...merged.values()].sort((a, b) => byText(a.kind, b.kind) || byText(a.from, b.from) || byText(a.to, b.to));
}

/** The backed relationships of one kind, from each `from` to its `to`s. */
export function backedTargets(relationships: readonly Relationship[], kind: RelationshipKind): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  for (const r of relationships) {
    if (r.kind !== kind || !isBacked(r)) continue;
    const list = targets.get(r.from);
    if (list) list.push(r.to);
    else targets.set(r.from, [r.to]);
  }
  return targets;
}
