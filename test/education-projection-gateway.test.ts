import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { PROJECTION_LIMITS, ProjectionOutputSchema } from '../src/domains/education/projection/index.ts';
import { MAX_REST_BODY_BYTES } from '../src/surfaces/rest/bind.ts';
import { goldenCases, requestOfSize, seededRandom, shuffledRequest, type ProjectionRequest } from './support/education-projection.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// POST /api/product/v1/intelligence/education/projection through the real gateway (docs/education.md, "Projection"):
// the V1 envelope, one monthly operation per call, the intelligence.execute scope, every bound at and one past its
// limit, and read-only: no table but the organization's metered count changes, whatever the call answers.

const PATH = '/api/product/v1/intelligence/education/projection';
const ASOF = '2025-01-01T00:00:00Z';

/** Every table of the database with a digest of its rows, to prove that nothing changed. */
async function tableDigests(gateway: TestGateway): Promise<Map<string, string>> {
  const tables = await gateway.db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const digests = new Map<string, string>();
  for (const { name } of tables) {
    const [row] = await gateway.db.query<{ digest: string }>(
      `SELECT count(*)::text || ':' || coalesce(md5(string_agg(md5(t::text), ',' ORDER BY md5(t::text))), '') AS digest FROM "${name}" t`,
    );
    digests.set(name, row!.digest);
  }
  return digests;
}

/** The tables whose rows differ between two digests. */
function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  return [...new Set([...before.keys(), ...after.keys()])].filter((name) => before.get(name) !== after.get(name)).sort();
}

