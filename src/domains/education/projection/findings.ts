/**
 * Findings and decision signals: what each finding kind means for severity and for the human decision it hands off,
 * the stable identity of a finding, and the one order findings and signals are answered in.
 */
import { sha256Hex } from '../../../kernel/hashing.ts';
import {
  FINDING_KINDS,
  PROJECTION_LIMITS,
  type DecisionSignal,
  type EntityRef,
  type Finding,
  type FindingKind,
  type RelationshipRef,
  type Severity,
  type Signal,
} from './contract.ts';
import { byText, byTexts } from './order.ts';

/** The severity of each finding kind and the decision signal it hands to a person. */
export const FINDING_RULES: Readonly<Record<FindingKind, { severity: Severity; signal: DecisionSignal }>> = Object.freeze({
  'dangling-reference': { severity: 'error', signal: 'resolve-reference' },
  'relationship-kind-mismatch': { severity: 'error', signal: 'review-relationship' },
  'relationship-cycle': { severity: 'error', signal: 'break-cycle' },
  'relationship-unsourced': { severity: 'warning', signal: 'confirm-provenance' },
  'duplicate-entity': { severity: 'warning', signal: 'review-duplicate' },
  'target-unaligned': { severity: 'warning', signal: 'align-target' },
  'standard-uncovered': { severity: 'warning', signal: 'add-artifact' },
  'artifact-evidence-missing': { severity: 'warning', signal: 'add-evidence' },
  'artifact-evidence-stale': { severity: 'warning', signal: 'refresh-evidence' },
  'artifact-unaligned': { severity: 'info', signal: 'align-artifact' },
});

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { error: 0, warning: 1, info: 2 };
const KIND_RANK = new Map<FindingKind, number>(FINDING_KINDS.map((kind, i) => [kind, i]));

/** What a finding concerns besides its kind. */
export interface FindingSubject {
  entities: readonly EntityRef[];
  relationships?: readonly RelationshipRef[];
  missingIds?: readonly string[];
  newestObservedAt?: string;
}

/** The first 32 hex digits of the SHA-256 of a JSON value's UTF-8 text, with a prefix. */
function digest(prefix: string, value: unknown): string {
  return `${prefix}${sha256Hex(JSON.stringify(value)).slice(0, 32)}`;
}

/**
 * The stable identity of a finding (docs/education.md): `fnd_` and the first 32 hex digits of the SHA-256 of the JSON
 * text `[kind, [entity ids, sorted], [[relationship kind, from, to], sorted]]`. The same situation has the same id in
 * every call, whatever the order of the input.
 */
export function findingId(kind: FindingKind, entityIds: readonly string[], relationships: readonly RelationshipRef[]): string {
  return digest('fnd_', [kind, entityIds, relationships.map((r) => [r.kind, r.from, r.to])]);
}

/** Makes a finding of a kind: sorts what it concerns, and derives its id, severity and signal. */
export function finding(kind: FindingKind, subject: FindingSubject): Finding {
  const entities = [...subject.entities].sort((a, b) => byText(a.id, b.id));
  const relationships = [...(subject.relationships ?? [])]
    .map(({ kind: k, from, to }) => ({ kind: k, from, to }))
    .sort((a, b) => byText(a.kind, b.kind) || byText(a.from, b.from) || byText(a.to, b.to));
  const { severity, signal } = FINDING_RULES[kind];
  return {
    id: findingId(
      kind,
      entities.map((e) => e.id),
      relationships,
    ),
    kind,
    severity,
    signal,
    entities: entities.map(({ kind: k, id }) => ({ kind: k, id })),
    relationships,
    ...(subject.missingIds ? { missingIds: [...subject.missingIds].sort(byText) } : {}),
    ...(subject.newestObservedAt ? { newestObservedAt: subject.newestObservedAt } : {}),
  };
}

/** What orders findings after severity and kind: what they concern, then their id. */
function sortKey(f: Finding): string[] {
  return [...f.entities.map((e) => e.id), '\u0000', ...f.relationships.flatMap((r) => [r.kind, r.from, r.to]), '\u0000', f.id];
}

/** Sorts findings: by severity (errors first), by kind in FINDING_KINDS order, then by what they concern. */
export function orderFindings(findings: readonly Finding[]): Finding[] {
  // Keys made once, not at each of the n log n comparisons.
  const keyed = findings.map((f) => ({ f, rank: SEVERITY_RANK[f.severity] * FINDING_KINDS.length + KIND_RANK.get(f.kind)!, key: sortKey(f) }));
  keyed.sort((a, b) => a.rank - b.rank || byTexts(a.key, b.key));
  return keyed.map(({ f }) => f);
}

/** The findings answered: the first PROJECTION_LIMITS.findings of the ordered list. */
export function answeredFindings(ordered: readonly Finding[]): { findings: Finding[]; truncated: boolean } {
  return { findings: ordered.slice(0, PROJECTION_LIMITS.findings), truncated: ordered.length > PROJECTION_LIMITS.findings };
}

/**
 * The decision-signal handoff: one signal per kind of human decision that some finding asks for, in the order of
 * FINDING_KINDS, each naming its findings. A signal names what a person may decide; it decides nothing.
 */
export function decisionSignals(ordered: readonly Finding[], answered: readonly Finding[]): Signal[] {
  const answeredIds = new Set(answered.map((f) => f.id));
  const bySignal = new Map<DecisionSignal, Finding[]>();
  for (const kind of FINDING_KINDS) bySignal.set(FINDING_RULES[kind].signal, []);
  for (const f of ordered) bySignal.get(f.signal)!.push(f);
  const signals: Signal[] = [];
  for (const [signal, findings] of bySignal) {
    if (findings.length === 0) continue;
    const severity = findings.map((f) => f.severity).sort((a, b) => SEVERITY_RANK[a] - SEVERITY_RANK[b])[0]!;
    signals.push({
      id: digest('sig_', [signal, findings.map((f) => f.id).sort(byText)]),
      signal,
      severity,
      findingCount: findings.length,
      findingIds: findings.filter((f) => answeredIds.has(f.id)).map((f) => f.id),
    });
  }
  return signals;
}
