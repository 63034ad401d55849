/**
 * The coverage rules of the projection, over backed relationships only: learning targets aligned to standards,
 * standards covered by artifacts, artifacts aligned and supported by current evidence.
 */
import type { Finding, ProjectionInput, ProjectionOutput } from './contract.ts';
import { finding } from './findings.ts';
import { byText } from './order.ts';
import { backedTargets, type Relationship } from './relationships.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What the coverage rules found and counted. */
export interface CoverageResult {
  findings: Finding[];
  coverage: ProjectionOutput['coverage'];
}

/** The set of `to`s reached from any of `froms`. */
function reached(targets: ReadonlyMap<string, readonly string[]>, froms: Iterable<string>): Set<string> {
  const out = new Set<string>();
  for (const from of froms) for (const to of targets.get(from) ?? []) out.add(to);
  return out;
}

/**
 * - A learning target is aligned when it aligns-to a standard; otherwise `target-unaligned`.
 * - A standard is covered when an artifact aligns-to or assesses it, or assesses a learning target aligned to it;
 *   otherwise `standard-uncovered`.
 * - An artifact is aligned when it aligns-to a standard or assesses a target or standard; otherwise `artifact-unaligned`.
 * - An artifact's evidence is what evidences it: none is `artifact-evidence-missing`; evidence all observed more than
 *   evidenceMaxAgeDays before asOf is `artifact-evidence-stale` (evidence observed after asOf counts as current).
 */
export function coverageFindings(input: ProjectionInput, relationships: readonly Relationship[], asOfMs: number, maxAgeDays: number): CoverageResult {
  const findings: Finding[] = [];
  const alignsTo = backedTargets(relationships, 'aligns-to');
  const assesses = backedTargets(relationships, 'assesses');
  const evidences = backedTargets(relationships, 'evidences');
  const targets = input.learningTargets ?? [];
  const standards = input.standards ?? [];
  const artifacts = input.artifacts ?? [];

  let alignedTargets = 0;
  for (const target of targets) {
    if ((alignsTo.get(target.id) ?? []).length > 0) alignedTargets += 1;
    else findings.push(finding('target-unaligned', { entities: [{ kind: 'learning-target', id: target.id }] }));
  }

  const artifactIds = artifacts.map((a) => a.id);
  const covered = reached(alignsTo, artifactIds);
  for (const id of reached(assesses, artifactIds)) {
    covered.add(id);
    for (const standard of alignsTo.get(id) ?? []) covered.add(standard);
  }
  let coveredStandards = 0;
  for (const standard of standards) {
    if (covered.has(standard.id)) coveredStandards += 1;
    else findings.push(finding('standard-uncovered', { entities: [{ kind: 'standard', id: standard.id }] }));
  }

  // Evidence per artifact: the inverse of `evidences`, newest observation first.
  const observedAt = new Map((input.evidence ?? []).map((e) => [e.id, Date.parse(e.observedAt)]));
  const newestOf = new Map<string, number>();
  for (const [evidenceId, tos] of evidences) {
    const at = observedAt.get(evidenceId)!;
    for (const to of tos) newestOf.set(to, Math.max(newestOf.get(to) ?? Number.NEGATIVE_INFINITY, at));
  }
  let alignedArtifacts = 0;
  let current = 0;
  for (const artifact of artifacts) {
    const entities = [{ kind: 'artifact' as const, id: artifact.id }];
    if ((alignsTo.get(artifact.id) ?? []).length > 0 || (assesses.get(artifact.id) ?? []).length > 0) alignedArtifacts += 1;
    else findings.push(finding('artifact-unaligned', { entities }));
    const newest = newestOf.get(artifact.id);
    if (newest === undefined) findings.push(finding('artifact-evidence-missing', { entities }));
    else if (asOfMs - newest > maxAgeDays * DAY_MS) findings.push(finding('artifact-evidence-stale', { entities, newestObservedAt: new Date(newest).toISOString() }));
    else current += 1;
  }

  return {
    findings,
    coverage: {
      learningTargets: { total: targets.length, aligned: alignedTargets },
      standards: { total: standards.length, covered: coveredStandards },
      artifacts: { total: artifacts.length, aligned: alignedArtifacts, withCurrentEvidence: current },
    },
  };
}

/** The ids of the courses each learning target is part of (backed), for the duplicate key of targets. */
export function coursesOfTargets(relationships: readonly Relationship[]): Map<string, string[]> {
  const courses = new Map<string, string[]>();
  for (const r of relationships) {
    if (r.kind !== 'part-of' || r.fromKind !== 'learning-target') continue;
    if (!r.sourced || !r.wellFormed) continue;
    courses.set(r.from, [...(courses.get(r.from) ?? []), r.to].sort(byText));
  }
  return courses;
}
