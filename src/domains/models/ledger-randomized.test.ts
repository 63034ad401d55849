/**
 * The ledger test (issue 21's acceptance): 500 metered requests, many at once, against the real model client and the
 * fake model server with mixed behaviours (replies, some over-reporting; 503 refusals; stalls that hit a short
 * timeout; dropped connections; invalid outputs; clients that go away; retries of the same key, some with another
 * request), an organization budget that runs out partway, an installation sublimit and a concurrency ceiling.
 * Afterwards every amount adds up exactly, no ceiling was ever passed, and every settled key replays its data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelFake, type FakeBehavior, type ModelFake } from '../../../test/fakes/model/server.ts';
import { openTestDatabase } from '../../../test/support/database.ts';
import { seededRandom } from '../../../test/support/seeded-random.ts';
import { insertLedgerFixture, insertSecondInstallation, ledgerBalance, ledgerTestModel, type LedgerFixture } from '../../../test/support/intelligence-ledger.ts';
import type { Database } from '../../db/port.ts';
import type { MeteredCaller, MeteredRequest, UsageReceipt } from './contract.ts';
import { ModelError } from './contract.ts';
import { createModelsService, type ModelsService } from './index.ts';

const REQUESTS = 500;
const WORKERS = 24;
const BUDGET = 35_000;
const SUBLIMIT = 10_000;
const MAX_CONCURRENT = 12;
const SEED = 0x5eed2026;

type Behaviour = 'reply' | 'stream' | 'over' | 'refuse' | 'stall' | 'drop' | 'invalid' | 'leave';

/** One planned request: what the fake does with it and how the work calls the model. */
interface Case {
  n: number;
  behaviour: Behaviour;
  inputTokens: number;
  outputTokens: number;
  installation: 'a' | 'b';
}

/** One attempt: a case under a key (a retry reuses an earlier case's key; a reuse sends another case under it). */
interface Attempt {
  key: string;
  case: Case;
}

const COMMON_REFUSALS = ['intelligence_budget_exhausted', 'intelligence_concurrency_exhausted', 'idempotency_key_in_flight'];
const OUTCOMES: Record<Behaviour, string[]> = {
  reply: ['settled'],
  stream: ['settled'],
  over: ['settled'],
  refuse: ['model_unavailable'],
  // Under a busy loop the short deadline may pass before the request is even sent: refused then, released.
  stall: ['model_timeout', 'model_unavailable'],
  drop: ['model_interrupted'],
  invalid: ['model_output_invalid'],
  leave: ['model_interrupted'],
};

function plan(random: () => number): { cases: Case[]; attempts: Attempt[] } {
  const behaviours: Array<[Behaviour, number]> = [
    ['reply', 0.4],
    ['stream', 0.12],
    ['over', 0.04],
    ['refuse', 0.12],
    ['stall', 0.08],
    ['drop', 0.08],
    ['invalid', 0.08],
    ['leave', 0.08],
  ];
  const cases: Case[] = [];
  const attempts: Attempt[] = [];
  for (let n = 0; n < REQUESTS; n += 1) {
    const roll = random();
    if (attempts.length > 10 && roll < 0.1) {
      // A retry of an earlier key with the same request.
      const earlier = attempts[Math.floor(random() * attempts.length)]!;
      attempts.push({ ...earlier });
      continue;
    }
    let pick = random();
    let behaviour: Behaviour = 'reply';
    for (const [name, weight] of behaviours) {
      if (pick < weight) {
        behaviour = name;
        break;
      }
      pick -= weight;
    }
    const c: Case = {
      n: cases.length,
      behaviour,
      inputTokens: 50 + Math.floor(random() * 150),
      outputTokens: 50 + Math.floor(random() * 150),
      installation: random() < 0.3 ? 'b' : 'a',
    };
    cases.push(c);
    if (attempts.length > 10 && roll < 0.13) {
      // Another request under an earlier key: reused, unless that key's row was released or never made.
      attempts.push({ key: attempts[Math.floor(random() * attempts.length)]!.key, case: c });
    } else {
      attempts.push({ key: `key-${c.n}`, case: c });
    }
  }
  return { cases, attempts };
}

function fakeBehaviour(c: Case, random: () => number): FakeBehavior {
  const usage = { inputTokens: Math.floor(c.inputTokens * (0.3 + 0.7 * random())), outputTokens: Math.floor(c.outputTokens * random()) };
  switch (c.behaviour) {
    case 'reply':
    case 'stream':
      return { kind: 'reply', text: `answer ${c.n}`, usage };
    case 'over':
      return { kind: 'reply', text: `answer ${c.n}`, usage: { inputTokens: c.inputTokens * 3, outputTokens: c.outputTokens * 2 } };
    case 'refuse':
      return { kind: 'fail', status: 503 };
    case 'stall':
    case 'leave':
      return { kind: 'stall' };
    case 'drop':
      return { kind: 'disconnect', afterChunks: 1 };
    case 'invalid':
      return { kind: 'reply', text: 'this is not json', usage };
  }
}

