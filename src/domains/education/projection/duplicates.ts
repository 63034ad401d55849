/**
 * Duplicate entities: entities of one kind that name the same thing under different ids. Each kind has a natural
 * key, compared after normalization; entities without the fields of their key are never duplicates.
 */
import type { EntityKind, Finding, ProjectionInput } from './contract.ts';
import { finding } from './findings.ts';
import { byText } from './order.ts';

/**
 * Text as compared for duplicates: Unicode NFKC, lower case (locale-independent), runs of white space as one space,
 * trimmed. "8.EE.A.1" and " 8.ee.a.1 " are the same code; punctuation still counts.
 */
export function normalizedText(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/** An entity with the natural key of its kind, or no key. */
interface Keyed {
  id: string;
  key: string | undefined;
}

/**
 * The natural keys (docs/education.md): a course by its code (or its title without one) and its term; a standard by
 * its framework and code; a learning target by its statement and the courses it is part of; an artifact or a piece of
 * evidence by its content hash.
 */
function keyedEntities(input: ProjectionInput, coursesOfTarget: ReadonlyMap<string, readonly string[]>): Array<[EntityKind, Keyed[]]> {
  const key = (...parts: string[]) => JSON.stringify(parts);
  return [
    ['course', (input.courses ?? []).map((c) => ({ id: c.id, key: key(normalizedText(c.code ?? c.title), c.code ? 'code' : 'title', normalizedText(c.term ?? '')) }))],
    ['standard', (input.standards ?? []).map((s) => ({ id: s.id, key: key(normalizedText(s.framework), normalizedText(s.code)) }))],
    [
      'learning-target',
      (input.learningTargets ?? []).map((t) => ({ id: t.id, key: key(normalizedText(t.statement), ...[...(coursesOfTarget.get(t.id) ?? [])].sort(byText)) })),
    ],
    ['artifact', (input.artifacts ?? []).map((a) => ({ id: a.id, key: a.contentHash }))],
    ['evidence', (input.evidence ?? []).map((e) => ({ id: e.id, key: e.contentHash }))],
  ];
}

/** One `duplicate-entity` finding per group of two or more entities of a kind with the same natural key. */
export function duplicateFindings(input: ProjectionInput, coursesOfTarget: ReadonlyMap<string, readonly string[]>): Finding[] {
  const findings: Finding[] = [];
  for (const [kind, entities] of keyedEntities(input, coursesOfTarget)) {
    const groups = new Map<string, string[]>();
    for (const { id, key } of entities) {
      if (key === undefined) continue;
      const group = groups.get(key);
      if (group) group.push(id);
      else groups.set(key, [id]);
    }
    for (const ids of groups.values()) {
      if (ids.length > 1) findings.push(finding('duplicate-entity', { entities: ids.map((id) => ({ kind, id })) }));
    }
  }
  return findings;
}
