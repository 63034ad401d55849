/**
 * Spec 8 rule 4 and 7.9 over the Product Runtime's wire, at the generate endpoint against the fake model: a missing
 * budget fails closed, an organization budget or an installation sublimit too small for the request's bounded cost
 * refuses it, the concurrency ceiling refuses a call while another runs (with Retry-After), and a stalled model ends
 * in model_timeout, recorded as a billable failure charged its reservation and carrying its usage receipt. Every
 * refusal reserves nothing and sends nothing to the model. (The ledger's own rules, and the randomized 500-request
 * run, are src/domains/models/runner.test.ts and ledger-randomized.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelFake } from './fakes/model/server.ts';
import type { TestGateway } from './support/gateway.ts';
import { ledgerSnapshot, startMeteredGateway, type MeteredGateway } from './support/metered-gateway.ts';
import { callRuntime, runtimeToken, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';

const GENERATE = '/api/product/v1/intelligence/education/generate';
type Json = Record<string, unknown>;

const REQUEST: Json = {
  intent: 'lesson-plan',
  course: { title: 'Grade 4 Science', subject: 'science', gradeBand: '3-5' },
  standards: [{ code: '4-PS3-2', statement: 'Make observations to provide evidence that energy can be transferred from place to place.' }],
  request: 'A 45-minute lesson with one check for understanding.',
  maxOutputTokens: 500,
};
const DRAFT = '# Draft lesson: energy transfer (for your review)\n\nAligned to 4-PS3-2.\n\n- Check for understanding: exit ticket.\n\nA draft for you, the teacher, to review.';

let fake: ModelFake;
let gateway: TestGateway;
let chain: RuntimeChainSetup;
let token: string;

const post = (key: string = randomUUID(), signal?: AbortSignal): Promise<RuntimeAnswer<Json>> =>
  callRuntime<Json>(gateway, token, 'POST', GENERATE, { json: REQUEST, headers: { 'Idempotency-Key': key }, ...(signal ? { signal } : {}) });

/** Everything a metered call could change: the organization's ledger rows and counters. */
const ledger = (): Promise<string> => ledgerSnapshot(gateway, chain);

const settings = (change: Json) => gateway.services.runtimeAdmin.setOrganizationSettings(chain.organization.slug, change);

/** Runs `refused` and proves it changed no ledger row or counter and sent nothing to the model. */
async function expectNothingSpent(refused: () => Promise<RuntimeAnswer<Json>>): Promise<RuntimeAnswer<Json>> {
  const before = await ledger();
  const sent = fake.requests.length;
  const answer = await refused();
  expect(await ledger()).toBe(before);
  expect(fake.requests.length).toBe(sent);
  return answer;
}

let started: MeteredGateway;

beforeAll(async () => {
  // A short model deadline, for the stalled model; no budget until a test sets one.
  started = await startMeteredGateway('metering', { env: { KGATE_MODEL_TIMEOUT_MS: '1500', KGATE_MODEL_CONNECT_TIMEOUT_MS: '1000' }, budget: null });
  ({ fake, gateway, chain, token } = started);
});

afterAll(() => started?.stop());

