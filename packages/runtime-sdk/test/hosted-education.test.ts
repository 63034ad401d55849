// The model-backed education operations of the hosted adapter on the wire (a scripted server stands in for the
// gateway; test/runtime-sdk-hosted.test.ts in the repository runs them against the real one and the fake model):
// each is POSTed to its route with an Idempotency-Key, the same key on every retry; only what frees or keeps the key
// usable is retried (503 model_unavailable, 429 concurrency), never a billable failure, an exhausted budget, a key in
// flight or an `unavailable` answer; a transport failure names the key, and calling again with it replays.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RuntimeTransportError, createHostedRuntime, createLocalRuntime, safetyReceiptOf, usageReceiptOf, type HostedRuntimeOptions, type ProductRuntime } from '../src/index.js';
import { json, startScriptedServer, type Reply, type ScriptedServer } from './scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(() => server.close());

function runtime(options: Partial<HostedRuntimeOptions> = {}): ProductRuntime {
  return createHostedRuntime({ baseUrl: server.baseUrl, clientId: 'principal-1', credentials: { clientSecret: 'kgcs_secret' }, backoff: { baseDelayMs: 0 }, ...options });
}

const EDUCATION = '/api/product/v1/intelligence/education';
const usage = {
  kind: 'service.product-intelligence-usage',
  requestId: 'req-1',
  ledgerId: 'l1',
  meteredKind: 'education-practice-review',
  model: { provider: 'openai-compatible', chat: 'fake-chat-1', image: null },
  usage: { inputTokens: 10, outputTokens: 5, images: 0 },
  reservedMicrodollars: 100,
  costMicrodollars: 20,
  outcome: 'settled',
  month: '2026-11',
  replayed: false,
};
const ok = (kind: string, data: unknown, receipts: unknown[] = [usage]) => ({ version: 1, kind, status: 'ok', data, receipts, problems: [], requestId: 'req-1' });
const problem = (code: string, receipts: unknown[] = []) => ({ version: 1, kind: 'service.problem', status: 'error', data: null, receipts, problems: [{ code, message: code }], requestId: 'req-2' });

