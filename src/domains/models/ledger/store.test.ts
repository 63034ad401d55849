import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../../test/support/database.ts';
import { insertLedgerFixture, insertSecondInstallation, ledgerBalance, ledgerSnapshot, type LedgerFixture } from '../../../../test/support/intelligence-ledger.ts';
import type { Database } from '../../../db/port.ts';
import { newId } from '../../../kernel/ids.ts';
import type { MeteredCaller } from '../contract.ts';
import { costOf, monthOf } from './cost.ts';
import { findLive, finish, markDispatched, reserve, staleRows, type NewReservation } from './store.ts';

const MODEL = { provider: 'openai-compatible 127.0.0.1', chatModel: 'fake-chat-1', imageModel: null };
const NOW = new Date('2026-11-26T12:00:00Z');

function reservation(caller: MeteredCaller, reserved: number, key = newId()): NewReservation {
  return {
    id: newId(),
    caller,
    key,
    fingerprint: 'f'.repeat(64),
    kind: 'education-generate',
    month: monthOf(NOW),
    reservedMicrodollars: reserved,
    model: MODEL,
    requestId: 'req-1',
    now: NOW,
    dispatchDeadline: new Date(NOW.getTime() + 60_000),
    budgetMicrodollars: caller.budgetMicrodollars!,
  };
}

const codeOf = (thunk: () => Promise<unknown>) =>
  thunk().then(
    (value) => ({ value }),
    (error: { code?: string; details?: unknown }) => ({ code: error.code, details: error.details }),
  );