describe('metering at the generate endpoint', () => {
  it('fails closed without a budget, and with a budget of zero', async () => {
    for (const budget of [undefined, 0]) {
      await settings({ intelligenceBudgetMicrodollarsMonthly: budget ?? null });
      const answer = await expectNothingSpent(() => post());
      expect(answer.status).toBe(403);
      expect(answer.body).toMatchObject({ status: 'error', problems: [{ code: 'intelligence_budget_unset' }] });
    }
  });

  it('refuses a request whose bounded cost does not fit the organization budget, then the installation sublimit', async () => {
    await settings({ intelligenceBudgetMicrodollarsMonthly: 500 });
    const organization = await expectNothingSpent(() => post());
    expect(organization.status).toBe(429);
    expect(organization.body.problems[0]).toMatchObject({
      code: 'intelligence_budget_exhausted',
      details: { ceiling: 'organization', limitMicrodollars: 500, availableMicrodollars: 500, neededMicrodollars: expect.any(Number) },
    });
    expect((organization.body.problems[0]!.details as Json).neededMicrodollars).toBeGreaterThan(500);

    await settings({ intelligenceBudgetMicrodollarsMonthly: 50_000_000 });
    await gateway.services.runtimeAdmin.setInstallationSublimit(chain.customer.accountId, chain.installation.id, 700);
    token = await runtimeToken(gateway, chain);
    const installation = await expectNothingSpent(() => post());
    expect(installation.status).toBe(429);
    expect(installation.body.problems[0]).toMatchObject({ code: 'intelligence_budget_exhausted', details: { ceiling: 'installation', limitMicrodollars: 700 } });
    await gateway.services.runtimeAdmin.setInstallationSublimit(chain.customer.accountId, chain.installation.id, null);
  });

  it('refuses a call past maxConcurrentIntelligence while another runs, with Retry-After', async () => {
    await settings({ intelligenceBudgetMicrodollarsMonthly: 50_000_000, maxConcurrentIntelligence: 1 });
    fake.script({ kind: 'stall' });
    const sent = fake.requests.length;
    const held = new AbortController();
    const running = post(randomUUID(), held.signal).catch((error: unknown) => error);
    // The first call has reached the model: it holds the only slot.
    await expect.poll(() => fake.requests.length, { timeout: 5000 }).toBe(sent + 1);
    const refused = await expectNothingSpent(() => post());
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(refused.body.problems[0]).toMatchObject({ code: 'intelligence_concurrency_exhausted', details: { retryAfterSeconds: expect.any(Number) } });
    held.abort();
    await running;
    // The client went away after its request was accepted: a billable failure, and the slot is free again.
    await expect
      .poll(async () => (await gateway.db.query<{ running: number }>('SELECT running FROM intelligence_running WHERE organization_id = $1', [chain.organization.id]))[0]?.running, { timeout: 5000 })
      .toBe(0);
    const [row] = await gateway.db.query<{ state: string }>('SELECT state FROM intelligence_ledger WHERE organization_id = $1 ORDER BY created_at DESC LIMIT 1', [chain.organization.id]);
    expect(row!.state).toBe('billable_failure');
    fake.script({ kind: 'reply', text: DRAFT });
    expect((await post()).status).toBe(200);
  });

  it('answers model_timeout for a stalled model, charged its reservation as a billable failure, with its usage receipt', async () => {
    await settings({ intelligenceBudgetMicrodollarsMonthly: 50_000_000, maxConcurrentIntelligence: 4 });
    fake.script({ kind: 'stall', afterChunks: 0 });
    const key = randomUUID();
    const answer = await post(key);
    expect(answer.status).toBe(504);
    expect(answer.body.problems[0]).toMatchObject({ code: 'model_timeout' });
    const usage = answer.body.receipts.find((receipt) => receipt.kind === 'service.product-intelligence-usage')!;
    expect(usage).toMatchObject({ outcome: 'billable_failure', meteredKind: 'education-generate' });
    expect(usage.costMicrodollars).toBe(usage.reservedMicrodollars);
    const [row] = await gateway.db.query<{ state: string; charged_microdollars: string | number }>(
      'SELECT state, charged_microdollars FROM intelligence_ledger WHERE id = $1',
      [usage.ledgerId],
    );
    expect(row).toMatchObject({ state: 'billable_failure' });
    expect(Number(row!.charged_microdollars)).toBe(usage.reservedMicrodollars);
    // The same key replays the failure: no second model call.
    const again = await expectNothingSpent(() => post(key));
    expect(again.status).toBe(504);
    expect(again.body.receipts.find((receipt) => receipt.kind === 'service.product-intelligence-usage')).toMatchObject({ ledgerId: usage.ledgerId, replayed: true });
  });
});
