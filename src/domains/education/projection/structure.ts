/**
 * The structural rules of the projection, each checked on every relationship on its own: references to no entity,
 * endpoints of the wrong kinds, relationships no statement backs with provenance, and cycles where there must be none.
 */
import type { EntityRef, Finding } from './contract.ts';
import { cyclesOf } from './cycles.ts';
import { finding } from './findings.ts';
import { ACYCLIC_KINDS, isBacked, type Relationship } from './relationships.ts';

/** The endpoints of a relationship that resolve to entities. */
function resolvedEndpoints(r: Relationship): EntityRef[] {
  const refs: EntityRef[] = [];
  if (r.fromKind) refs.push({ kind: r.fromKind, id: r.from });
  if (r.toKind && !(r.to === r.from && r.fromKind)) refs.push({ kind: r.toKind, id: r.to });
  return refs;
}

/**
 * - `dangling-reference`: an endpoint names no entity (`missingIds` says which);
 * - `relationship-kind-mismatch`: both endpoints resolve, but the relationship kind does not go between their kinds;
 * - `relationship-unsourced`: no statement of the relationship names its provenance (it then counts for no rule);
 * - `relationship-cycle`: backed relationships of an acyclic kind (prerequisite-of, derived-from) that lead back to
 *   where they start, one finding per strongly connected component, naming its entities and the edges inside it.
 */
export function structuralFindings(relationships: readonly Relationship[]): Finding[] {
  const findings: Finding[] = [];
  for (const r of relationships) {
    const ref = { kind: r.kind, from: r.from, to: r.to };
    const entities = resolvedEndpoints(r);
    const missingIds = [...new Set([r.fromKind ? [] : [r.from], r.toKind ? [] : [r.to]].flat())];
    if (missingIds.length > 0) findings.push(finding('dangling-reference', { entities, relationships: [ref], missingIds }));
    else if (!r.wellFormed) findings.push(finding('relationship-kind-mismatch', { entities, relationships: [ref] }));
    if (!r.sourced) findings.push(finding('relationship-unsourced', { entities, relationships: [ref] }));
  }
  for (const kind of ACYCLIC_KINDS) {
    const edges = relationships.filter((r) => r.kind === kind && isBacked(r));
    for (const cycle of cyclesOf(edges.map((r) => [r.from, r.to] as const))) {
      const members = new Set(cycle);
      const inside = edges.filter((r) => members.has(r.from) && members.has(r.to));
      const kindOf = new Map(inside.flatMap((r) => [[r.from, r.fromKind!] as const, [r.to, r.toKind!] as const]));
      findings.push(
        finding('relationship-cycle', {
          entities: cycle.map((id) => ({ kind: kindOf.get(id)!, id })),
          relationships: inside.map((r) => ({ kind: r.kind, from: r.from, to: r.to })),
        }),
      );
    }
  }
  return findings;
}
