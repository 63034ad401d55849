import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KgateError } from '../src/kernel/errors.ts';
import { EDUCATION_PACK } from '../src/domains/runtime/presentation/index.ts';
import {
  FINDING_KINDS,
  RELATIONSHIP_ENDPOINTS,
  PROJECTION_LIMITS,
  ProjectionInputSchema,
  ProjectionOutputSchema,
  evaluateProjection,
  findingId,
  type ProjectionOutput,
} from '../src/domains/education/projection/index.ts';
import { generatedRequest, goldenCases, goldenText, seededRandom, shuffledRequest, type ProjectionRequest } from './support/education-projection.ts';

// docs/education.md, "Projection": the evaluation is pure and deterministic. Golden files hold the expected output of
// each fixture byte for byte (KGATE_UPDATE_GOLDEN=1 rewrites them, for review in the diff); shuffling every input list
// and reordering every object's keys never changes a byte of the output.

/** The output as the wire carries it: validated, parsed with the output schema (which strips nothing here). */
function project(request: ProjectionRequest): ProjectionOutput {
  return ProjectionOutputSchema.parse(evaluateProjection(ProjectionInputSchema.parse(request)));
}

describe('education projection: golden files', () => {
  const cases = goldenCases();

  it('has the fixtures, and together they raise every finding kind', () => {
    expect(cases.map((c) => c.name)).toEqual(['aligned-course', 'cycles', 'duplicates', 'empty', 'every-finding', 'evidence-age', 'provenance']);
    const raised = new Set(cases.flatMap((c) => project(c.input).findings.map((f) => f.kind)));
    expect([...raised].sort()).toEqual([...FINDING_KINDS].sort());
    // every-finding raises every kind on its own.
    const everyKind = project(cases.find((c) => c.name === 'every-finding')!.input);
    expect(FINDING_KINDS.filter((kind) => everyKind.findingTotals.byKind[kind] === 0)).toEqual([]);
  });

  for (const { name, input, expectedPath } of goldenCases()) {
    it(`${name}: the output equals ${name}.expected.json byte for byte`, () => {
      const text = goldenText(project(input));
      if (process.env.KGATE_UPDATE_GOLDEN === '1') writeFileSync(expectedPath, text);
      expect(existsSync(expectedPath), `${expectedPath} is missing; KGATE_UPDATE_GOLDEN=1 writes it`).toBe(true);
      expect(text).toBe(readFileSync(expectedPath, 'utf8'));
    });
  }
});

describe('education projection: shuffled input, the same output byte for byte', () => {
  for (const { name, input } of goldenCases()) {
    it(`${name}: 25 shuffles`, () => {
      const expected = JSON.stringify(project(input));
      const random = seededRandom(name.length * 7919);
      for (let round = 0; round < 25; round += 1) expect(JSON.stringify(project(shuffledRequest(input, random)))).toBe(expected);
    });
  }

  it('a generated input of 1,600 entities with more findings than are answered: 10 shuffles, and the truncation picks the same findings', () => {
    const request = generatedRequest(20);
    const output = project(request);
    expect(output.truncated).toBe(true);
    expect(output.findings).toHaveLength(PROJECTION_LIMITS.findings);
    expect(output.findingTotals.total).toBeGreaterThan(PROJECTION_LIMITS.findings);
    expect(FINDING_KINDS.filter((kind) => output.findingTotals.byKind[kind] === 0)).toEqual([]);
    const expected = JSON.stringify(output);
    const random = seededRandom(4242);
    for (let round = 0; round < 10; round += 1) expect(JSON.stringify(project(shuffledRequest(request, random)))).toBe(expected);
  });
});