describe('education projection through the Product Runtime', () => {
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    chain = await createRuntimeChain(gateway, 'projection', { scopes: ['intelligence.execute'] });
    token = await runtimeToken(gateway, chain);
  });
  afterAll(() => gateway.stop());

  const project = (json: unknown, as = token) => callRuntime<Record<string, unknown>>(gateway, as, 'POST', PATH, { json });

  /**
   * Calls the projection and checks that it changed no table but runtime_usage, where the organization's count went up
   * by exactly one (every call past the chain is metered, refused by validation or not).
   */
  async function projectReadOnly(json: unknown): Promise<RuntimeAnswer<Record<string, unknown>>> {
    const before = await tableDigests(gateway);
    const used = await usageOf(gateway, chain.organization.id);
    const answer = await project(json);
    expect(changedTables(before, await tableDigests(gateway))).toEqual(['runtime_usage']);
    expect(await usageOf(gateway, chain.organization.id)).toBe(used + 1);
    expect(answer.body.receipts).toEqual([
      { kind: 'service.product-runtime-operation', requestId: answer.body.requestId, month: new Date().toISOString().slice(0, 7), used: used + 1, limit: null },
    ]);
    return answer;
  }

  it('answers the golden output in a V1 envelope, consumes one monthly operation and changes no other table', async () => {
    for (const { name, input, expectedPath } of goldenCases()) {
      const answer = await projectReadOnly(input);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(['data', 'kind', 'problems', 'receipts', 'requestId', 'status', 'version']);
      expect(answer.body).toMatchObject({ version: 1, kind: 'service.education-projection', status: 'ok', problems: [] });
      expect(answer.body.requestId).toBe(answer.headers.get('x-request-id'));
      expect(answer.headers.get('x-service-runtime-version')).toBe('1');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(ProjectionOutputSchema.safeParse(answer.body.data).success).toBe(true);
      expect(`${JSON.stringify(answer.body.data, null, 2)}\n`, name).toBe(readFileSync(expectedPath, 'utf8'));
    }
  });

  it('answers shuffled input with the same data, byte for byte', async () => {
    const { input } = goldenCases().find((c) => c.name === 'every-finding')!;
    const first = JSON.stringify((await project(input)).body.data);
    const random = seededRandom(99);
    for (let round = 0; round < 5; round += 1) expect(JSON.stringify((await project(shuffledRequest(input, random))).body.data)).toBe(first);
  });

  it('refuses a token without intelligence.execute (insufficient_scope), consuming and changing nothing', async () => {
    const { input } = goldenCases().find((c) => c.name === 'aligned-course')!;
    // A principal that never held the scope, and a token of a principal that holds it but was issued without it.
    const other = await createRuntimeChain(gateway, 'projection-no-scope', { scopes: ['notes.publish', 'media.read'] });
    const both = await createRuntimeChain(gateway, 'projection-narrowed', { scopes: ['intelligence.execute', 'notes.publish'] });
    const attempts: Array<[string, () => Promise<string>]> = [
      ['a principal without the scope', () => runtimeToken(gateway, other)],
      ['a token issued without the scope', () => runtimeToken(gateway, both, 'notes.publish')],
    ];
    for (const [label, tokenOf] of attempts) {
      const as = await tokenOf();
      const before = await tableDigests(gateway);
      const answer = await project(input, as);
      const problem = expectRuntimeProblem(answer, 403, 'insufficient_scope');
      expect(problem.details, label).toEqual({ scope: 'intelligence.execute' });
      expect(answer.body.receipts).toEqual([]);
      expect(changedTables(before, await tableDigests(gateway)), label).toEqual([]);
    }
    expect(await usageOf(gateway, other.organization.id)).toBe(0);
    expect(await usageOf(gateway, both.organization.id)).toBe(0);
    // The same principal's token with the scope is answered.
    expect((await project(input, await runtimeToken(gateway, both))).status).toBe(200);
  });

  it('is refused when the organization has used its month: 429, nothing changes', async () => {
    const capped = await createRuntimeChain(gateway, 'projection-capped', { scopes: ['intelligence.execute'] });
    await gateway.services.runtimeAdmin.setOrganizationSettings(capped.organization.slug, { apiOperationsPerMonth: 1 });
    const cappedToken = await runtimeToken(gateway, capped);
    const first = await project({ asOf: ASOF }, cappedToken);
    expect(first.status).toBe(200);
    expect(first.body.receipts[0]).toMatchObject({ used: 1, limit: 1 });
    const before = await tableDigests(gateway);
    expectRuntimeProblem(await project({ asOf: ASOF }, cappedToken), 429, 'runtime_operations_exhausted');
    expect(changedTables(before, await tableDigests(gateway))).toEqual([]);
    expect(await usageOf(gateway, capped.organization.id)).toBe(1);
  });

  it('is published: in a valid OpenAPI document, with the bounds in its schema, and available in getCapabilities', async () => {
    const document = (await (await fetch(`${gateway.url}/api/product/v1/openapi.json`)).json()) as Record<string, unknown> & {
      paths: Record<string, Record<string, { operationId: string; requestBody: { content: Record<string, { schema: Record<string, unknown> }> } }>>;
    };
    const validation = await new Validator().validate(document);
    expect(validation.errors).toBeUndefined();
    const route = document.paths[PATH]?.post;
    expect(route?.operationId).toBe('projectEducation');
    const body = route!.requestBody.content['application/json']!.schema as { properties: Record<string, { maxItems?: number }>; required: string[] };
    expect(body.required).toEqual(['asOf']);
    expect(body.properties.relationships?.maxItems).toBe(PROJECTION_LIMITS.relationships);
    expect(body.properties.courses?.maxItems).toBe(PROJECTION_LIMITS.courses);
    const capabilities = await callRuntime<{ capabilities: Array<{ id: string; availability: string }>; granted: string[] }>(gateway, token, 'GET', '/api/product/v1/capabilities');
    expect(capabilities.body.data.capabilities.find((c) => c.id === 'education.projection')).toMatchObject({ availability: 'available' });
    expect(capabilities.body.data.granted).toContain('education.projection');
  });

  describe('bounds: each at its limit and one past it', () => {
    const P = { system: 'sis', record: 'r', assertedAt: ASOF };
    const list = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));
    const courses = (n: number) => list(n, (i) => ({ id: `c:${i}`, title: `Course ${i}` }));
    const standards = (n: number) => list(n, (i) => ({ id: `s:${i}`, framework: 'F', code: `S.${i}` }));
    const targets = (n: number) => list(n, (i) => ({ id: `t:${i}`, statement: `Target ${i}` }));
    const artifacts = (n: number) => list(n, (i) => ({ id: `a:${i}` }));
    const evidence = (n: number) => list(n, (i) => ({ id: `e:${i}`, observedAt: ASOF }));
    const relationships = (n: number) => list(n, (i) => ({ kind: 'aligns-to' as const, from: `t:${i % 10}`, to: `s:${i}`, provenance: P }));

    /** A bound: the request at the limit, and one past it with the issue path the refusal names. */
    const cases: Array<[string, (past: number) => ProjectionRequest, number, string]> = [
      ['courses', (n) => ({ asOf: ASOF, courses: courses(n) }), PROJECTION_LIMITS.courses, 'courses'],
      ['standards', (n) => ({ asOf: ASOF, standards: standards(n) }), PROJECTION_LIMITS.standards, 'standards'],
      ['learningTargets', (n) => ({ asOf: ASOF, learningTargets: targets(n) }), PROJECTION_LIMITS.learningTargets, 'learningTargets'],
      ['artifacts', (n) => ({ asOf: ASOF, artifacts: artifacts(n) }), PROJECTION_LIMITS.artifacts, 'artifacts'],
      ['evidence', (n) => ({ asOf: ASOF, evidence: evidence(n) }), PROJECTION_LIMITS.evidence, 'evidence'],
      [
        'entities, all lists together',
        (n) => ({ asOf: ASOF, standards: standards(3_000), learningTargets: targets(3_000), artifacts: artifacts(3_000), evidence: evidence(n - 9_000) }),
        PROJECTION_LIMITS.entities,
        '',
      ],
      ['relationships', (n) => ({ asOf: ASOF, relationships: relationships(n) }), PROJECTION_LIMITS.relationships, 'relationships'],
      ['id length', (n) => ({ asOf: ASOF, artifacts: [{ id: 'a'.repeat(n) }] }), PROJECTION_LIMITS.idLength, 'artifacts.0.id'],
      ['course title', (n) => ({ asOf: ASOF, courses: [{ id: 'c', title: 't'.repeat(n) }] }), PROJECTION_LIMITS.titleLength, 'courses.0.title'],
      ['course code', (n) => ({ asOf: ASOF, courses: [{ id: 'c', title: 'T', code: 'C'.repeat(n) }] }), PROJECTION_LIMITS.codeLength, 'courses.0.code'],
      ['course term', (n) => ({ asOf: ASOF, courses: [{ id: 'c', title: 'T', term: '2'.repeat(n) }] }), PROJECTION_LIMITS.termLength, 'courses.0.term'],
      ['standard framework', (n) => ({ asOf: ASOF, standards: [{ id: 's', framework: 'F'.repeat(n), code: 'A' }] }), PROJECTION_LIMITS.frameworkLength, 'standards.0.framework'],
      ['standard code', (n) => ({ asOf: ASOF, standards: [{ id: 's', framework: 'F', code: 'A'.repeat(n) }] }), PROJECTION_LIMITS.codeLength, 'standards.0.code'],
      ['target statement', (n) => ({ asOf: ASOF, learningTargets: [{ id: 't', statement: 'x'.repeat(n) }] }), PROJECTION_LIMITS.statementLength, 'learningTargets.0.statement'],
      [
        'provenance system',
        (n) => ({ asOf: ASOF, relationships: [{ kind: 'aligns-to', from: 't', to: 's', provenance: { ...P, system: 's'.repeat(n) } }] }),
        PROJECTION_LIMITS.systemLength,
        'relationships.0.provenance.system',
      ],
      [
        'provenance record',
        (n) => ({ asOf: ASOF, relationships: [{ kind: 'aligns-to', from: 't', to: 's', provenance: { ...P, record: 'r'.repeat(n) } }] }),
        PROJECTION_LIMITS.recordLength,
        'relationships.0.provenance.record',
      ],
      ['evidenceMaxAgeDays, highest', (n) => ({ asOf: ASOF, evidenceMaxAgeDays: n }), PROJECTION_LIMITS.maxEvidenceMaxAgeDays, 'evidenceMaxAgeDays'],
      ['evidenceMaxAgeDays, lowest', (n) => ({ asOf: ASOF, evidenceMaxAgeDays: 2 - n }), 1, 'evidenceMaxAgeDays'],
    ];

    for (const [name, make, limit, path] of cases) {
      it(`${name}: ${limit} is answered, one more is invalid_request at "${path}"`, async () => {
        const at = await projectReadOnly(make(limit));
        expect(at.status, JSON.stringify(at.body.problems)).toBe(200);
        const past = await projectReadOnly(make(limit + 1));
        const problem = expectRuntimeProblem(past, 400, 'invalid_request');
        expect((problem.details?.issues as Array<{ path: string }>).map((i) => i.path)).toContain(path);
      });
    }

    it(`the input's size: ${PROJECTION_LIMITS.inputBytes} bytes of compact JSON are answered, one more is payload_too_large`, async () => {
      const at = await projectReadOnly(requestOfSize(PROJECTION_LIMITS.inputBytes));
      expect(at.status, JSON.stringify(at.body.problems)).toBe(200);
      const past = await projectReadOnly(requestOfSize(PROJECTION_LIMITS.inputBytes + 1));
      const problem = expectRuntimeProblem(past, 413, 'payload_too_large');
      expect(problem.details).toEqual({ limit: PROJECTION_LIMITS.inputBytes, size: PROJECTION_LIMITS.inputBytes + 1 });
    });

    it('the runtime body limit: 8 MiB of body (mostly white space) is answered, one byte more is refused before the chain and consumes nothing', async () => {
      const limit = MAX_REST_BODY_BYTES;
      const send = (bytes: number) => {
        const json = JSON.stringify({ asOf: ASOF });
        return fetch(`${gateway.url}${PATH}`, {
          method: 'POST',
          headers: { 'X-Service-Runtime-Version': '1', Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: json + ' '.repeat(bytes - json.length),
        });
      };
      const used = await usageOf(gateway, chain.organization.id);
      const at = await send(limit);
      expect(at.status).toBe(200);
      expect(await usageOf(gateway, chain.organization.id)).toBe(used + 1);
      const before = await tableDigests(gateway);
      const past = await send(limit + 1);
      expect(past.status).toBe(413);
      const body = (await past.json()) as RuntimeAnswer['body'];
      expect(body).toMatchObject({ version: 1, kind: 'service.problem', status: 'error', receipts: [], problems: [{ code: 'payload_too_large' }] });
      expect(changedTables(before, await tableDigests(gateway))).toEqual([]);
    });

    it(`findings: ${PROJECTION_LIMITS.findings} are answered whole, one more is truncated to ${PROJECTION_LIMITS.findings}`, async () => {
      // Each unaligned learning target is one finding.
      const at = await projectReadOnly({ asOf: ASOF, learningTargets: targets(PROJECTION_LIMITS.findings) });
      expect(at.body.data).toMatchObject({ truncated: false, findingTotals: { total: PROJECTION_LIMITS.findings } });
      expect(at.body.data.findings).toHaveLength(PROJECTION_LIMITS.findings);
      const past = await projectReadOnly({ asOf: ASOF, learningTargets: targets(PROJECTION_LIMITS.findings + 1) });
      expect(past.body.data).toMatchObject({ truncated: true, findingTotals: { total: PROJECTION_LIMITS.findings + 1 } });
      expect(past.body.data.findings).toHaveLength(PROJECTION_LIMITS.findings);
      expect(past.body.data.decisionSignals).toMatchObject([{ signal: 'align-target', findingCount: PROJECTION_LIMITS.findings + 1 }]);
    });
  });

  it('refuses malformed input after the reservation: unknown fields, unknown relationship kinds, bad instants, ids used twice', async () => {
    const refusals: Array<[unknown, string]> = [
      [{ asOf: ASOF, extra: true }, 'invalid_request'],
      [{ asOf: ASOF, courses: [{ id: 'c', title: 'T', teacherEmail: 'x@example.org' }] }, 'invalid_request'],
      [{ asOf: ASOF, relationships: [{ kind: 'teaches', from: 'a', to: 'b' }] }, 'invalid_request'],
      [{ asOf: '2025-01-01' }, 'invalid_request'],
      [{}, 'invalid_request'],
      [{ asOf: ASOF, relationships: [{ kind: 'aligns-to', from: 'a', to: 'b', provenance: { system: 'sis' } }] }, 'invalid_request'],
      [{ asOf: ASOF, artifacts: [{ id: 'a\u0000b' }] }, 'invalid_request'],
      [{ asOf: ASOF, standards: [{ id: 'x', framework: 'F', code: 'A' }], evidence: [{ id: 'x', observedAt: ASOF }] }, 'invalid_request'],
    ];
    for (const [json, code] of refusals) expectRuntimeProblem(await projectReadOnly(json), 400, code);
  });
});
