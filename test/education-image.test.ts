import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inputTokenBound } from '../src/domains/education/drafting/index.ts';
import { IMAGE_PLAN_MAX_OUTPUT_TOKENS, ImageInputSchema, imagePlanPrompt } from '../src/domains/education/image/index.ts';
import { FAKE_IMAGE_BYTES, modelEnvOf, startModelFake, type ModelFake } from './fakes/model/server.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';
import { ledgerSnapshot, startMeteredGateway, type MeteredGateway } from './support/metered-gateway.ts';

// Image generation through a started gateway and the fake model (docs/education.md, "Image generation"): one chat
// call for the plan and one image call in one reservation, the image as base64 with its media type, length and
// SHA-256, and the checked alt text; bytes of another format (GIF, or JPEG when PNG was asked) are
// model_output_invalid with no bytes returned and a billable failure recorded; a plan that fails its checks draws
// nothing; bad briefs are refused with nothing reserved or sent; no model, or no image model: unavailable.

const IMAGE = '/api/product/v1/intelligence/education/generate-image';
const KIND = 'service.education-image';

type Json = Record<string, unknown>;
const USAGE = { inputTokens: 700, outputTokens: 150 };
const PRICE_IMAGE = 40_000;
const GIF = Uint8Array.from([0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0]);

const brief = (overrides: Json = {}): Json => ({
  type: 'diagram',
  topic: 'the water cycle',
  audience: { gradeBand: '3-5', subject: 'science' },
  style: 'flat-vector',
  orientation: 'landscape',
  palette: 'colorblind-safe',
  requiredElements: ['evaporation arrow', 'cloud', 'rain'],
  exclusions: ['people', 'text labels'],
  altTextIntent: 'the order of the stages',
  ...overrides,
});
const request = (overrides: Json = {}, briefOverrides: Json = {}): Json => ({ context: 'teach', brief: brief(briefOverrides), ...overrides });

const PLAN = {
  prompt: 'A flat diagram: the sun warms a lake, an evaporation arrow rises to a cloud, and rain falls back into the lake.',
  altText: 'Water rises from a lake as vapour, gathers into a cloud and falls back as rain, in a loop.',
  promptSummary: 'A looped diagram of evaporation, a cloud and rain over a lake.',
};
const plan = (fields: Json = {}) => ({ kind: 'reply', text: JSON.stringify({ ...PLAN, ...fields }), usage: USAGE }) as const;
const image = (bytes: Uint8Array) => ({ kind: 'image', bytes }) as const;

