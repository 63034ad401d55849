import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelFake, type ModelFake } from '../../../test/fakes/model/server.ts';
import { openTestDatabase } from '../../../test/support/database.ts';
import {
  insertLedgerFixture,
  insertSecondInstallation,
  ledgerBalance,
  ledgerSnapshot,
  ledgerTestModel,
  type LedgerSettings,
} from '../../../test/support/intelligence-ledger.ts';
import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import type { MeteredCaller, MeteredRequest, UsageReceipt } from './contract.ts';
import { ModelError } from './contract.ts';
import { createModelsService, DEFAULT_DISPATCH_WINDOW_MS, DEFAULT_SETTLE_WINDOW_MS, meteredCallerOf, type ModelsService } from './index.ts';

// Bound of the tests' requests: 100 input and 100 output tokens at 1 and 2 µ$ = a 300 µ$ reservation.
const BOUND = { inputTokens: 100, outputTokens: 100, images: 0 };
const RESERVED = 300;

/** A clock the test moves. */
function movableClock(start = new Date('2026-11-26T12:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

interface Run {
  receipts: UsageReceipt[];
  request: MeteredRequest<{ text: string }>;
  controller: AbortController;
}

/** A metered request whose work makes one chat call and answers its text. */
function chatRun(caller: MeteredCaller, key = newId(), fingerprint = 'f1', work?: MeteredRequest<{ text: string }>['work']): Run {
  const receipts: UsageReceipt[] = [];
  const controller = new AbortController();
  return {
    receipts,
    controller,
    request: {
      caller,
      kind: 'education-generate',
      key,
      fingerprint,
      requestId: `req-${key}`,
      bound: BOUND,
      signal: controller.signal,
      onReceipt: (receipt) => receipts.push(receipt),
      work:
        work ??
        (async (meter) => {
          const completion = await meter.model.chat({ messages: [{ role: 'user', content: 'hello' }], maxOutputTokens: BOUND.outputTokens, signal: meter.signal });
          return { text: completion.text };
        }),
    },
  };
}

const outcomeOf = (thunk: () => Promise<unknown>) =>
  thunk().then(
    (value) => ({ value }),
    (error: { code?: string; details?: unknown }) => ({ code: error.code, details: error.details }),
  );

/** Waits until the fake has received `count` requests (the stalled call has left). */
async function requestsReach(fake: ModelFake, count: number): Promise<void> {
  for (let i = 0; i < 500 && fake.requests.length < count; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(fake.requests.length).toBeGreaterThanOrEqual(count);
}

describe('the metered runner', () => {
  let db: Database;
  let fake: ModelFake;
  let clock: ReturnType<typeof movableClock>;
  let models: ModelsService;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    fake = await startModelFake();
    clock = movableClock();
    models = createModelsService({ db, model: ledgerTestModel(fake), clock });
  });
  afterAll(async () => {
    await fake.close();
    await db.close();
  });

  const organization = (settings: LedgerSettings = { intelligenceBudgetMicrodollarsMonthly: 100_000 }, sublimit: number | null = null) =>
    insertLedgerFixture(db, settings, sublimit);

  it('says whether a model is configured, and without one answers unavailable', async () => {
    expect(models.available).toBe(true);
    expect(models.identity).toMatchObject({ chatModel: 'fake-chat-1' });
    const none = createModelsService({ db, model: undefined });
    expect(none.available).toBe(false);
    const fixture = await organization();
    expect(await outcomeOf(() => none.runMetered(chatRun(fixture.caller).request))).toMatchObject({ code: 'unavailable' });
  });

  it('builds the metered caller from the principal', () => {
    const caller = meteredCallerOf({
      principalId: 'p',
      principalName: 'n',
      credentialId: 'c',
      scopes: [],
      installationId: 'i',
      intelligenceSublimitMicrodollars: 5,
      customerAccountId: 'a',
      product: { id: 'pr', slug: 's', name: 'n', domainPack: null },
      organization: { id: 'o', slug: 's', name: 'n', settings: { intelligenceBudgetMicrodollarsMonthly: 10, maxConcurrentIntelligence: 3 } },
    });
    expect(caller).toEqual({ organizationId: 'o', installationId: 'i', principalId: 'p', budgetMicrodollars: 10, sublimitMicrodollars: 5, maxConcurrent: 3 });
  });

  it('settles at the actual cost, answers the receipt, and replays a retry without a second model call', async () => {
    const fixture = await organization();
    fake.script({ kind: 'reply', text: 'settled answer', usage: { inputTokens: 40, outputTokens: 10 } });
    const first = chatRun(fixture.caller, 'settle-key');
    const result = await models.runMetered(first.request);
    expect(result).toMatchObject({ data: { text: 'settled answer' }, replayed: false });
    expect(result.receipt).toMatchObject({
      kind: 'service.product-intelligence-usage',
      requestId: 'req-settle-key',
      meteredKind: 'education-generate',
      model: { chat: 'fake-chat-1' },
      usage: { inputTokens: 40, outputTokens: 10, images: 0 },
      reservedMicrodollars: RESERVED,
      costMicrodollars: 60,
      outcome: 'settled',
      month: '2026-11',
      replayed: false,
    });
    expect(first.receipts).toEqual([result.receipt]);
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 60, rowsHeld: 60, running: 0 });

    const requests = fake.requests.length;
    const retry = chatRun(fixture.caller, 'settle-key');
    retry.request.requestId = 'req-retry';
    const replayed = await models.runMetered(retry.request);
    expect(replayed).toEqual({ data: { text: 'settled answer' }, receipt: { ...result.receipt, replayed: true }, replayed: true });
    expect(retry.receipts).toEqual([replayed.receipt]);
    expect(fake.requests.length).toBe(requests);
    expect(await models.month(fixture.organizationId, fixture.caller.budgetMicrodollars)).toEqual({
      month: '2026-11',
      budgetMicrodollars: 100_000,
      reservedMicrodollars: 0,
      settledMicrodollars: 60,
      billableFailureMicrodollars: 0,
      requests: { settled: 1, billableFailures: 0, released: 0, running: 0 },
    });
    const [entry] = await models.recent(fixture.organizationId, 10);
    expect(entry).toMatchObject({ state: 'settled', chargedMicrodollars: 60, errorCode: null, expired: false });
    expect(entry).not.toHaveProperty('result');
  });

  it('captures the usage of a stream from its done event', async () => {
    const fixture = await organization();
    fake.script({ kind: 'reply', text: 'one two three', usage: { inputTokens: 7, outputTokens: 3 } });
    const run = chatRun(fixture.caller, newId(), 'f', async (meter) => {
      let text = '';
      for await (const event of meter.model.chatStream({ messages: [{ role: 'user', content: 'go' }], maxOutputTokens: 100, signal: meter.signal })) {
        if (event.kind === 'delta') text += event.text;
      }
      return { text };
    });
    const result = await models.runMetered(run.request);
    expect(result.data.text).toBe('one two three');
    expect(result.receipt).toMatchObject({ usage: { inputTokens: 7, outputTokens: 3 }, costMicrodollars: 13, outcome: 'settled' });
  });

  it('refuses a missing or zero budget, an exhausted budget or sublimit: no model call, nothing changed', async () => {
    const unset = await organization({});
    const zero = await organization({ intelligenceBudgetMicrodollarsMonthly: 0 });
    const small = await organization({ intelligenceBudgetMicrodollarsMonthly: 299 });
    const limited = await organization({ intelligenceBudgetMicrodollarsMonthly: 10_000 }, 299);
    const cases: Array<[string, () => Promise<unknown>, unknown]> = [
      [unset.organizationId, () => models.runMetered(chatRun(unset.caller).request), { code: 'intelligence_budget_unset' }],
      [zero.organizationId, () => models.runMetered(chatRun(zero.caller).request), { code: 'intelligence_budget_unset' }],
      [
        small.organizationId,
        () => models.runMetered(chatRun(small.caller).request),
        { code: 'intelligence_budget_exhausted', details: { ceiling: 'organization', limitMicrodollars: 299, availableMicrodollars: 299, neededMicrodollars: RESERVED } },
      ],
      [
        limited.organizationId,
        () => models.runMetered(chatRun(limited.caller).request),
        { code: 'intelligence_budget_exhausted', details: { ceiling: 'installation', limitMicrodollars: 299, availableMicrodollars: 299, neededMicrodollars: RESERVED } },
      ],
    ];
    const requests = fake.requests.length;
    for (const [organizationId, thunk, expected] of cases) {
      const before = await ledgerSnapshot(db, organizationId);
      expect(await outcomeOf(thunk)).toMatchObject(expected as object);
      expect(await ledgerSnapshot(db, organizationId)).toBe(before);
    }
    expect(fake.requests.length).toBe(requests);
    // Another installation of the sublimited organization still has the organization's budget.
    const other = await insertSecondInstallation(db, { ...limited, caller: limited.caller }, null);
    expect((await models.runMetered(chatRun(other).request)).receipt.outcome).toBe('settled');
  });

  it('refuses the call past maxConcurrentIntelligence while N run, then billable-fails the interrupted ones', async () => {
    const fixture = await organization({ intelligenceBudgetMicrodollarsMonthly: 100_000, maxConcurrentIntelligence: 3 });
    const start = fake.requests.length;
    fake.script({ kind: 'stall' }, { kind: 'stall' }, { kind: 'stall' });
    const runs = [chatRun(fixture.caller), chatRun(fixture.caller), chatRun(fixture.caller)];
    const running = runs.map((run) => outcomeOf(() => models.runMetered(run.request)));
    await requestsReach(fake, start + 3);
    const before = await ledgerSnapshot(db, fixture.organizationId);
    expect(await outcomeOf(() => models.runMetered(chatRun(fixture.caller).request))).toEqual({
      code: 'intelligence_concurrency_exhausted',
      details: { limit: 3, retryAfterSeconds: 5 },
    });
    expect(await ledgerSnapshot(db, fixture.organizationId)).toBe(before);
    expect(fake.requests.length).toBe(start + 3);

    // The clients go away after dispatch: billable failures charged their reservation (usage unknown).
    for (const run of runs) run.controller.abort();
    for (const outcome of await Promise.all(running)) expect(outcome).toMatchObject({ code: 'model_interrupted' });
    await fake.idle();
    for (const run of runs) expect(run.receipts).toMatchObject([{ outcome: 'billable_failure', costMicrodollars: RESERVED }]);
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 3 * RESERVED, rowsHeld: 3 * RESERVED, running: 0, runningRows: 0 });
    // A retry of a billable failure replays the failure, receipt included, without calling the model.
    const retry = chatRun(fixture.caller, runs[0]!.request.key);
    expect(await outcomeOf(() => models.runMetered(retry.request))).toMatchObject({ code: 'model_interrupted' });
    expect(retry.receipts).toMatchObject([{ outcome: 'billable_failure', replayed: true, ledgerId: runs[0]!.receipts[0]!.ledgerId }]);
    expect(fake.requests.length).toBe(start + 3);
  });

  it('refuses a running key (in flight) and a key used with another request (reused), changing nothing', async () => {
    const fixture = await organization();
    fake.script({ kind: 'stall' });
    const start = fake.requests.length;
    const stalled = chatRun(fixture.caller, 'busy-key', 'first');
    const running = outcomeOf(() => models.runMetered(stalled.request));
    await requestsReach(fake, start + 1);
    const before = await ledgerSnapshot(db, fixture.organizationId);
    const refusals: Array<[() => Promise<unknown>, string]> = [
      [() => models.runMetered(chatRun(fixture.caller, 'busy-key', 'first').request), 'idempotency_key_in_flight'],
      [() => models.runMetered(chatRun(fixture.caller, 'busy-key', 'second').request), 'idempotency_key_reused'],
    ];
    for (const [thunk, code] of refusals) {
      expect(await outcomeOf(thunk)).toMatchObject({ code });
      expect(await ledgerSnapshot(db, fixture.organizationId)).toBe(before);
    }
    expect(fake.requests.length).toBe(start + 1);
    stalled.controller.abort();
    expect(await running).toMatchObject({ code: 'model_interrupted' });
    await fake.idle();
    // Finished now: the other request still may not use the key.
    expect(await outcomeOf(() => models.runMetered(chatRun(fixture.caller, 'busy-key', 'second').request))).toMatchObject({ code: 'idempotency_key_reused' });
  });

  it('releases a request the model refused (model_unavailable): nothing charged, and the key runs again', async () => {
    const fixture = await organization();
    fake.script({ kind: 'fail', status: 503 });
    const refused = chatRun(fixture.caller, 'refused-key');
    expect(await outcomeOf(() => models.runMetered(refused.request))).toMatchObject({ code: 'model_unavailable' });
    expect(refused.receipts).toEqual([]);
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 0, rowsHeld: 0, running: 0 });
    fake.script({ kind: 'reply', text: 'second time', usage: { inputTokens: 1, outputTokens: 1 } });
    const again = await models.runMetered(chatRun(fixture.caller, 'refused-key').request);
    expect(again).toMatchObject({ data: { text: 'second time' }, replayed: false, receipt: { costMicrodollars: 3 } });
    expect((await models.month(fixture.organizationId, fixture.caller.budgetMicrodollars)).requests).toEqual({ settled: 1, billableFailures: 0, released: 1, running: 0 });
  });

  it('charges the reservation of a timed-out call, and the actual cost of an invalid output', async () => {
    const fixture = await organization();
    const impatient = createModelsService({ db, model: ledgerTestModel(fake, 300), clock });
    fake.script({ kind: 'stall' });
    const timedOut = chatRun(fixture.caller);
    expect(await outcomeOf(() => impatient.runMetered(timedOut.request))).toMatchObject({ code: 'model_timeout' });
    expect(timedOut.receipts).toMatchObject([{ outcome: 'billable_failure', costMicrodollars: RESERVED }]);
    await fake.idle();

    fake.script({ kind: 'reply', text: 'not json', usage: { inputTokens: 20, outputTokens: 5 } });
    const invalid = chatRun(fixture.caller, newId(), 'f', async (meter) => {
      const completion = await meter.model.chat({ messages: [{ role: 'user', content: 'json please' }], maxOutputTokens: 100, json: true });
      throw new ModelError('model_output_invalid', 'The answer is not the JSON asked for.', 'yes', completion.usage);
    });
    expect(await outcomeOf(() => models.runMetered(invalid.request))).toMatchObject({ code: 'model_output_invalid' });
    // The usage the work passes along is the completion's, already counted: charged once.
    expect(invalid.receipts).toMatchObject([{ outcome: 'billable_failure', costMicrodollars: 30, usage: { inputTokens: 20, outputTokens: 5 } }]);
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: RESERVED + 30, rowsHeld: RESERVED + 30, running: 0 });
  });

  it('releases on an exception before dispatch and charges one after it', async () => {
    const fixture = await organization();
    const before = chatRun(fixture.caller, newId(), 'f', () => Promise.reject(new Error('prompt building failed')));
    expect(await outcomeOf(() => models.runMetered(before.request))).toMatchObject({ code: undefined });
    fake.script({ kind: 'reply', text: 'fine', usage: { inputTokens: 10, outputTokens: 10 } });
    const after = chatRun(fixture.caller, newId(), 'f', async (meter) => {
      await meter.model.chat({ messages: [{ role: 'user', content: 'x' }], maxOutputTokens: 100 });
      throw new Error('post-processing failed');
    });
    expect(await outcomeOf(() => models.runMetered(after.request))).toMatchObject({ code: undefined });
    expect(after.receipts).toMatchObject([{ outcome: 'billable_failure', costMicrodollars: 30 }]);
    expect((await models.month(fixture.organizationId, fixture.caller.budgetMicrodollars)).requests).toEqual({ settled: 0, billableFailures: 1, released: 1, running: 0 });
  });

  it('charges no more than the reservation when the provider over-reports, and records the excess', async () => {
    const fixture = await organization();
    fake.script({ kind: 'reply', text: 'long', usage: { inputTokens: 1_000, outputTokens: 1_000 } });
    const result = await models.runMetered(chatRun(fixture.caller).request);
    expect(result.receipt).toMatchObject({ costMicrodollars: RESERVED, usage: { inputTokens: 1_000, outputTokens: 1_000 } });
    const [entry] = await models.recent(fixture.organizationId, 1);
    expect(entry).toMatchObject({ chargedMicrodollars: RESERVED, excessMicrodollars: 3_000 - RESERVED });
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: RESERVED, rowsHeld: RESERVED });
  });

  it('expires an undispatched reservation (released; the late work may not call the model) and an abandoned dispatch (billable)', async () => {
    const fixture = await organization({ intelligenceBudgetMicrodollarsMonthly: 100_000, maxConcurrentIntelligence: 1 });
    let proceed!: () => void;
    const gate = new Promise<void>((resolve) => (proceed = resolve));
    const start = fake.requests.length;
    const slow = chatRun(fixture.caller, 'slow-key', 'f', async (meter) => {
      await gate;
      const completion = await meter.model.chat({ messages: [{ role: 'user', content: 'late' }], maxOutputTokens: 100 });
      return { text: completion.text };
    });
    const running = outcomeOf(() => models.runMetered(slow.request));
    for (let i = 0; i < 200 && (await models.month(fixture.organizationId, fixture.caller.budgetMicrodollars)).requests.running === 0; i += 1) await new Promise((r) => setTimeout(r, 5));
    clock.advance(DEFAULT_DISPATCH_WINDOW_MS + 1);
    // The next request of the organization expires it first, so the concurrency slot is free for it.
    fake.script({ kind: 'reply', text: 'fits', usage: { inputTokens: 1, outputTokens: 1 } });
    expect((await models.runMetered(chatRun(fixture.caller).request)).data.text).toBe('fits');
    proceed();
    expect(await running).toMatchObject({ code: 'model_unavailable' });
    expect(fake.requests.length).toBe(start + 1);
    expect((await models.month(fixture.organizationId, fixture.caller.budgetMicrodollars)).requests).toMatchObject({ released: 1, settled: 1, running: 0 });

    clock.advance(1);
    fake.script({ kind: 'stall' });
    const abandoned = chatRun(fixture.caller);
    const stalled = outcomeOf(() => models.runMetered(abandoned.request));
    await requestsReach(fake, start + 2);
    clock.advance(DEFAULT_SETTLE_WINDOW_MS + 1);
    expect(await models.expire()).toEqual({ released: 0, billableFailures: 1 });
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 3 + RESERVED, rowsHeld: 3 + RESERVED, running: 0 });
    const [entry] = await models.recent(fixture.organizationId, 1);
    expect(entry).toMatchObject({ state: 'billable_failure', chargedMicrodollars: RESERVED, errorCode: 'model_timeout', expired: true });
    abandoned.controller.abort();
    expect(await stalled).toMatchObject({ code: 'model_interrupted' });
    expect(abandoned.receipts).toMatchObject([{ outcome: 'billable_failure', costMicrodollars: RESERVED }]);
    await fake.idle();
  });
});