describe('the ledger under 500 randomized concurrent requests', () => {
  let db: Database;
  let fake: ModelFake;
  let models: ModelsService;
  /** The same ledger with a model client whose deadline the stalls hit (the others get time to spare on a busy loop). */
  let impatient: ModelsService;
  let fixture: LedgerFixture;
  let callerB: MeteredCaller;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    fake = await startModelFake();
    models = createModelsService({ db, model: ledgerTestModel(fake) });
    impatient = createModelsService({ db, model: ledgerTestModel(fake, 250) });
    fixture = await insertLedgerFixture(db, { intelligenceBudgetMicrodollarsMonthly: BUDGET, maxConcurrentIntelligence: MAX_CONCURRENT });
    callerB = await insertSecondInstallation(db, fixture, SUBLIMIT);
  });
  afterAll(async () => {
    await fake.close();
    await db.close();
  });

  it('adds up exactly, never passes a ceiling, and replays every settled key', async () => {
    const random = seededRandom(SEED);
    const { cases, attempts } = plan(random);
    const behaviours = new Map(cases.map((c) => [c.n, fakeBehaviour(c, random)]));
    // The fake reads the case number from the prompt, so each case gets its behaviour whatever the order.
    fake.respond((request) => {
      const messages = (request.body?.messages ?? []) as Array<{ content: string }>;
      const n = Number(/case (\d+)/.exec(messages[0]?.content ?? '')?.[1]);
      return behaviours.get(n) ?? { kind: 'fail', status: 400 };
    });

    const requestFor = (attempt: Attempt, receipts: UsageReceipt[], controller: AbortController): MeteredRequest<{ text: string; n: number }> => {
      const c = attempt.case;
      const caller = c.installation === 'a' ? fixture.caller : callerB;
      return {
        caller,
        kind: 'education-generate',
        key: attempt.key,
        fingerprint: `case-${c.n}`,
        requestId: `req-${c.n}`,
        bound: { inputTokens: c.inputTokens, outputTokens: c.outputTokens, images: 0 },
        signal: controller.signal,
        onReceipt: (receipt) => receipts.push(receipt),
        work: async (meter) => {
          const chat = { messages: [{ role: 'user' as const, content: `case ${c.n}` }], maxOutputTokens: c.outputTokens, signal: meter.signal };
          if (c.behaviour === 'leave') setTimeout(() => controller.abort(), 20);
          if (c.behaviour === 'stream' || c.behaviour === 'drop') {
            let text = '';
            for await (const event of meter.model.chatStream(chat)) if (event.kind === 'delta') text += event.text;
            return { text, n: c.n };
          }
          const completion = await meter.model.chat(chat);
          if (c.behaviour === 'invalid') throw new ModelError('model_output_invalid', 'The answer is not JSON.', 'yes', completion.usage);
          return { text: completion.text, n: c.n };
        },
      };
    };

    // A watcher reads the counters while the requests run: no moment may show a ceiling passed.
    const violations: string[] = [];
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const [org] = await db.query<{ held: number }>(`SELECT held_microdollars AS held FROM intelligence_organization_months WHERE organization_id = $1`, [fixture.organizationId]);
        const [inst] = await db.query<{ held: number }>(`SELECT held_microdollars AS held FROM intelligence_installation_months WHERE installation_id = $1`, [callerB.installationId]);
        const [running] = await db.query<{ running: number }>(`SELECT running FROM intelligence_running WHERE organization_id = $1`, [fixture.organizationId]);
        if ((org?.held ?? 0) > BUDGET) violations.push(`organization held ${org?.held}`);
        if ((inst?.held ?? 0) > SUBLIMIT) violations.push(`installation held ${inst?.held}`);
        if ((running?.running ?? 0) > MAX_CONCURRENT) violations.push(`running ${running?.running}`);
        await models.expire();
        await new Promise((resolve) => setTimeout(resolve, 15));
      }
    })();

    const outcomes: Array<{ attempt: Attempt; code: string; data?: unknown; replayed?: boolean; receipts: UsageReceipt[]; ceiling?: string | undefined }> = [];
    let next = 0;
    const worker = async () => {
      while (next < attempts.length) {
        const attempt = attempts[next++]!;
        const receipts: UsageReceipt[] = [];
        const controller = new AbortController();
        try {
          const service = attempt.case.behaviour === 'stall' ? impatient : models;
          const result = await service.runMetered(requestFor(attempt, receipts, controller));
          expect(receipts).toEqual([result.receipt]);
          outcomes.push({ attempt, code: 'settled', data: result.data, replayed: result.replayed, receipts });
        } catch (error) {
          const { code, details } = error as { code?: string; details?: { ceiling?: string } };
          outcomes.push({ attempt, code: code ?? String(error), receipts, ceiling: details?.ceiling });
        }
      }
    };
    await Promise.all(Array.from({ length: WORKERS }, worker));
    watching = false;
    await watcher;
    await fake.idle();

    expect(violations).toEqual([]);
    expect(outcomes).toHaveLength(REQUESTS);
    const byCode = (code: string) => outcomes.filter((outcome) => outcome.code === code).length;
    // The run exercised what it is meant to: budget and sublimit ran out, the ceiling refused, every failure happened.
    expect(byCode('settled')).toBeGreaterThan(50);
    expect(byCode('intelligence_concurrency_exhausted')).toBeGreaterThan(0);
    expect(byCode('model_unavailable')).toBeGreaterThan(0);
    for (const code of ['model_timeout', 'model_interrupted', 'model_output_invalid', 'idempotency_key_reused']) expect(byCode(code), code).toBeGreaterThan(0);
    const ceilings = new Set(outcomes.filter((o) => o.code === 'intelligence_budget_exhausted').map((o) => o.ceiling));
    expect([...ceilings].sort()).toEqual(['installation', 'organization']);

    // Every outcome is one its behaviour allows (a reuse may also be refused as such). Requests run concurrently, so
    // another case sent under a key may reach the ledger first: then the key's own case is the one refused as reused.
    const casesOfKey = new Map<string, Set<number>>();
    for (const attempt of attempts) casesOfKey.set(attempt.key, (casesOfKey.get(attempt.key) ?? new Set()).add(attempt.case.n));
    for (const outcome of outcomes) {
      const reuse = outcome.attempt.key !== `key-${outcome.attempt.case.n}` || casesOfKey.get(outcome.attempt.key)!.size > 1;
      const allowed = [...OUTCOMES[outcome.attempt.case.behaviour], ...COMMON_REFUSALS, ...(reuse ? ['idempotency_key_reused'] : [])];
      expect(allowed, `${outcome.attempt.key} (${outcome.attempt.case.behaviour}) ${outcome.code}`).toContain(outcome.code);
    }

    // The amounts add up exactly: counters equal what the rows hold; nothing is still running.
    const balance = await ledgerBalance(db, fixture.organizationId);
    expect(balance.runningRows).toBe(0);
    expect(balance.running).toBe(0);
    expect(balance.organizationHeld).toBe(balance.rowsHeld);
    expect(balance.organizationHeld).toBeLessThanOrEqual(BUDGET);
    for (const installation of balance.installations) expect(installation.held, installation.installationId).toBe(installation.rowsHeld);
    const b = balance.installations.find((installation) => installation.installationId === callerB.installationId);
    expect(b!.held).toBeLessThanOrEqual(SUBLIMIT);
    const month = await models.month(fixture.organizationId, fixture.caller.budgetMicrodollars);
    expect(month.reservedMicrodollars).toBe(0);
    expect(month.settledMicrodollars + month.billableFailureMicrodollars).toBe(balance.organizationHeld);
    // The charges the callers were told of (fresh receipts, one per ledger row) are the charges held.
    const told = new Map<string, number>();
    for (const outcome of outcomes) for (const receipt of outcome.receipts) if (!receipt.replayed) told.set(receipt.ledgerId, receipt.costMicrodollars);
    expect([...told.values()].reduce((sum, cost) => sum + cost, 0)).toBe(balance.organizationHeld);
    const [sums] = await db.query<{ charged: string; over: number; released_charged: string }>(
      `SELECT sum(charged_microdollars) FILTER (WHERE state IN ('settled', 'billable_failure'))::text AS charged,
              count(*) FILTER (WHERE excess_microdollars > 0)::int AS over,
              coalesce(sum(charged_microdollars) FILTER (WHERE state = 'released'), 0)::text AS released_charged
         FROM intelligence_ledger WHERE organization_id = $1`,
      [fixture.organizationId],
    );
    expect(Number(sums!.charged)).toBe(balance.organizationHeld);
    expect(Number(sums!.released_charged)).toBe(0);
    expect(sums!.over).toBeGreaterThan(0);

    // Every settled key (keys are per principal: one per installation here) replays the same data, without a model call.
    const keyOf = (attempt: Attempt) => `${attempt.case.installation}:${attempt.key}`;
    const settled = new Map<string, unknown>();
    for (const outcome of outcomes) {
      if (outcome.code !== 'settled') continue;
      const seen = settled.get(keyOf(outcome.attempt));
      if (seen !== undefined) expect(outcome.data, keyOf(outcome.attempt)).toEqual(seen);
      settled.set(keyOf(outcome.attempt), outcome.data);
    }
    const requests = fake.requests.length;
    for (const [key, data] of settled) {
      const original = outcomes.find((outcome) => outcome.code === 'settled' && keyOf(outcome.attempt) === key)!;
      const receipts: UsageReceipt[] = [];
      const replay = await models.runMetered(requestFor(original.attempt, receipts, new AbortController()));
      expect(replay.replayed).toBe(true);
      expect(replay.data).toEqual(data);
    }
    expect(fake.requests.length).toBe(requests);
  }, 60_000);
});
