/**
 * The education projection (docs/education.md, "Projection"): a pure, deterministic evaluation of portable education
 * entities and their provenance-backed relationships. It reads nothing but its input and writes nothing: no trusted
 * memory, no governed mutation. The same input, in any order of its lists, answers the same output byte for byte.
 */
import { KgateError } from '../../../kernel/errors.ts';
import {
  FINDING_KINDS,
  PROJECTION_LIMITS,
  PROJECTION_RULES_VERSION,
  type EntityKind,
  type Finding,
  type FindingKind,
  type ProjectionInput,
  type ProjectionOutput,
} from './contract.ts';
import { coverageFindings, coursesOfTargets } from './coverage.ts';
import { duplicateFindings } from './duplicates.ts';
import { answeredFindings, decisionSignals, orderFindings } from './findings.ts';
import { mergeRelationships } from './relationships.ts';
import { structuralFindings } from './structure.ts';

/** The entity lists of the input with the kind of their entities and their field name. */
function entityLists(input: ProjectionInput): Array<[EntityKind, string, ReadonlyArray<{ id: string }>]> {
  return [
    ['course', 'courses', input.courses ?? []],
    ['standard', 'standards', input.standards ?? []],
    ['learning-target', 'learningTargets', input.learningTargets ?? []],
    ['artifact', 'artifacts', input.artifacts ?? []],
    ['evidence', 'evidence', input.evidence ?? []],
  ];
}

/** Most duplicate ids a refusal lists. */
const MAX_LISTED_ISSUES = 20;

/**
 * The bounds a schema cannot state, checked before any evaluation: the input's size as compact JSON
 * (`payload_too_large`), the number of entities of all kinds together, and ids unique across all entity lists
 * (`invalid_request`, with issues shaped as schema issues are). Answers each entity's kind by its id.
 */
export function checkProjectionInput(input: ProjectionInput): Map<string, EntityKind> {
  const bytes = Buffer.byteLength(JSON.stringify(input), 'utf8');
  if (bytes > PROJECTION_LIMITS.inputBytes) {
    throw new KgateError('payload_too_large', `The projection input is ${bytes} bytes as compact JSON; at most ${PROJECTION_LIMITS.inputBytes} are accepted.`, {
      limit: PROJECTION_LIMITS.inputBytes,
      size: bytes,
    });
  }
  const lists = entityLists(input);
  const total = lists.reduce((sum, [, , list]) => sum + list.length, 0);
  if (total > PROJECTION_LIMITS.entities) {
    const message = `Too many entities: ${total} in all lists together; at most ${PROJECTION_LIMITS.entities}.`;
    throw new KgateError('invalid_request', message, { issues: [{ path: '', message }], limit: PROJECTION_LIMITS.entities });
  }
  const kindOf = new Map<string, EntityKind>();
  const firstPath = new Map<string, string>();
  const issues: Array<{ path: string; message: string }> = [];
  for (const [kind, field, list] of lists) {
    list.forEach(({ id }, i) => {
      const path = `${field}.${i}.id`;
      const first = firstPath.get(id);
      if (first === undefined) {
        firstPath.set(id, path);
        kindOf.set(id, kind);
      } else if (issues.length < MAX_LISTED_ISSUES) {
        issues.push({ path, message: `id ${JSON.stringify(id)} is already the id of ${first}; ids are unique across all entity lists` });
      }
    });
  }
  if (issues.length > 0) {
    throw new KgateError('invalid_request', `Invalid body: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, { issues });
  }
  return kindOf;
}

/** Counts of findings, by severity and by kind (every kind listed, in FINDING_KINDS order). */
function totalsOf(findings: readonly Finding[]): ProjectionOutput['findingTotals'] {
  const byKind = Object.fromEntries(FINDING_KINDS.map((kind) => [kind, 0])) as Record<FindingKind, number>;
  const totals = { total: findings.length, error: 0, warning: 0, info: 0 };
  for (const f of findings) {
    byKind[f.kind] += 1;
    totals[f.severity] += 1;
  }
  return { ...totals, byKind };
}

/** Evaluates a validated projection input (after checkProjectionInput's checks, which it runs itself). */
export function evaluateProjection(input: ProjectionInput): ProjectionOutput {
  const kindOf = checkProjectionInput(input);
  const asOfMs = Date.parse(input.asOf);
  const maxAgeDays = input.evidenceMaxAgeDays ?? PROJECTION_LIMITS.defaultEvidenceMaxAgeDays;
  const statements = input.relationships ?? [];
  const relationships = mergeRelationships(statements, kindOf);
  const coverage = coverageFindings(input, relationships, asOfMs, maxAgeDays);
  const ordered = orderFindings([...structuralFindings(relationships), ...duplicateFindings(input, coursesOfTargets(relationships)), ...coverage.findings]);
  const { findings, truncated } = answeredFindings(ordered);
  const [courses, standards, learningTargets, artifacts, evidence] = entityLists(input).map(([, , list]) => list.length) as [number, number, number, number, number];
  return {
    rulesVersion: PROJECTION_RULES_VERSION,
    asOf: new Date(asOfMs).toISOString(),
    evidenceMaxAgeDays: maxAgeDays,
    counts: { courses, standards, learningTargets, artifacts, evidence, relationshipStatements: statements.length, relationships: relationships.length },
    coverage: coverage.coverage,
    findings,
    findingTotals: totalsOf(ordered),
    truncated,
    decisionSignals: decisionSignals(ordered, findings),
  };
}

