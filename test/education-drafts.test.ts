import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureReadingLevel } from '../src/domains/education/quality/index.ts';
import type { ModelFake } from './fakes/model/server.ts';
import type { TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem } from './support/runtime-checks.ts';
import { callRuntime, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';
import { ledgerSnapshot, startBudgetedGateway, startMeteredGateway, type MeteredGateway } from './support/metered-gateway.ts';

// The three metered drafting endpoints through a started gateway and the fake model (docs/education.md: practice
// review, assessment drafts, quality review): answers in V1 envelopes with the operation and usage receipts, replays
// without a second model call, refusals that reserve nothing and send nothing to the model, and invalid model output
// answered as model_output_invalid, charged as a billable failure, with nothing of it returned.

const EDUCATION = '/api/product/v1/intelligence/education';
const PRACTICE = `${EDUCATION}/practice-review`;
const ASSESSMENT = `${EDUCATION}/assessment-draft`;
const QUALITY = `${EDUCATION}/quality-review`;

type Json = Record<string, unknown>;
const fixture = (name: string): Json => JSON.parse(readFileSync(new URL(`./fixtures/education/drafts/${name}.json`, import.meta.url), 'utf8')) as Json;
const reply = (value: unknown, usage = { inputTokens: 1200, outputTokens: 800 }) =>
  ({ kind: 'reply', text: typeof value === 'string' ? value : JSON.stringify(value), usage }) as const;

describe('education drafts through the Product Runtime and the fake model', () => {
  let fake: ModelFake;
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  let started: MeteredGateway;

  beforeAll(async () => {
    started = await startMeteredGateway('drafts');
    ({ fake, gateway, chain, token } = started);
  });
  afterAll(() => started.stop());

  function post(path: string, json: unknown, key: string | null = randomUUID()): Promise<RuntimeAnswer<Json>> {
    return callRuntime<Json>(gateway, token, 'POST', path, { json, headers: { 'Idempotency-Key': key } });
  }

  /** The organization's ledger rows and counters, to prove that a refusal reserved nothing. */
  const ledger = (): Promise<string> => ledgerSnapshot(gateway, chain);

  function expectAnswer(answer: RuntimeAnswer<Json>, kind: string, meteredKind: string): Json {
    expect(answer.status, JSON.stringify(answer.body).slice(0, 800)).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, kind, status: 'ok', problems: [] });
    expect(answer.body.receipts).toEqual([
      expect.objectContaining({ kind: 'service.product-runtime-operation', requestId: answer.body.requestId }),
      expect.objectContaining({
        kind: 'service.product-intelligence-usage',
        meteredKind,
        requestId: answer.body.requestId,
        outcome: 'settled',
        usage: { inputTokens: 1200, outputTokens: 800, images: 0 },
        costMicrodollars: 1200 * 1 + 800 * 2,
        replayed: false,
      }),
    ]);
    return answer.body.data;
  }

  /** The last chat request the fake received: our instructions first, the request as delimited data, JSON asked. */
  function expectPromptShape(): void {
    const body = fake.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }>; response_format?: unknown };
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[1]!.content).toMatch(/^<<<REQUEST_DATA_JSON\n[\s\S]*\nREQUEST_DATA_JSON>>>$/);
    expect(body.response_format).toEqual({ type: 'json_object' });
  }

  it('reviews practice: proposals per session, kept as proposed, and a retry replays without a second model call', async () => {
    fake.script(reply(fixture('practice-output')));
    const sent = fake.requests.length;
    const key = randomUUID();
    const answer = await post(PRACTICE, fixture('practice-request'), key);
    const data = expectAnswer(answer, 'service.education-practice-review', 'education-practice-review');
    expect(data).toMatchObject({ status: 'proposed', standard: '6.RP.A.1', spacing: 'every-other-day' });
    expect((data.sessions as Json[]).map((s) => (s.proposals as Json[]).map((p) => p.type))).toEqual([['poll', 'sort'], ['short-answer']]);
    expect(fake.requests.length).toBe(sent + 1);
    expectPromptShape();

    const replay = await post(PRACTICE, fixture('practice-request'), key);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual(data);
    expect(replay.body.receipts[1]).toMatchObject({ kind: 'service.product-intelligence-usage', replayed: true, ledgerId: answer.body.receipts[1]!.ledgerId });
    expect(fake.requests.length).toBe(sent + 1);

    // The same key with another request is refused, with nothing reserved and nothing sent.
    const before = await ledger();
    const changed = { ...fixture('practice-request'), standard: { code: '6.RP.A.2', statement: 'Understand the concept of a unit rate.' } };
    expectRuntimeProblem(await post(PRACTICE, changed, key), 422, 'idempotency_key_reused');
    expect(await ledger()).toBe(before);
    expect(fake.requests.length).toBe(sent + 1);
  });

  it('drafts an assessment as proposed, with answer keys, DOK levels and the coverage of its items', async () => {
    fake.script(reply(fixture('assessment-output')));
    const data = expectAnswer(await post(ASSESSMENT, fixture('assessment-request')), 'service.education-assessment-draft', 'education-assessment-draft');
    expect(data.status).toBe('proposed');
    const items = (data.draft as { items: Json[] }).items;
    expect(items.map((i) => [i.number, i.type, i.dokLevel])).toEqual([
      [1, 'multiple-choice', 1],
      [2, 'short-answer', 2],
      [3, 'constructed-response', 3],
    ]);
    expect(items[0]!.answerKey).toEqual({ correct: 'A', rationale: 'Girls are named first, so 12:14.' });
    expect(data.coverage).toMatchObject({ byStandard: [{ code: '6.RP.A.1', items: 2 }, { code: '6.RP.A.3', items: 2 }] });
    expectPromptShape();
  });

  it('reviews quality as advice, every finding located in the artifact, reading level computed by kgate', async () => {
    fake.script(reply(fixture('quality-output')));
    const request = fixture('quality-request');
    const text = (request.artifact as { text: string }).text;
    const data = expectAnswer(await post(QUALITY, request), 'service.education-quality-review', 'education-quality-review');
    expect(data).toMatchObject({ status: 'advisory', artifact: { id: 'artifact-42', revision: 'rev-3' } });
    expect((data.dimensions as Json[]).map((d) => d.dimension)).toEqual([
      'alignment',
      'source-support',
      'citations',
      'reading-level',
      'accessibility',
      'bias-risk',
      'assessment-validity',
      'policy-conflicts',
    ]);
    for (const finding of data.findings as Array<{ location: { start: number; end: number; excerpt: string } }>) {
      expect(text.slice(finding.location.start, finding.location.end)).toBe(finding.location.excerpt);
    }
    const { expectedGrades: _grades, comparison: _comparison, ...measures } = data.readingLevel as Json;
    expect(measures).toEqual(measureReadingLevel(text));
  });

  it('answers the same reading level for the same text whatever the model says', async () => {
    const other = fixture('quality-output') as Json & { dimensions: Json[] };
    other.dimensions = other.dimensions.map((d) => ({ ...d, rating: 'strong', summary: 'The reading level is grade 12 and far too hard.' }));
    other.findings = [];
    fake.script(reply(fixture('quality-output')), reply(other));
    const first = await post(QUALITY, fixture('quality-request'));
    const second = await post(QUALITY, fixture('quality-request'));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.data.readingLevel).toEqual(first.body.data.readingLevel);
    const readingDimension = (answer: RuntimeAnswer<Json>) => (answer.body.data.dimensions as Json[]).find((d) => d.dimension === 'reading-level');
    expect(readingDimension(second)).toEqual(readingDimension(first));
    expect(readingDimension(first)).toMatchObject({ by: 'kgate' });
  });

  it('refuses bad requests before anything is reserved or sent to the model', async () => {
    const practice = () => fixture('practice-request') as Json & { cadence: { sessions: Json[] } };
    const one = practice();
    one.cadence.sessions = one.cadence.sessions.slice(0, 1);
    const six = practice();
    six.cadence.sessions = [...six.cadence.sessions, ...six.cadence.sessions, ...six.cadence.sessions];
    const identified = practice();
    identified.cadence.sessions[0]!.learners = [{ name: 'Ana Ruiz', correct: 3 }];
    const itemId = practice();
    (itemId.cadence.sessions[0]!.items as Json[])[0]!.studentId = 's-1234';
    const named = practice();
    named.cadence.sessions[0]!.label = 'Review of Maria Lopez\u2019s results';
    const small = practice();
    small.cadence.sessions[1]!.groupSize = 4;
    const cases: Array<[string, () => Promise<RuntimeAnswer<Json>>, number, string]> = [
      ['a cadence of one session', () => post(PRACTICE, one), 400, 'invalid_request'],
      ['a cadence of six sessions', () => post(PRACTICE, six), 400, 'invalid_request'],
      ['a list of learners', () => post(PRACTICE, identified), 400, 'invalid_request'],
      ['a student id on an item', () => post(PRACTICE, itemId), 400, 'invalid_request'],
      ['a learner named in a label', () => post(PRACTICE, named), 422, 'learner_specific_content'],
      ['a group of four', () => post(PRACTICE, small), 422, 'group_too_small'],
      ['DOK level 5', () => post(ASSESSMENT, { ...fixture('assessment-request'), dokLevels: [2, 5] }), 400, 'invalid_request'],
      ['an item type not in the list', () => post(ASSESSMENT, { ...fixture('assessment-request'), itemTypes: ['essay'] }), 400, 'invalid_request'],
      ['too many items', () => post(ASSESSMENT, { ...fixture('assessment-request'), itemCount: 21 }), 400, 'invalid_request'],
      ['an artifact past its bound', () => post(QUALITY, { ...fixture('quality-request'), artifact: { ...(fixture('quality-request').artifact as Json), text: 'a'.repeat(20_001) } }), 400, 'invalid_request'],
      ['no Idempotency-Key', () => post(ASSESSMENT, fixture('assessment-request'), null), 400, 'idempotency_key_required'],
    ];
    for (const [name, send, status, code] of cases) {
      const before = await ledger();
      const sent = fake.requests.length;
      const problem = expectRuntimeProblem(await send(), status, code);
      expect(JSON.stringify(problem), name).not.toContain('Maria');
      expect(await ledger(), name).toBe(before);
      expect(fake.requests.length, name).toBe(sent);
    }
  });

  it('answers invalid model output as model_output_invalid, a billable failure with its receipt, nothing of it returned', async () => {
    const assessment = fixture('assessment-output') as Json & { items: Json[] };
    const cases: Array<[string, string, Json, unknown]> = [
      ['too few items', ASSESSMENT, fixture('assessment-request'), { ...assessment, items: assessment.items.slice(0, 2) }],
      ['an unsent standard', ASSESSMENT, fixture('assessment-request'), { ...assessment, items: assessment.items.map((i, k) => (k === 0 ? { ...i, standards: ['7.RP.A.2'] } : i)) }],
      ['not JSON', ASSESSMENT, fixture('assessment-request'), 'Here is your assessment: 1. What is a ratio?'],
      ['an empty review checklist', PRACTICE, fixture('practice-request'), { ...fixture('practice-output'), reviewChecklist: [] }],
      ['a quality quote not in the artifact', QUALITY, fixture('quality-request'), { ...fixture('quality-output'), findings: [{ dimension: 'bias-risk', severity: 'concern', summary: 's', excerpt: 'Not in the artifact at all.' }] }],
    ];
    for (const [name, path, request, output] of cases) {
      fake.script(reply(output));
      const sent = fake.requests.length;
      const answer = await post(path, request);
      const problem = expectRuntimeProblem(answer, 502, 'model_output_invalid');
      expect(problem.details?.problems, name).toEqual(expect.arrayContaining([expect.any(String)]));
      expect(answer.body.receipts, name).toEqual([
        expect.objectContaining({ kind: 'service.product-runtime-operation' }),
        expect.objectContaining({ kind: 'service.product-intelligence-usage', outcome: 'billable_failure', costMicrodollars: 1200 + 800 * 2 }),
      ]);
      expect(fake.requests.length, name).toBe(sent + 1);
      const ledgerId = answer.body.receipts[1]!.ledgerId as string;
      const [row] = await gateway.db.query<{ state: string; charged: string }>('SELECT state, charged_microdollars::text AS charged FROM intelligence_ledger WHERE id = $1', [ledgerId]);
      expect(row, name).toEqual({ state: 'billable_failure', charged: String(1200 + 800 * 2) });
    }
  });
});

describe('education drafts without a model', () => {
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  beforeAll(async () => {
    ({ gateway, chain, token } = await startBudgetedGateway('drafts-nomodel'));
  });
  afterAll(() => gateway.stop());

  it('answers an unavailable envelope for each endpoint and reserves nothing', async () => {
    const calls: Array<[string, Json, string]> = [
      [PRACTICE, fixture('practice-request'), 'service.education-practice-review'],
      [ASSESSMENT, fixture('assessment-request'), 'service.education-assessment-draft'],
      [QUALITY, fixture('quality-request'), 'service.education-quality-review'],
    ];
    for (const [path, json, kind] of calls) {
      const answer = await callRuntime<Json>(gateway, token, 'POST', path, { json, headers: { 'Idempotency-Key': randomUUID() } });
      expect(answer.body, path).toMatchObject({ version: 1, kind, status: 'unavailable', data: null, problems: [{ code: 'unavailable' }] });
      expect(answer.body.receipts.map((r) => r.kind), path).toEqual(['service.product-runtime-operation']);
    }
    const rows = await gateway.db.query('SELECT id FROM intelligence_ledger WHERE organization_id = $1', [chain.organization.id]);
    expect(rows).toEqual([]);
  });
});
