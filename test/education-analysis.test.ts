import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateFrameworkPair } from '../bench/education-analysis/generate.ts';
import { CrosswalkResultSchema, RecommendResultSchema } from '../src/domains/education/index.ts';
import { OPERATIONS } from '../src/surfaces/operations/table.ts';
import {
  changedTables,
  crosswalkRequest,
  deepShuffled,
  expectGolden,
  recommendRequest,
  seededRandom,
  statementsOf,
  tableDigests,
} from './support/education-analysis.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// The two deterministic education analyses through the real gateway (docs/education.md, "Artifact recommendations"
// and "Standards crosswalk"): golden answers in V1 envelopes, the same bytes for any order of the request, every bound
// at and one past its limit, the intelligence.execute scope, no title, content or statement text in any answer, and
// nothing stored: no table but the organization's metered count changes, whatever the call answers.

const RECOMMEND = '/api/product/v1/intelligence/education/artifacts/recommend';
const CROSSWALK = '/api/product/v1/intelligence/education/standards/crosswalk';

/** kgate's operation table with the analyses added (once the lead wires them into the table, it holds them already). */
const operations = OPERATIONS;

const candidate = (k: number) => ({
  id: `artifact-${String(k).padStart(3, '0')}`,
  title: `Generated artifact ${k}`,
  goalTags: ['ratio reasoning'],
  format: 'worksheet',
  language: 'en',
  accepted: k % 2 === 0,
  updatedAt: '2025-01-01T00:00:00Z',
});

