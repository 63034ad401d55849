import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { restClient, snapshotOf, type ApiResponse, type RestClient } from './support/rest-client.ts';
import { apply, expectProblem, newKey, tamperedToken, type Action } from './support/rest-transactions.ts';

// Usage allowances of the Developer REST API: one unit per recognized operation, reserved after authentication and
// the plan check and before the input is even read; everything refused earlier is free.
describe('REST operation allowances', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  /** An owner with these allowance overrides, and a client speaking as them. */
  async function account(label: string, overrides: { restOperationsPerMinute?: number; restOperationsPerMonth?: number } = {}) {
    const owner = await createOwner(gateway.services, label);
    await gateway.services.accounts.setAllowanceOverrides(owner.accountId, overrides);
    return { owner, api: restClient(gateway, owner.token), mappingId: owner.mapping.id };
  }

  /** Units used by an account, summed over every period window (robust to a minute boundary passing). */
  async function usageOf(owner: Owner): Promise<{ minute: number; month: number }> {
    const rows = await gateway.db.query<{ period: string; used: number }>(
      "SELECT period, sum(used)::int AS used FROM usage_counters WHERE account_id = $1 AND surface = 'rest' GROUP BY period",
      [owner.accountId],
    );
    const of = (period: string) => rows.find((r) => r.period === period)?.used ?? 0;
    return { minute: of('minute'), month: of('month') };
  }

  /** Every usage counter of the database, for "consumed nothing" assertions about requests no account can be charged for. */
  async function allCounters(): Promise<string> {
    return JSON.stringify(await gateway.db.query('SELECT * FROM usage_counters ORDER BY account_id, surface, period, period_start'));
  }

  /**
   * Minute windows start on the clock's whole minute (UTC). A test that must stay inside one window waits for the
   * next one when fewer than `seconds` remain; the database runs on this machine, so the clocks agree.
   */
  async function roomInThisMinute(seconds = 6): Promise<void> {
    const left = 60_000 - (Date.now() % 60_000);
    if (left < seconds * 1000) await new Promise((resolve) => setTimeout(resolve, left + 250));
  }

  const events = (api: RestClient, mappingId: string) => api.get('/events', { query: { mappingId } });

  function expectUsageHeaders(response: ApiResponse, minute: { limit: number; remaining: number }, month?: { limit: number; remaining: number }) {
    expect(response.headers.get('ratelimit-limit')).toBe(String(minute.limit));
    expect(response.headers.get('ratelimit-remaining')).toBe(String(minute.remaining));
    const reset = Number(response.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
    if (month) {
      expect(response.headers.get('x-monthly-limit')).toBe(String(month.limit));
      expect(response.headers.get('x-monthly-remaining')).toBe(String(month.remaining));
    }
  }

  it('counts RateLimit-Remaining down 4..0, then answers 429 rate_limited with Retry-After and charges nothing for it', async () => {
    const { owner, api, mappingId } = await account('per-minute', { restOperationsPerMinute: 5 });
    await roomInThisMinute();
    for (let remaining = 4; remaining >= 0; remaining--) {
      const response = await events(api, mappingId);
      expect(response.status, response.text).toBe(200);
      expectUsageHeaders(response, { limit: 5, remaining }, { limit: 250_000, remaining: 250_000 - (5 - remaining) });
    }
    const refused = await events(api, mappingId);
    const body = expectProblem(refused, 429, 'rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(body).toMatchObject({ limit: 5, retryAfterSeconds: retryAfter });
    // The month unit taken before the minute check failed was given back.
    expect(await usageOf(owner)).toEqual({ minute: 5, month: 5 });
  });

  it('answers 429 monthly_limit_reached once the monthly allowance is used up', async () => {
    const { owner, api, mappingId } = await account('per-month', { restOperationsPerMonth: 3 });
    for (let remaining = 2; remaining >= 0; remaining--) {
      const response = await events(api, mappingId);
      expect(response.status, response.text).toBe(200);
      expect(response.headers.get('x-monthly-limit')).toBe('3');
      expect(response.headers.get('x-monthly-remaining')).toBe(String(remaining));
    }
    for (let i = 0; i < 2; i++) {
      const refused = await events(api, mappingId);
      const body = expectProblem(refused, 429, 'monthly_limit_reached');
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      // At most a month of 31 days away.
      expect(retryAfter).toBeLessThanOrEqual(31 * 24 * 3600);
      expect(body).toMatchObject({ limit: 3, retryAfterSeconds: retryAfter });
    }
    expect(await usageOf(owner)).toEqual({ minute: 3, month: 3 });
  });

  it('lets exactly the allowance through when 20 requests arrive at once with a limit of 7', async () => {
    const { owner, api, mappingId } = await account('parallel', { restOperationsPerMinute: 7 });
    await roomInThisMinute();
    const responses = await Promise.all(Array.from({ length: 20 }, () => events(api, mappingId)));
    const passed = responses.filter((r) => r.status === 200);
    expect(passed).toHaveLength(7);
    for (const r of responses.filter((x) => x.status !== 200)) expectProblem(r, 429, 'rate_limited');
    expect(passed.map((r) => Number(r.headers.get('ratelimit-remaining'))).sort()).toEqual([0, 1, 2, 3, 4, 5, 6]);
    const rows = await gateway.db.query<{ period: string; used: number }>(
      "SELECT period, used FROM usage_counters WHERE account_id = $1 AND surface = 'rest' ORDER BY period",
      [owner.accountId],
    );
    expect(rows).toEqual([
      { period: 'minute', used: 7 },
      { period: 'month', used: 7 },
    ]);
  });

  it('charges nothing for missing or bad credentials, a suspended account or the free plan', async () => {
    const { owner, api, mappingId } = await account('free-of-charge');
    const before = await allCounters();
    const snapshot = await snapshotOf(gateway);
    expectProblem(await api.get('/events', { token: null, query: { mappingId } }), 401, 'unauthenticated');
    expectProblem(await api.get('/events', { token: 'kgp_not-a-real-token', query: { mappingId } }), 401, 'unauthenticated');
    expectProblem(await api.get('/events', { token: tamperedToken(owner.token), query: { mappingId } }), 401, 'unauthenticated');
    expect(await allCounters()).toBe(before);

    await gateway.services.accounts.setStatus(owner.accountId, 'suspended');
    expectProblem(await events(api, mappingId), 403, 'account_inactive');
    await gateway.services.accounts.setStatus(owner.accountId, 'active');
    await gateway.services.accounts.setPlan(owner.accountId, 'free');
    expectProblem(await events(api, mappingId), 403, 'plan_required');
    expectProblem(await apply(api, mappingId, [{ type: 'write-note', path: 'u/a.md', content: 'a' }]), 403, 'plan_required');
    expect(await allCounters()).toBe(before);
    expect(await usageOf(owner)).toEqual({ minute: 0, month: 0 });
    expect(await snapshotOf(gateway)).toBe(snapshot);
  });

  it('charges one unit for a recognized operation whose input fails validation, and says so in the headers', async () => {
    const { owner, api } = await account('validation', { restOperationsPerMinute: 50 });
    await roomInThisMinute();
    const malformed = await api.post('/transactions', { raw: '{"actions": [', headers: { 'content-type': 'application/json' } });
    expectProblem(malformed, 400, 'invalid_request');
    expect(await usageOf(owner)).toEqual({ minute: 1, month: 1 });
    expect(malformed.headers.get('ratelimit-remaining')).toBe('49');
    expectProblem(await api.get('/events', { query: { mappingId: owner.mapping.id, limit: 0 } }), 400, 'invalid_request');
    expect(await usageOf(owner)).toEqual({ minute: 2, month: 2 });
  });

  it('serves /api/dev/openapi.json without a token and without charging', async () => {
    const { owner, api } = await account('openapi');
    const before = await allCounters();
    for (const token of [null, owner.token]) {
      const response = await api.get<{ openapi: string; paths: Record<string, unknown> }>('/openapi.json', { token });
      expect(response.status).toBe(200);
      expect(response.body.openapi).toMatch(/^3\.1\./);
      expect(Object.keys(response.body.paths)).toContain('/transactions');
      expect(response.headers.get('ratelimit-remaining')).toBeNull();
    }
    expect(await allCounters()).toBe(before);
  });

  it('charges nothing for an unknown route, a wrong method or a body over the size limit', async () => {
    const { owner, api, mappingId } = await account('unknown-route');
    const before = await allCounters();
    const snapshot = await snapshotOf(gateway);
    expectProblem(await api.get('/nope', { query: { mappingId } }), 404, 'not_found');
    expectProblem(await api.get('/transactions', { query: { mappingId } }), 404, 'not_found');
    expectProblem(await api.delete('/events', { query: { mappingId } }), 404, 'not_found');
    const huge: Action[] = [{ type: 'write-note', path: 'u/huge.md', content: 'z'.repeat(8 * 1024 * 1024) }];
    expectProblem(await apply(api, mappingId, huge), 413, 'payload_too_large');
    expect(await allCounters()).toBe(before);
    expect(await usageOf(owner)).toEqual({ minute: 0, month: 0 });
    expect(await snapshotOf(gateway)).toBe(snapshot);
  });

  it('refuses an apply over the allowance without applying it or spending its idempotency key', async () => {
    const { owner, api, mappingId } = await account('limited-apply', { restOperationsPerMinute: 1 });
    await roomInThisMinute();
    expect((await events(api, mappingId)).status).toBe(200);
    const key = newKey();
    const actions: Action[] = [{ type: 'write-note', path: 'u/later.md', content: 'later\n' }];
    const snapshot = await snapshotOf(gateway);
    expectProblem(await apply(api, mappingId, actions, key), 429, 'rate_limited');
    expect(await snapshotOf(gateway)).toBe(snapshot);
    // Allowances are read on every request: raising the limit lets the same key through, as a first attempt.
    await gateway.services.accounts.setAllowanceOverrides(owner.accountId, { restOperationsPerMinute: 10 });
    const retried = await apply(api, mappingId, actions, key);
    expect(retried.status, retried.text).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(retried.body.applied).toBe(true);
  });
});