describe('intelligence ledger store', () => {
  let db: Database;
  beforeAll(async () => {
    ({ db } = await openTestDatabase());
  });
  afterAll(() => db.close());

  it('costs a bound at the price table, rounded up to whole microdollars, and counts months in UTC', () => {
    const prices = { inputMicrodollarsPerToken: 0.15, outputMicrodollarsPerToken: 0.6, imageMicrodollars: 40_000 };
    expect(costOf({ inputTokens: 1000, outputTokens: 500, images: 0 }, prices)).toBe(450);
    expect(costOf({ inputTokens: 1, outputTokens: 1, images: 0 }, prices)).toBe(1);
    expect(costOf({ inputTokens: 20, outputTokens: 0, images: 1 }, prices)).toBe(40_003);
    expect(costOf({ inputTokens: 0, outputTokens: 0, images: 0 }, prices)).toBe(0);
    expect(monthOf(new Date('2026-11-30T23:59:59.999Z'))).toBe('2026-11');
    expect(monthOf(new Date('2026-12-01T00:00:00Z'))).toBe('2026-12');
  });

  it('reserves, refuses a second live row of the same key, settles at the charge and frees the running slot', async () => {
    const fixture = await insertLedgerFixture(db, { intelligenceBudgetMicrodollarsMonthly: 10_000, maxConcurrentIntelligence: 2 });
    const first = reservation(fixture.caller, 3_000, 'key-a');
    expect(await reserve(db, first)).toBe('reserved');
    expect(await reserve(db, { ...reservation(fixture.caller, 3_000, 'key-a') })).toBe('conflict');
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 3_000, rowsHeld: 3_000, running: 1, runningRows: 1 });
    expect(await markDispatched(db, first.id, NOW, new Date(NOW.getTime() + 600_000))).toBe(true);
    const settled = await finish(
      db,
      first.id,
      { kind: 'settle', charge: 1_200, excess: 0, usage: { inputTokens: 10, outputTokens: 20, images: 0 }, usageUnknown: false, result: { text: 'hi' } },
      NOW,
    );
    expect(settled?.receipt).toMatchObject({ ledgerId: first.id, costMicrodollars: 1_200, reservedMicrodollars: 3_000, outcome: 'settled', month: '2026-11', replayed: false });
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 1_200, rowsHeld: 1_200, running: 0, runningRows: 0 });
    // A finished row is finished: a second finish changes nothing.
    const before = await ledgerSnapshot(db, fixture.organizationId);
    expect(await finish(db, first.id, { kind: 'release' }, NOW)).toBeUndefined();
    expect(await ledgerSnapshot(db, fixture.organizationId)).toBe(before);
    expect((await findLive(db, fixture.principalId, 'key-a'))?.state).toBe('settled');
  });

  it('refuses past the organization budget, the installation sublimit and the running ceiling, changing nothing', async () => {
    const fixture = await insertLedgerFixture(db, { intelligenceBudgetMicrodollarsMonthly: 5_000, maxConcurrentIntelligence: 2 }, 4_000);
    const other = await insertSecondInstallation(db, fixture, null);
    expect(await reserve(db, reservation(fixture.caller, 3_000))).toBe('reserved');
    const before = await ledgerSnapshot(db, fixture.organizationId);
    const refusals: Array<[() => Promise<unknown>, unknown]> = [
      [
        () => reserve(db, reservation(fixture.caller, 1_001)),
        { code: 'intelligence_budget_exhausted', details: { ceiling: 'installation', limitMicrodollars: 4_000, availableMicrodollars: 1_000, neededMicrodollars: 1_001 } },
      ],
      [
        () => reserve(db, reservation(other, 2_001)),
        { code: 'intelligence_budget_exhausted', details: { ceiling: 'organization', limitMicrodollars: 5_000, availableMicrodollars: 2_000, neededMicrodollars: 2_001 } },
      ],
    ];
    for (const [thunk, expected] of refusals) {
      expect(await codeOf(thunk)).toEqual(expected);
      expect(await ledgerSnapshot(db, fixture.organizationId)).toBe(before);
    }
    expect(await reserve(db, reservation(other, 2_000))).toBe('reserved');
    const full = await ledgerSnapshot(db, fixture.organizationId);
    expect(await codeOf(() => reserve(db, reservation(other, 0)))).toEqual({
      code: 'intelligence_concurrency_exhausted',
      details: { limit: 2, retryAfterSeconds: 5 },
    });
    expect(await ledgerSnapshot(db, fixture.organizationId)).toBe(full);
  });

  it('never passes the budget under concurrent reservations, and the counters refuse to pass their ceiling', async () => {
    const fixture = await insertLedgerFixture(db, { intelligenceBudgetMicrodollarsMonthly: 1_000 });
    const outcomes = await Promise.all(Array.from({ length: 25 }, () => codeOf(() => reserve(db, reservation(fixture.caller, 100)))));
    expect(outcomes.filter((outcome) => 'value' in outcome)).toHaveLength(10);
    expect(outcomes.filter((outcome) => 'code' in outcome && outcome.code === 'intelligence_budget_exhausted')).toHaveLength(15);
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 1_000, rowsHeld: 1_000, running: 10, runningRows: 10 });
    // The CHECK constraint is a second guard: no statement can take the counter past the ceiling it was reserved under.
    await expect(db.query(`UPDATE intelligence_organization_months SET held_microdollars = held_microdollars + 1 WHERE organization_id = $1`, [fixture.organizationId])).rejects.toThrow(/check/i);
  });

  it('frees a released key for a new row, and expiry finishes only rows still stale when locked', async () => {
    const fixture: LedgerFixture = await insertLedgerFixture(db, { intelligenceBudgetMicrodollarsMonthly: 10_000 });
    const first = reservation(fixture.caller, 2_000, 'key-r');
    await reserve(db, first);
    expect((await finish(db, first.id, { kind: 'release' }, NOW))?.state).toBe('released');
    const again = reservation(fixture.caller, 2_000, 'key-r');
    expect(await reserve(db, again)).toBe('reserved');
    expect((await findLive(db, fixture.principalId, 'key-r'))?.id).toBe(again.id);

    const later = new Date(NOW.getTime() + 61_000);
    expect((await staleRows(db, later, fixture.organizationId, 10)).map((row) => row.id)).toEqual([again.id]);
    // Dispatched meanwhile: its dispatch deadline no longer applies, so expiry leaves it.
    await markDispatched(db, again.id, later, new Date(later.getTime() + 600_000));
    expect(await finish(db, again.id, { kind: 'release' }, later, { states: ['reserved'], staleAt: later })).toBeUndefined();
    const abandoned = new Date(later.getTime() + 601_000);
    const expired = await finish(
      db,
      again.id,
      {
        kind: 'billable',
        charge: 2_000,
        excess: 0,
        usage: { inputTokens: 0, outputTokens: 0, images: 0 },
        usageUnknown: true,
        error: { code: 'model_timeout', message: 'late', accepted: 'unknown' },
        expired: true,
      },
      abandoned,
      { states: ['dispatched'], staleAt: abandoned },
    );
    expect(expired).toMatchObject({ state: 'billable_failure', chargedMicrodollars: 2_000 });
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 2_000, rowsHeld: 2_000, running: 0 });
    // The request finishing after all settles at its actual cost: the rest of the reservation comes back.
    const late = await finish(
      db,
      again.id,
      { kind: 'settle', charge: 500, excess: 0, usage: { inputTokens: 5, outputTokens: 5, images: 0 }, usageUnknown: false, result: { ok: true } },
      abandoned,
    );
    expect(late).toMatchObject({ state: 'settled', chargedMicrodollars: 500 });
    expect(await ledgerBalance(db, fixture.organizationId)).toMatchObject({ organizationHeld: 500, rowsHeld: 500, running: 0, runningRows: 0 });
  });
});