describe('metered education operations of the hosted adapter', () => {
  it('POSTs each to its route with the request as sent, a fresh key per call, and returns data with its receipts', async () => {
    const rt = runtime();
    const calls: Array<[string, () => Promise<unknown>, string]> = [
      ['practice-review', () => rt.reviewPractice({ a: 1 }), 'service.education-practice-review'],
      ['assessment-draft', () => rt.draftAssessment({ a: 2 }), 'service.education-assessment-draft'],
      ['quality-review', () => rt.reviewQuality({ a: 3 }), 'service.education-quality-review'],
      ['rubric-draft', () => rt.draftRubric({ a: 4 }), 'service.education-rubric-draft'],
      ['generate-image', () => rt.generateImage({ a: 5 }), 'service.education-image'],
      ['student-guidance', () => rt.studentGuidance({ a: 6 }), 'service.education-student-guidance'],
    ];
    for (const [, send, kind] of calls) {
      server.replies.push(json(200, ok(kind, { status: 'proposed' })));
      const answer = (await send()) as { status: string; kind: string; receipts: unknown[] };
      expect(answer).toMatchObject({ status: 'ok', kind, data: { status: 'proposed' } });
      expect(usageReceiptOf(answer as never)).toEqual(usage);
    }
    const sent = server.apiCalls();
    expect(sent.map((c) => `${c.method} ${c.path}`)).toEqual(calls.map(([path]) => `POST ${EDUCATION}/${path}`));
    expect(sent.map((c): unknown => JSON.parse(c.body))).toEqual([1, 2, 3, 4, 5, 6].map((a) => ({ a })));
    const keys = sent.map((c) => c.headers['idempotency-key']);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(6);
    for (const c of sent) expect(c.headers['x-service-runtime-version']).toBe('1');
  });

  it('reads rubrics without a key', async () => {
    const rt = runtime();
    server.replies.push(json(200, ok('service.education-rubrics', { rubrics: [], nextCursor: null, truncated: false }, [])), json(200, ok('service.education-rubric', {}, [])));
    await rt.listRubrics({ limit: 5, cursor: 'c1' });
    await rt.getRubric('r/1');
    expect(server.apiCalls().map((c) => [c.method, c.path, c.headers['idempotency-key']])).toEqual([
      ['GET', `${EDUCATION}/rubrics?cursor=c1&limit=5`, undefined],
      ['GET', `${EDUCATION}/rubrics/r%2F1`, undefined],
    ]);
  });

  it('retries model_unavailable (503, released) and a concurrency ceiling (429) with the same key, the caller’s when given', async () => {
    server.replies.push(
      json(503, problem('model_unavailable')),
      json(429, problem('intelligence_concurrency_exhausted'), { 'retry-after': '0' }),
      json(200, ok('service.education-student-guidance', { guidance: 'hint' }, [usage, { kind: 'service.education-safety', withheld: false }])),
    );
    const answer = await runtime().studentGuidance({ learnerMessage: 'x' }, { idempotencyKey: 'guidance-key-1' });
    expect(answer.status).toBe('ok');
    expect(safetyReceiptOf(answer)).toMatchObject({ kind: 'service.education-safety', withheld: false });
    expect(server.apiCalls().map((c) => c.headers['idempotency-key'])).toEqual(['guidance-key-1', 'guidance-key-1', 'guidance-key-1']);
  });

  it('does not retry a billable failure, an exhausted budget, an unset budget, a key in flight or reused, nor an unavailable answer', async () => {
    const billable = { ...usage, outcome: 'billable_failure' };
    const unavailable = { version: 1, kind: 'service.education-quality-review', status: 'unavailable', data: null, receipts: [], problems: [{ code: 'unavailable', message: 'No model.' }], requestId: 'r' };
    const cases: Array<[Reply, number, string]> = [
      [json(502, problem('model_output_invalid', [billable])), 502, 'model_output_invalid'],
      [json(504, problem('model_timeout', [billable])), 504, 'model_timeout'],
      [json(502, problem('model_interrupted', [billable])), 502, 'model_interrupted'],
      [json(429, problem('intelligence_budget_exhausted')), 429, 'intelligence_budget_exhausted'],
      [json(403, problem('intelligence_budget_unset')), 403, 'intelligence_budget_unset'],
      [json(409, problem('idempotency_key_in_flight')), 409, 'idempotency_key_in_flight'],
      [json(409, problem('idempotency_key_reused')), 409, 'idempotency_key_reused'],
    ];
    const rt = runtime();
    for (const [reply, status, code] of cases) {
      server.replies.push(reply);
      const before = server.apiCalls().length;
      const answer = await rt.reviewQuality({ artifact: {} });
      expect(answer).toMatchObject({ status: 'error', httpStatus: status, problems: [{ code }] });
      expect(server.apiCalls().length - before).toBe(1);
      // A billable failure says what it cost.
      if (status >= 502) expect(usageReceiptOf(answer)).toMatchObject({ outcome: 'billable_failure' });
    }
    server.replies.push(json(200, unavailable));
    expect(await rt.reviewQuality({})).toMatchObject({ status: 'unavailable', problems: [{ code: 'unavailable' }] });
    expect(server.apiCalls()).toHaveLength(cases.length + 1);
  });

  it('names the key in a transport failure, so that calling again with it replays instead of paying twice', async () => {
    const hangUp: Reply = (_request, response) => response.socket?.destroy();
    server.replies.push(hangUp, hangUp);
    const failure = await runtime({ retries: 1 })
      .draftAssessment({ itemCount: 3 })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RuntimeTransportError);
    const { idempotencyKey } = failure as RuntimeTransportError;
    expect(idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.apiCalls().map((c) => c.headers['idempotency-key'])).toEqual([idempotencyKey, idempotencyKey]);

    server.replies.push(json(200, ok('service.education-assessment-draft', { status: 'proposed' }, [{ ...usage, replayed: true }])));
    const replay = await runtime().draftAssessment({ itemCount: 3 }, { idempotencyKey });
    expect(usageReceiptOf(replay)).toMatchObject({ replayed: true });
    expect(server.apiCalls().at(-1)!.headers['idempotency-key']).toBe(idempotencyKey);
  });

  it('a server without the routes answers unavailable; a rubric named in a draft that is not there stays not_found', async () => {
    server.replies.push(json(404, problem('not_found')), json(404, problem('not_found')));
    const rt = runtime();
    expect(await rt.reviewPractice({})).toMatchObject({ status: 'unavailable', problems: [{ code: 'not_available', details: { reason: 'not_offered' } }] });
    expect(await rt.draftRubric({ rubricId: '7c8e1a52-0000-4000-8000-000000000000' })).toMatchObject({ status: 'error', httpStatus: 404, problems: [{ code: 'not_found' }] });
  });

  it('the local adapter answers each unavailable, hosted only', async () => {
    const local = createLocalRuntime({ root: '/nonexistent-kgate-root' });
    for (const answer of [
      await local.reviewPractice({}),
      await local.draftAssessment({}),
      await local.reviewQuality({}),
      await local.draftRubric({}),
      await local.listRubrics(),
      await local.getRubric('x'),
      await local.generateImage({}),
      await local.studentGuidance({}),
    ]) {
      expect(answer).toMatchObject({ status: 'unavailable', data: null, receipts: [], problems: [{ code: 'not_available', details: { reason: 'hosted_only' } }] });
    }
  });
});