describe('education projection: what it answers', () => {
  const everyFinding = () => goldenCases().find((c) => c.name === 'every-finding')!.input;

  it('finding ids are the documented hash of kind, entity ids and relationships', () => {
    const output = project(everyFinding());
    for (const f of output.findings) {
      const expected = findingId(
        f.kind,
        f.entities.map((e) => e.id),
        f.relationships,
      );
      expect(f.id).toBe(expected);
      expect(f.id).toMatch(/^fnd_[0-9a-f]{32}$/);
    }
    // By hand, for one: SHA-256 of the JSON text ["target-unaligned",["lt:systems"],[]].
    const unaligned = output.findings.find((f) => f.kind === 'target-unaligned' && f.entities[0]!.id === 'lt:systems')!;
    expect(unaligned.entities).toEqual([{ kind: 'learning-target', id: 'lt:systems' }]);
    expect(unaligned.id).toBe(`fnd_${createHash('sha256').update('["target-unaligned",["lt:systems"],[]]', 'utf8').digest('hex').slice(0, 32)}`);
  });

  it('a finding keeps its id when unrelated input changes, and loses it when its situation changes', () => {
    const base = everyFinding();
    const before = project(base);
    const unaligned = before.findings.find((f) => f.kind === 'target-unaligned' && f.entities[0]!.id === 'lt:systems')!;
    const more = project({ ...base, courses: [...(base.courses ?? []), { id: 'course:chem', title: 'Chemistry' }] });
    expect(more.findings.map((f) => f.id)).toContain(unaligned.id);
    const fixed = project({
      ...base,
      relationships: [...(base.relationships ?? []), { kind: 'aligns-to', from: 'lt:systems', to: 'std:ngss:HS-LS1-2', provenance: { system: 'sis', record: 'a/9', assertedAt: '2025-01-01T00:00:00Z' } }],
    });
    expect(fixed.findings.map((f) => f.id)).not.toContain(unaligned.id);
  });

  it('signals reference findings only, one per kind of decision, and decide nothing', () => {
    const output = project(everyFinding());
    const ids = new Set(output.findings.map((f) => f.id));
    expect(output.decisionSignals.map((s) => s.signal)).toEqual([
      'resolve-reference',
      'review-relationship',
      'break-cycle',
      'confirm-provenance',
      'review-duplicate',
      'align-target',
      'add-artifact',
      'add-evidence',
      'refresh-evidence',
      'align-artifact',
    ]);
    for (const signal of output.decisionSignals) {
      expect(Object.keys(signal).sort()).toEqual(['findingCount', 'findingIds', 'id', 'severity', 'signal']);
      expect(signal.findingIds.length).toBe(signal.findingCount);
      for (const id of signal.findingIds) expect(ids.has(id)).toBe(true);
    }
    expect(output.decisionSignals.reduce((sum, s) => sum + s.findingCount, 0)).toBe(output.findingTotals.total);
  });

  it('never answers submitted text: no statement, title, code, framework, system or record appears in the output', () => {
    for (const { input } of goldenCases()) {
      const text = JSON.stringify(project(input));
      const submitted = [
        ...(input.learningTargets ?? []).map((t) => t.statement),
        ...(input.courses ?? []).flatMap((c) => [c.title, c.code ?? '', c.term ?? '']),
        ...(input.standards ?? []).flatMap((s) => [s.framework, s.code]),
        ...(input.relationships ?? []).flatMap((r) => (r.provenance ? [r.provenance.system, r.provenance.record] : [])),
      ].filter((value) => value.trim().length > 3);
      for (const value of submitted) expect(text.includes(JSON.stringify(value)), value).toBe(false);
    }
  });

  it('refuses ids used twice across entity lists, naming both places', () => {
    const attempt = () =>
      evaluateProjection(
        ProjectionInputSchema.parse({
          asOf: '2025-01-01T00:00:00Z',
          standards: [{ id: 'shared', framework: 'F', code: 'A' }],
          artifacts: [{ id: 'art:1' }, { id: 'shared' }],
        }),
      );
    expect(attempt).toThrow(KgateError);
    try {
      attempt();
    } catch (error) {
      expect((error as KgateError).code).toBe('invalid_request');
      expect((error as KgateError).details).toEqual({
        issues: [{ path: 'artifacts.1.id', message: 'id "shared" is already the id of standards.0.id; ids are unique across all entity lists' }],
      });
    }
  });

  it("accepts every relationship of the education domain pack between the pack's kinds", () => {
    for (const kind of EDUCATION_PACK.relationshipKinds) {
      const endpoints = RELATIONSHIP_ENDPOINTS[kind.id as keyof typeof RELATIONSHIP_ENDPOINTS];
      expect(endpoints, kind.id).toBeDefined();
      for (const from of kind.from) expect(endpoints.from, `${kind.id} from ${from}`).toContain(from);
      for (const to of kind.to) expect(endpoints.to, `${kind.id} to ${to}`).toContain(to);
    }
  });

  it('evidence is stale only when older than evidenceMaxAgeDays before asOf, to the millisecond', () => {
    const at = (observedAt: string) =>
      project({
        asOf: '2025-04-01T00:00:00Z',
        evidenceMaxAgeDays: 1,
        artifacts: [{ id: 'art' }],
        evidence: [{ id: 'ev', observedAt }],
        relationships: [{ kind: 'evidences', from: 'ev', to: 'art', provenance: { system: 's', record: 'r', assertedAt: '2025-01-01T00:00:00Z' } }],
      }).findings.map((f) => f.kind);
    expect(at('2025-03-31T00:00:00Z')).not.toContain('artifact-evidence-stale');
    expect(at('2025-03-30T23:59:59.999Z')).toContain('artifact-evidence-stale');
    expect(at('2025-03-31T00:59:59.999+01:00')).toContain('artifact-evidence-stale');
    expect(at('2025-03-30T23:00:00-01:00')).not.toContain('artifact-evidence-stale');
  });
});
