import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATE_REVIEW_NOTE } from '../src/domains/education/generate/index.ts';
import type { LedgerEntry } from '../src/domains/models/index.ts';
import type { ModelFake } from './fakes/model/server.ts';
import type { TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem } from './support/runtime-checks.ts';
import { callRuntime, runtimeToken, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';
import { TEST_BUDGET_MICRODOLLARS, ledgerSnapshot, startBudgetedGateway, startMeteredGateway, type MeteredGateway } from './support/metered-gateway.ts';

// Education generation through a started gateway and the fake model (docs/education.md, "Generation"): the JSON
// answer with its receipts, the NDJSON stream (ready, deltas, done), a client that goes away mid-stream (the model
// request aborted, a billable failure), replays without a second model call, and refusals that reserve nothing and
// send nothing to the model.

const GENERATE = '/api/product/v1/intelligence/education/generate';
const KIND = 'service.education-generation';

type Json = Record<string, unknown>;

const REQUEST: Json = {
  intent: 'weekly-plan',
  course: { title: 'Grade 6 Mathematics', subject: 'mathematics', gradeBand: '6-8' },
  standards: [
    { code: '6.RP.A.1', statement: 'Understand the concept of a ratio and use ratio language to describe a ratio relationship between two quantities.' },
    { code: '6.RP.A.2', statement: 'Understand the concept of a unit rate associated with a ratio.' },
  ],
  sources: [{ id: 'unit2-reading', title: 'Unit 2 reading', excerpt: 'A ratio compares two quantities.' }],
  request: 'Plan the week with a check for understanding every day.',
};

const DRAFT =
  '# Draft weekly plan: ratios (for your review)\n\n' +
  'Aligned to 6.RP.A.1 and 6.RP.A.2, from [source: unit2-reading].\n\n' +
  '## Monday\n- Activity: sort objects and write ratios.\n- Check for understanding: exit ticket.\n\n' +
  'This is a draft for you, the teacher, to review and adapt before use.';
const USAGE = { inputTokens: 1200, outputTokens: 800 };
const COST = 1200 * 1 + 800 * 2;

interface Streamed {
  status: number;
  headers: Headers;
  events: Json[];
  envelope?: Json;
}

describe('education generation through the Product Runtime and the fake model', () => {
  let fake: ModelFake;
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  let started: MeteredGateway;

  beforeAll(async () => {
    started = await startMeteredGateway('generate', { scopes: ['intelligence.execute', 'notes.publish'] });
    ({ fake, gateway, chain, token } = started);
  });
  afterAll(() => started.stop());

  function post(json: unknown, key: string | null = randomUUID(), bearer = token): Promise<RuntimeAnswer<Json>> {
    return callRuntime<Json>(gateway, bearer, 'POST', GENERATE, { json, headers: { 'Idempotency-Key': key } });
  }

  /** Calls the route asking for NDJSON and reads every event (or the plain envelope of a refusal). */
  async function stream(json: unknown, key: string, signal?: AbortSignal, onEvent?: (event: Json) => void): Promise<Streamed> {
    const response = await fetch(`${gateway.url}${GENERATE}`, {
      method: 'POST',
      headers: {
        'X-Service-Runtime-Version': '1',
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/x-ndjson',
        'Idempotency-Key': key,
      },
      body: JSON.stringify(json),
      ...(signal ? { signal } : {}),
    });
    if (!response.headers.get('content-type')?.startsWith('application/x-ndjson')) {
      return { status: response.status, headers: response.headers, events: [], envelope: (await response.json()) as Json };
    }
    const events: Json[] = [];
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let partial = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      partial += decoder.decode(value, { stream: true });
      let newline: number;
      while ((newline = partial.indexOf('\n')) >= 0) {
        const event = JSON.parse(partial.slice(0, newline)) as Json;
        partial = partial.slice(newline + 1);
        events.push(event);
        onEvent?.(event);
      }
    }
    expect(partial).toBe('');
    return { status: response.status, headers: response.headers, events };
  }

  /** The organization's ledger rows and counters, to prove that a refusal reserved nothing. */
  const ledger = (): Promise<string> => ledgerSnapshot(gateway, chain);

  function expectReceipts(envelope: Json, outcome: 'settled' | 'billable_failure', replayed = false): void {
    expect(envelope.receipts).toEqual([
      expect.objectContaining({ kind: 'service.product-runtime-operation' }),
      expect.objectContaining({ kind: 'service.product-intelligence-usage', meteredKind: 'education-generate', outcome, replayed, costMicrodollars: COST }),
    ]);
  }

  it('answers JSON: the proposed draft, its checked citations and the usage receipt', async () => {
    fake.script({ kind: 'reply', text: DRAFT, usage: USAGE });
    const sent = fake.requests.length;
    const answer = await post(REQUEST);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 600)).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, kind: KIND, status: 'ok', problems: [] });
    expect(answer.body.data).toEqual({
      status: 'proposed',
      intent: 'weekly-plan',
      locale: 'en',
      format: 'markdown',
      text: DRAFT,
      citations: { standards: ['6.RP.A.1', '6.RP.A.2'], sources: ['unit2-reading'] },
      review: GENERATE_REVIEW_NOTE,
    });
    expectReceipts(answer.body as unknown as Json, 'settled');
    expect(answer.body.receipts[1]).toMatchObject({ requestId: answer.body.requestId, usage: { ...USAGE, images: 0 } });
    expect(fake.requests.length).toBe(sent + 1);
    // Our instructions first; the caller's text only as delimited data; Markdown asked, not JSON.
    const body = fake.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }>; response_format?: unknown; stream?: boolean };
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(body.messages[0]!.content).not.toContain('Plan the week');
    expect(body.messages[1]!.content).toContain('<<<REQUEST_DATA_JSON');
    expect(body.messages[1]!.content).toContain('Plan the week');
    expect(body.response_format).toBeUndefined();
  });

  it('streams NDJSON: ready, the deltas in order, done with the envelope whose text they make', async () => {
    fake.script({ kind: 'reply', text: DRAFT, usage: USAGE, chunks: 6 });
    const sent = fake.requests.length;
    const answer = await stream(REQUEST, randomUUID());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/x-ndjson');
    expect(answer.headers.get('x-service-runtime-version')).toBe('1');
    const types = answer.events.map((e) => e.type);
    expect(types[0]).toBe('ready');
    expect(types.at(-1)).toBe('done');
    expect(types.slice(1, -1).every((t) => t === 'delta')).toBe(true);
    expect(types.length).toBeGreaterThan(3);
    expect(answer.events[0]).toMatchObject({ type: 'ready', kind: KIND, meteredKind: 'education-generate', intent: 'weekly-plan', replayed: false });
    const envelope = answer.events.at(-1)!.envelope as Json;
    expect(envelope).toMatchObject({ version: 1, kind: KIND, status: 'ok', problems: [], data: { status: 'proposed', text: DRAFT } });
    expect(answer.events[0]!.requestId).toBe(envelope.requestId);
    expectReceipts(envelope, 'settled');
    expect(answer.events.slice(1, -1).map((e) => e.text).join('')).toBe((envelope.data as Json).text);
    expect(fake.requests.length).toBe(sent + 1);
    expect(fake.requests.at(-1)!.stream).toBe(true);
  });

  it('replays a settled key without a model call, as JSON and as a stream', async () => {
    fake.script({ kind: 'reply', text: DRAFT, usage: USAGE });
    const key = randomUUID();
    const first = await post(REQUEST, key);
    expect(first.status).toBe(200);
    const sent = fake.requests.length;
    const before = await ledger();
    const again = await post(REQUEST, key);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectReceipts(again.body as unknown as Json, 'settled', true);
    const streamed = await stream(REQUEST, key);
    expect(streamed.events.map((e) => e.type)).toEqual(['ready', 'delta', 'done']);
    expect(streamed.headers.get('idempotent-replayed')).toBe('true');
    expect(streamed.events[0]).toMatchObject({ replayed: true });
    expect(streamed.events[1]!.text).toBe(DRAFT);
    expect(streamed.events[2]!.envelope).toMatchObject({ status: 'ok', data: first.body.data });
    expect(fake.requests.length).toBe(sent);
    expect(await ledger()).toBe(before);
  });

  it('aborts the model request when the client goes away mid-stream, and charges it as a billable failure', async () => {
    // The fake sends its headers, the role chunk and one piece of text, then nothing until its client (kgate) aborts.
    fake.script({ kind: 'stall', afterChunks: 2 });
    const sent = fake.requests.length;
    const client = new AbortController();
    const read = stream(REQUEST, randomUUID(), client.signal, (event) => {
      if (event.type === 'delta') client.abort();
    });
    await expect(read).rejects.toThrow();
    expect(fake.requests.length).toBe(sent + 1);
    await fake.idle();
    expect(fake.requests.at(-1)!.aborted).toBe(true);
    // The runner finishes the interrupted request once the abort reached it: wait for its row, boundedly.
    let row: LedgerEntry | undefined;
    for (let attempt = 0; attempt < 400; attempt += 1) {
      row = (await gateway.services.models.recent(chain.organization.id, 1))[0];
      if (row && row.state !== 'reserved' && row.state !== 'dispatched') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(row).toMatchObject({ kind: 'education-generate', state: 'billable_failure', errorCode: 'model_interrupted' });
    expect(row!.chargedMicrodollars).toBeGreaterThan(0);
    const month = await gateway.services.models.month(chain.organization.id, TEST_BUDGET_MICRODOLLARS);
    // The first billable failure of this organization (the earlier tests settled theirs).
    expect(month.requests.billableFailures).toBe(1);
    expect(month.requests.running).toBe(0);
  });

  it('answers model_output_invalid for a draft citing an unselected source, returns none of it, and charges it', async () => {
    fake.script({ kind: 'reply', text: `${DRAFT}\n\nSee also [source: secret-notes].`, usage: USAGE });
    const sent = fake.requests.length;
    const answer = await post(REQUEST);
    const problem = expectRuntimeProblem(answer, 502, 'model_output_invalid');
    expect(JSON.stringify(answer.body)).not.toContain('Draft weekly plan');
    expect(JSON.stringify(problem)).not.toContain('secret-notes');
    expect(answer.body.data).toBeNull();
    expectReceipts(answer.body as unknown as Json, 'billable_failure');
    expect(fake.requests.length).toBe(sent + 1);
    // Over the stream the deltas went out, and done says the draft is invalid: the client discards them.
    fake.script({ kind: 'reply', text: `${DRAFT}\n\nSee also [source: secret-notes].`, usage: USAGE, chunks: 4 });
    const streamed = await stream(REQUEST, randomUUID());
    expect(streamed.status).toBe(200);
    expect(streamed.events.at(-1)!.envelope).toMatchObject({ status: 'error', data: null, problems: [{ code: 'model_output_invalid' }] });
    expectReceipts(streamed.events.at(-1)!.envelope as Json, 'billable_failure');
  });

  it('refuses before any model call and reserves nothing', async () => {
    const before = await ledger();
    const sent = fake.requests.length;
    const narrowToken = await runtimeToken(gateway, chain, 'notes.publish');
    const refusals: Array<[string, () => Promise<RuntimeAnswer<Json>>, number, string]> = [
      ['no key', () => post(REQUEST, null), 400, 'idempotency_key_required'],
      [
        'learner-specific context',
        () =>
          post({
            ...REQUEST,
            context: {
              kind: 'partner.education-context',
              version: 1,
              gradeBand: '6-8',
              learnerCount: 27,
              supports: [{ category: 'multilingual_learners', learnerCount: 8, note: 'Maria Lopez needs a word bank, email maria@example.com' }],
            },
          }),
        422,
        'learner_specific_content',
      ],
      ['learner-specific request', () => post({ ...REQUEST, request: 'Write a plan for Jamie Smith, who failed the quiz; email jamie@example.com' }), 422, 'learner_specific_content'],
      ['oversized request', () => post({ ...REQUEST, request: 'x'.repeat(2001) }), 400, 'invalid_request'],
      ['too many sources', () => post({ ...REQUEST, sources: Array.from({ length: 9 }, (_, i) => ({ id: `s${i}`, title: 't', excerpt: 'e' })) }), 400, 'invalid_request'],
      ['an unknown intent', () => post({ ...REQUEST, intent: 'grade-essays' }), 400, 'invalid_request'],
      ['an unknown field', () => post({ ...REQUEST, model: 'gpt-x' }), 400, 'invalid_request'],
      ['output bound too large', () => post({ ...REQUEST, maxOutputTokens: 100_000 }), 400, 'invalid_request'],
      ['no intelligence.execute', () => post(REQUEST, randomUUID(), narrowToken), 403, 'insufficient_scope'],
    ];
    for (const [name, refuse, status, code] of refusals) {
      const answer = await refuse();
      expect(answer.status, name).toBe(status);
      expect((answer.body.problems as Array<{ code: string }>)[0]!.code, name).toBe(code);
    }
    // Over the stream too, a refusal is a plain envelope with its status.
    const refused = await stream({ ...REQUEST, intent: 'grade-essays' }, randomUUID());
    expect(refused.status).toBe(400);
    expect(refused.envelope).toMatchObject({ status: 'error', problems: [{ code: 'invalid_request' }] });
    expect(fake.requests.length).toBe(sent);
    expect(await ledger()).toBe(before);
  });
});

describe('education generation without a model', () => {
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  beforeAll(async () => {
    ({ gateway, chain, token } = await startBudgetedGateway('generate-nomodel'));
  });
  afterAll(() => gateway.stop());

  it('answers an unavailable envelope and reserves nothing', async () => {
    const answer = await callRuntime<Json>(gateway, token, 'POST', GENERATE, { json: REQUEST, headers: { 'Idempotency-Key': randomUUID() } });
    expect(answer.body).toMatchObject({ version: 1, kind: KIND, status: 'unavailable', data: null, problems: [{ code: 'unavailable' }] });
    const rows = await gateway.db.query('SELECT id FROM intelligence_ledger WHERE organization_id = $1', [chain.organization.id]);
    expect(rows).toEqual([]);
  });
});
