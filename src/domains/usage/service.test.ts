import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import { createServices } from '../../app/services.ts';
import { leaseSizeFor } from './lease.ts';
import { createUsageService } from './service.ts';

describe('usage leases', () => {
  let db: Database;
  let owner: Owner;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    owner = await createOwner(createServices(db));
  });
  afterAll(() => db.close());
  beforeEach(async () => {
    await db.query('DELETE FROM usage_counters');
  });

  const counters = async () => {
    const rows = await db.query<{ period: string; used: number }>(
      "SELECT period, used FROM usage_counters WHERE account_id = $1 AND surface = 'mcp' ORDER BY period",
      [owner.accountId],
    );
    return Object.fromEntries(rows.map((row) => [row.period, row.used]));
  };
  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'reserved',
      (error: { code?: string }) => error.code,
    );

  it('sizes blocks from the allowance: exact units for anything a person could use up by hand', () => {
    expect(leaseSizeFor({ perMinute: 60, perMonth: 10_000 })).toBe(1);
    expect(leaseSizeFor({ perMinute: 599, perMonth: 10 ** 9 })).toBe(1);
    expect(leaseSizeFor({ perMinute: 6_000, perMonth: 10 ** 9 })).toBe(10);
    expect(leaseSizeFor({ perMinute: 6_000, perMonth: 300_000 })).toBe(3);
    expect(leaseSizeFor({ perMinute: 10 ** 9, perMonth: 10 ** 9 })).toBe(1000);
  });

  it('serves a large allowance from one block, and gives the unused units back to the month', async () => {
    const usage = createUsageService(db);
    const allowance = { perMinute: 60_000, perMonth: 10 ** 8 }; // blocks of 100
    const reservations = await Promise.all(Array.from({ length: 30 }, () => usage.reserve(owner.accountId, 'mcp', allowance)));
    expect(await counters()).toEqual({ minute: 100, month: 100 });
    // Units held but not used are reported as remaining, so the last reservation saw 30 spent.
    const remaining = reservations.map((r) => r.month.remaining).sort((a, b) => a - b);
    expect(remaining[0]).toBe(10 ** 8 - 30);
    expect(new Set(remaining).size).toBe(30);
    await usage.releaseLeases();
    expect(await counters()).toEqual({ minute: 100, month: 30 });
  });

  it('never grants past a limit: near it, blocks stop and single units run out exactly', async () => {
    const usage = createUsageService(db);
    const allowance = { perMinute: 60_000, perMonth: 10 ** 8 };
    // Another process has used all but 5 of this minute.
    await db.query(
      `INSERT INTO usage_counters (account_id, surface, period, period_start, used)
       VALUES ($1, 'mcp', 'minute', date_trunc('minute', now(), 'UTC'), $2)`,
      [owner.accountId, 60_000 - 5],
    );
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => codeOf(usage.reserve(owner.accountId, 'mcp', allowance))));
    expect(outcomes.filter((o) => o === 'reserved')).toHaveLength(5);
    expect(outcomes.filter((o) => o === 'rate_limited')).toHaveLength(7);
    expect(await counters()).toEqual({ minute: 60_000, month: 5 });
  });

  it('a month that cannot take a block falls back to single units, and its refusal leaves the minute unchanged', async () => {
    const usage = createUsageService(db);
    const allowance = { perMinute: 60_000, perMonth: 10 ** 7 }; // blocks of 100
    await db.query(
      `INSERT INTO usage_counters (account_id, surface, period, period_start, used)
       VALUES ($1, 'mcp', 'month', date_trunc('month', now(), 'UTC'), $2)`,
      [owner.accountId, 10 ** 7 - 2],
    );
    const outcomes = [];
    for (let k = 0; k < 4; k++) outcomes.push(await codeOf(usage.reserve(owner.accountId, 'mcp', allowance)));
    expect(outcomes).toEqual(['reserved', 'reserved', 'monthly_limit_reached', 'monthly_limit_reached']);
    expect(await counters()).toEqual({ minute: 2, month: 10 ** 7 });
  });

  it('two processes sharing an account never overshoot together', async () => {
    const first = createUsageService(db);
    const second = createUsageService(db);
    const allowance = { perMinute: 6_000, perMonth: 10 ** 8 }; // blocks of 10
    await db.query(
      `INSERT INTO usage_counters (account_id, surface, period, period_start, used)
       VALUES ($1, 'mcp', 'minute', date_trunc('minute', now(), 'UTC'), $2)`,
      [owner.accountId, 6_000 - 25],
    );
    const calls = Array.from({ length: 40 }, (_, k) => codeOf((k % 2 ? first : second).reserve(owner.accountId, 'mcp', allowance)));
    const outcomes = await Promise.all(calls);
    // Blocks of 10 fit twice; the last five units are single; whatever is leased but unused is never re-granted.
    const reserved = outcomes.filter((o) => o === 'reserved').length;
    expect(reserved).toBeLessThanOrEqual(25);
    expect(reserved).toBeGreaterThanOrEqual(5);
    expect((await counters()).minute).toBeLessThanOrEqual(6_000);
  });

  it('a lease ends with its minute: the next reservation counts in the new minute', async () => {
    let clock = 0;
    const usage = createUsageService(db, () => clock);
    const allowance = { perMinute: 60_000, perMonth: 10 ** 8 };
    await usage.reserve(owner.accountId, 'mcp', allowance);
    // Move the minute counter into the past, as if its minute had ended, and the local clock past the lease.
    await db.query("UPDATE usage_counters SET period_start = period_start - interval '1 minute' WHERE period = 'minute'");
    clock += 61_000;
    await usage.reserve(owner.accountId, 'mcp', allowance);
    const minutes = await db.query<{ used: number }>("SELECT used FROM usage_counters WHERE period = 'minute' ORDER BY period_start");
    expect(minutes.map((row) => row.used)).toEqual([100, 100]);
    // The first block's 99 unused units went back to the month when the second block was taken.
    expect((await counters()).month).toBe(200 - 99);
  });
});