describe('image generation through the Product Runtime and the fake model', () => {
  let fake: ModelFake;
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  let started: MeteredGateway;

  beforeAll(async () => {
    started = await startMeteredGateway('image');
    ({ fake, gateway, chain, token } = started);
  });
  afterAll(() => started.stop());

  function post(json: unknown, key: string | null = randomUUID()): Promise<RuntimeAnswer<Json>> {
    return callRuntime<Json>(gateway, token, 'POST', IMAGE, { json, headers: { 'Idempotency-Key': key } });
  }

  /** The organization's ledger rows and counters, to prove that a refusal reserved nothing. */
  const ledger = (): Promise<string> => ledgerSnapshot(gateway, chain);

  async function ledgerRow(ledgerId: unknown): Promise<{ state: string; charged: string; reserved: string }> {
    const [row] = await gateway.db.query<{ state: string; charged: string; reserved: string }>(
      'SELECT state, charged_microdollars::text AS charged, reserved_microdollars::text AS reserved FROM intelligence_ledger WHERE id = $1',
      [ledgerId],
    );
    return row!;
  }

  it('draws a PNG from the checked plan, with alt text and a usage receipt covering both calls; a retry replays it', async () => {
    fake.script(plan(), image(FAKE_IMAGE_BYTES.png));
    const sent = fake.requests.length;
    const key = randomUUID();
    const answer = await post(request(), key);
    expect(answer.status, JSON.stringify(answer.body).slice(0, 800)).toBe(200);
    expect(answer.body).toMatchObject({ version: 1, kind: KIND, status: 'ok', problems: [] });
    expect(answer.body.receipts).toEqual([
      expect.objectContaining({ kind: 'service.product-runtime-operation', requestId: answer.body.requestId }),
      expect.objectContaining({
        kind: 'service.product-intelligence-usage',
        meteredKind: 'education-generate-image',
        requestId: answer.body.requestId,
        outcome: 'settled',
        model: { provider: expect.any(String), chat: 'fake-chat-1', image: 'fake-image-1' },
        usage: { ...USAGE, images: 1 },
        costMicrodollars: USAGE.inputTokens + USAGE.outputTokens * 2 + PRICE_IMAGE,
        replayed: false,
      }),
    ]);
    const bytes = Buffer.from(FAKE_IMAGE_BYTES.png);
    expect(answer.body.data).toEqual({
      image: {
        mediaType: 'image/png',
        format: 'png',
        size: '1536x1024',
        byteLength: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        base64: bytes.toString('base64'),
      },
      altText: PLAN.altText,
      promptSummary: PLAN.promptSummary,
      status: 'proposed',
      review: expect.any(String),
    });
    // One reservation bounds both calls: the plan's input and output tokens, and one image.
    const planned = imagePlanPrompt(ImageInputSchema.parse(request())).messages;
    expect(answer.body.receipts[1]!.reservedMicrodollars).toBe(inputTokenBound(planned) + IMAGE_PLAN_MAX_OUTPUT_TOKENS * 2 + PRICE_IMAGE);

    // The chat call carried the brief as data; the image call got the plan with the brief's constraints, stated by us.
    expect(fake.requests.length).toBe(sent + 2);
    const [chatCall, imageCall] = fake.requests.slice(-2);
    expect(chatCall!.path).toBe('/v1/chat/completions');
    const messages = (chatCall!.body as { messages: Array<{ role: string; content: string }> }).messages;
    expect(messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(messages[0]!.content).not.toContain('water cycle');
    expect(messages[1]!.content).toContain('"topic":"the water cycle"');
    expect(imageCall!.path).toBe('/v1/images/generations');
    expect(imageCall!.body).toMatchObject({ model: 'fake-image-1', size: '1536x1024', output_format: 'png' });
    const prompt = (imageCall!.body as { prompt: string }).prompt;
    expect(prompt.startsWith(PLAN.prompt)).toBe(true);
    expect(prompt).toContain('Do not include: people; text labels.');
    expect(prompt).toContain('flat-vector');

    const replay = await post(request(), key);
    expect(replay.status).toBe(200);
    expect(replay.body.data).toEqual(answer.body.data);
    expect(replay.body.receipts[1]).toMatchObject({ replayed: true, ledgerId: answer.body.receipts[1]!.ledgerId });
    expect(fake.requests.length).toBe(sent + 2);
  });

  it('draws JPEG and WebP in the orientation asked for', async () => {
    for (const [format, orientation, size] of [
      ['jpeg', 'portrait', '1024x1536'],
      ['webp', 'square', '1024x1024'],
    ] as const) {
      fake.script(plan(), image(FAKE_IMAGE_BYTES[format]));
      const answer = await post(request({ format }, { orientation }));
      expect(answer.status, format).toBe(200);
      expect(answer.body.data.image, format).toMatchObject({ mediaType: `image/${format}`, format, size, base64: Buffer.from(FAKE_IMAGE_BYTES[format]).toString('base64') });
      expect(fake.requests.at(-1)!.body, format).toMatchObject({ size, output_format: format });
    }
  });

  it('answers an image of another format as model_output_invalid: no bytes returned, a billable failure recorded', async () => {
    const cases: Array<[string, Uint8Array, Json]> = [
      ['GIF bytes', GIF, {}],
      ['JPEG when PNG was asked', FAKE_IMAGE_BYTES.jpeg, {}],
      ['PNG when WebP was asked', FAKE_IMAGE_BYTES.png, { format: 'webp' }],
    ];
    for (const [name, bytes, overrides] of cases) {
      fake.script(plan(), image(bytes));
      const sent = fake.requests.length;
      const answer = await post(request(overrides));
      expectRuntimeProblem(answer, 502, 'model_output_invalid');
      expect(answer.body.receipts, name).toEqual([
        expect.objectContaining({ kind: 'service.product-runtime-operation' }),
        expect.objectContaining({ kind: 'service.product-intelligence-usage', meteredKind: 'education-generate-image', outcome: 'billable_failure' }),
      ]);
      expect(fake.requests.length, name).toBe(sent + 2);
      const body = JSON.stringify(answer.body);
      expect(body, name).not.toContain(Buffer.from(bytes).toString('base64'));
      expect(body, name).not.toContain(PLAN.altText);
      const usage = answer.body.receipts[1]!;
      const row = await ledgerRow(usage.ledgerId);
      expect(row.state, name).toBe('billable_failure');
      // The plan's tokens and the one image drawn are charged, though the image is not returned.
      expect(usage, name).toMatchObject({ usage: { ...USAGE, images: 1 }, costMicrodollars: USAGE.inputTokens + USAGE.outputTokens * 2 + PRICE_IMAGE });
      expect(Number(row.charged), name).toBe(usage.costMicrodollars);
    }
  });

  it('draws nothing when the plan fails its checks: model_output_invalid, billable for the chat call only', async () => {
    const cases: Array<[string, unknown]> = [
      ['"image of" in the alt text', { altText: 'Image of the water cycle: a cloud and rain over a lake.' }],
      ['a required element not named', { prompt: 'A lake, a cloud and rain.' }],
      ['an exclusion named', { prompt: `${PLAN.prompt} No people anywhere.` }],
      ['an empty alt text', { altText: '' }],
    ];
    for (const [name, fields] of cases) {
      fake.script(plan(fields as Json));
      const sent = fake.requests.length;
      const answer = await post(request());
      const problem = expectRuntimeProblem(answer, 502, 'model_output_invalid');
      expect(problem.details?.problems, name).toEqual(expect.arrayContaining([expect.any(String)]));
      expect(fake.requests.length, name).toBe(sent + 1);
      expect(answer.body.receipts[1], name).toMatchObject({ outcome: 'billable_failure', usage: { ...USAGE, images: 0 }, costMicrodollars: USAGE.inputTokens + USAGE.outputTokens * 2 });
    }
  });

  it('refuses bad briefs before anything is reserved or sent', async () => {
    const learnerRecord = { kind: 'partner.education-context', version: 1, gradeBand: '3-5', notes: 'She has an IEP and sits near the door.' };
    const cases: Array<[string, () => Promise<RuntimeAnswer<Json>>, number, string]> = [
      ['a required element also excluded', () => post(request({}, { requiredElements: ['happy people'], exclusions: ['people'] })), 400, 'invalid_request'],
      ['a style not approved', () => post(request({}, { style: 'photorealistic celebrity' })), 400, 'invalid_request'],
      ['an unknown orientation', () => post(request({}, { orientation: 'panorama' })), 400, 'invalid_request'],
      ['an unknown context', () => post(request({ context: 'grade' })), 400, 'invalid_request'],
      ['a GIF asked for', () => post(request({ format: 'gif' })), 400, 'invalid_request'],
      ['no required element', () => post(request({}, { requiredElements: [] })), 400, 'invalid_request'],
      ['thirteen exclusions', () => post(request({}, { exclusions: Array.from({ length: 13 }, (_, i) => `thing ${i}`) })), 400, 'invalid_request'],
      ['an unknown field', () => post(request({}, { seed: 42 })), 400, 'invalid_request'],
      ['learner record language in the context packet', () => post(request({ educationContext: learnerRecord })), 422, 'learner_specific_content'],
      ['no Idempotency-Key', () => post(request(), null), 400, 'idempotency_key_required'],
    ];
    for (const [name, send, status, code] of cases) {
      const before = await ledger();
      const sent = fake.requests.length;
      expectRuntimeProblem(await send(), status, code);
      expect(await ledger(), name).toBe(before);
      expect(fake.requests.length, name).toBe(sent);
    }
  });

  it('reserves the image with the plan: a budget that fits the chat call but not the image sends nothing', async () => {
    const small = await createRuntimeChain(gateway, 'image-small', { scopes: ['intelligence.execute'] });
    const smallToken = await runtimeToken(gateway, small);
    const sent = fake.requests.length;
    const send = () => callRuntime<Json>(gateway, smallToken, 'POST', IMAGE, { json: request(), headers: { 'Idempotency-Key': randomUUID() } });
    expectRuntimeProblem(await send(), 403, 'intelligence_budget_unset');
    // The chat call alone is bounded well under 30,000 microdollars; with the image (40,000) it does not fit.
    await gateway.services.runtimeAdmin.setOrganizationSettings(small.organization.slug, { intelligenceBudgetMicrodollarsMonthly: 30_000 });
    expectRuntimeProblem(await send(), 429, 'intelligence_budget_exhausted');
    expect(fake.requests.length).toBe(sent);
    expect(await gateway.db.query('SELECT id FROM intelligence_ledger WHERE organization_id = $1', [small.organization.id])).toEqual([]);
  });
});

describe('image generation without a model, or without an image model', () => {
  let fake: ModelFake;
  const gateways: TestGateway[] = [];

  beforeAll(async () => {
    fake = await startModelFake();
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await fake.close();
  });

  it('answers an unavailable envelope, reserves nothing and sends nothing', async () => {
    const { KGATE_MODEL_IMAGE: _image, KGATE_MODEL_PRICE_IMAGE: _price, ...chatOnly } = modelEnvOf(fake);
    for (const [name, env] of [
      ['no model', {}],
      ['no image model', chatOnly],
    ] as const) {
      const gateway = await startTestGateway({ env });
      gateways.push(gateway);
      const chain = await createRuntimeChain(gateway, 'image-nomodel', { scopes: ['intelligence.execute'] });
      await gateway.services.runtimeAdmin.setOrganizationSettings(chain.organization.slug, { intelligenceBudgetMicrodollarsMonthly: 50_000_000 });
      const token = await runtimeToken(gateway, chain);
      const answer = await callRuntime<Json>(gateway, token, 'POST', IMAGE, { json: request(), headers: { 'Idempotency-Key': randomUUID() } });
      expect(answer.body, name).toMatchObject({ version: 1, kind: KIND, status: 'unavailable', data: null, problems: [{ code: 'unavailable' }] });
      expect(answer.body.receipts.map((r) => r.kind), name).toEqual(['service.product-runtime-operation']);
      expect(await gateway.db.query('SELECT id FROM intelligence_ledger WHERE organization_id = $1', [chain.organization.id]), name).toEqual([]);
    }
    expect(fake.requests).toEqual([]);
  });
});