describe('education analyses through the Product Runtime', () => {
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  beforeAll(async () => {
    gateway = await startTestGateway({ operations });
    chain = await createRuntimeChain(gateway, 'analysis', { scopes: ['intelligence.execute', 'notes.publish'] });
    token = await runtimeToken(gateway, chain);
  });
  afterAll(() => gateway.stop());

  /**
   * Calls an analysis and checks that it changed no table but runtime_usage, where the organization's count went up by
   * exactly one (a call past the chain is metered, whether validation refuses it or not; docs/runtime.md, Metering).
   */
  async function analyse(path: string, json: unknown, as = token): Promise<RuntimeAnswer<Record<string, unknown>>> {
    const before = await tableDigests(gateway.db);
    const used = await usageOf(gateway, chain.organization.id);
    const answer = await callRuntime<Record<string, unknown>>(gateway, as, 'POST', path, { json });
    expect(changedTables(before, await tableDigests(gateway.db))).toEqual(['runtime_usage']);
    expect(await usageOf(gateway, chain.organization.id)).toBe(used + 1);
    return answer;
  }

  function expectOk(answer: RuntimeAnswer<Record<string, unknown>>, kind: string): void {
    expect(answer.status, JSON.stringify(answer.body).slice(0, 500)).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, kind, status: 'ok', problems: [] });
    expect(answer.body.receipts).toEqual([expect.objectContaining({ kind: 'service.product-runtime-operation', requestId: answer.body.requestId })]);
  }

  it('recommends the golden answer, with no title, content or fingerprint in it', async () => {
    const answer = await analyse(RECOMMEND, recommendRequest());
    expectOk(answer, 'service.education-artifact-recommendations');
    expect(RecommendResultSchema.safeParse(answer.body.data).success).toBe(true);
    expectGolden('recommend/expected.json', answer.body.data);
    const text = JSON.stringify(answer.body);
    for (const c of recommendRequest().candidates) {
      expect(text).not.toContain(c.title as string);
      for (const hash of (c.fingerprint as string[] | undefined) ?? []) expect(text).not.toContain(hash);
    }
  });

  it('crosswalks the golden answer, with no statement text in it, every mapping a proposal', async () => {
    const answer = await analyse(CROSSWALK, crosswalkRequest());
    expectOk(answer, 'service.education-standards-crosswalk');
    expect(CrosswalkResultSchema.safeParse(answer.body.data).success).toBe(true);
    expectGolden('crosswalk/expected.json', answer.body.data);
    const request = crosswalkRequest();
    const text = JSON.stringify(answer.body);
    for (const statement of [...statementsOf(request.source), ...statementsOf(request.target)]) expect(text).not.toContain(statement);
    for (const title of [request.source.CFDocument, request.target.CFDocument].map((d) => (d as { title: string }).title)) expect(text).not.toContain(title);
    const data = answer.body.data as { status: string; review: { required: boolean }; mappings: Array<{ candidates: Array<{ status: string }> }> };
    expect(data.status).toBe('proposed');
    expect(data.review.required).toBe(true);
    expect(data.mappings.flatMap((m) => m.candidates.map((c) => c.status))).toEqual(expect.arrayContaining(['proposed']));
    expect(new Set(data.mappings.flatMap((m) => m.candidates.map((c) => c.status)))).toEqual(new Set(['proposed']));
  });

  it('answers the same bytes for shuffled requests', async () => {
    const golden = {
      [RECOMMEND]: JSON.stringify((await analyse(RECOMMEND, recommendRequest())).body.data),
      [CROSSWALK]: JSON.stringify((await analyse(CROSSWALK, crosswalkRequest())).body.data),
    };
    for (let seed = 101; seed <= 103; seed++) {
      expect(JSON.stringify((await analyse(RECOMMEND, deepShuffled(recommendRequest(), seededRandom(seed)))).body.data)).toBe(golden[RECOMMEND]);
      expect(JSON.stringify((await analyse(CROSSWALK, deepShuffled(crosswalkRequest(), seededRandom(seed)))).body.data)).toBe(golden[CROSSWALK]);
    }
  });

  it('recommends among 250 candidates and refuses 251 with invalid_request, storing nothing', async () => {
    const at = await analyse(RECOMMEND, { goal: { goalTags: ['ratio reasoning'] }, candidates: Array.from({ length: 250 }, (_, k) => candidate(k)) });
    expectOk(at, 'service.education-artifact-recommendations');
    expect((at.body.data as { ranked: unknown[] }).ranked).toHaveLength(250);
    const past = await analyse(RECOMMEND, { goal: { goalTags: ['ratio reasoning'] }, candidates: Array.from({ length: 251 }, (_, k) => candidate(k)) });
    const problem = expectRuntimeProblem(past, 400, 'invalid_request');
    expect(problem.details?.issues).toEqual([expect.objectContaining({ path: 'candidates' })]);
  });

  it('crosswalks two slices of 2,000 items and refuses 2,001 in either, storing nothing', async () => {
    const pair = generateFrameworkPair(2000, 3);
    const at = await analyse(CROSSWALK, { source: pair.source, target: pair.target });
    expectOk(at, 'service.education-standards-crosswalk');
    expect((at.body.data as { counts: Record<string, number> }).counts).toMatchObject({ sourceItems: 2000, targetItems: 2000 });
    const text = JSON.stringify(at.body);
    for (const statement of statementsOf(pair.source).slice(0, 200)) expect(text).not.toContain(statement);
    const extra = { ...pair.source.CFItems[5]!, identifier: '00000000-0000-5000-a000-000000002001' };
    for (const side of ['source', 'target'] as const) {
      const over = { source: pair.source, target: pair.target, [side]: { ...pair[side], CFItems: [...pair[side].CFItems, extra] } };
      const problem = expectRuntimeProblem(await analyse(CROSSWALK, over), 400, 'invalid_request');
      expect(problem.details?.issues).toEqual([expect.objectContaining({ path: `${side}.CFItems` })]);
    }
  });

  it('refuses a token without intelligence.execute, consuming nothing and storing nothing', async () => {
    const narrow = await runtimeToken(gateway, chain, 'notes.publish');
    for (const [path, json] of [
      [RECOMMEND, recommendRequest()],
      [CROSSWALK, crosswalkRequest()],
    ] as const) {
      const before = await tableDigests(gateway.db);
      const refused = await callRuntime(gateway, narrow, 'POST', path, { json });
      expect(expectRuntimeProblem(refused, 403, 'insufficient_scope').details).toEqual({ scope: 'intelligence.execute' });
      expect(refused.body.receipts).toEqual([]);
      expect(changedTables(before, await tableDigests(gateway.db))).toEqual([]);
    }
  });

  it('refuses a principal that does not hold intelligence.execute at all', async () => {
    const other = await createRuntimeChain(gateway, 'analysis-noscope', { scopes: ['notes.publish'] });
    const otherToken = await runtimeToken(gateway, other);
    const before = await tableDigests(gateway.db);
    const refused = await callRuntime(gateway, otherToken, 'POST', RECOMMEND, { json: recommendRequest() });
    expectRuntimeProblem(refused, 403, 'insufficient_scope');
    expect(changedTables(before, await tableDigests(gateway.db))).toEqual([]);
    expect(await usageOf(gateway, other.organization.id)).toBe(0);
  });

  it('publishes both capabilities as available, and both routes in the OpenAPI document', async () => {
    const capabilities = await callRuntime<{ capabilities: Array<{ id: string; availability: string }> }>(gateway, token, 'GET', '/api/product/v1/capabilities');
    const byId = new Map(capabilities.body.data.capabilities.map((c) => [c.id, c.availability]));
    expect(byId.get('education.artifacts.recommend')).toBe('available');
    expect(byId.get('education.standards.crosswalk')).toBe('available');
    type Schema = { properties: Record<string, Schema & { maxItems?: number; items?: Schema }>; required?: string[] };
    type Route = { post: { operationId: string; requestBody: { content: Record<string, { schema: Schema }> } } };
    const document = (await (await fetch(`${gateway.url}/api/product/v1/openapi.json`)).json()) as { paths: Record<string, Route> };
    expect((await new Validator().validate(document)).errors).toBeUndefined();
    const body = (path: string) => document.paths[path]!.post.requestBody.content['application/json']!.schema;
    expect(document.paths[RECOMMEND]!.post.operationId).toBe('recommendArtifacts');
    expect(body(RECOMMEND).properties.candidates!.maxItems).toBe(250);
    expect(document.paths[CROSSWALK]!.post.operationId).toBe('crosswalkStandards');
    expect(body(CROSSWALK).required).toEqual(['source', 'target']);
    expect(body(CROSSWALK).properties.source!.properties.CFItems!.maxItems).toBe(2000);
  });
});
