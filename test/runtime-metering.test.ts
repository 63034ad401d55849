import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes, randomUUID } from 'node:crypto';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { callRuntime, createRuntimeChain, runtimeToken, vaultPath, type RuntimeAnswer, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// Spec 8 rule 3 and docs/runtime.md "Metering": one unit of the organization's apiOperationsPerMonth is reserved per
// call after the whole chain passed and before execution, with one conditional statement (concurrent calls never
// exceed the ceiling); refusals before the reservation consume nothing; blank is no cap; the month is UTC.

type Receipt = { kind: string; requestId: string; month: string; used: number; limit: number | null };

/** The calendar month in UTC, `YYYY-MM`. */
function currentMonth(): string {
  return new Date().toISOString().slice(0, 7);
}

/** The one operation receipt of an answered call. */
function receiptOf(answer: RuntimeAnswer<unknown>): Receipt {
  expect(answer.body.receipts).toHaveLength(1);
  const receipt = answer.body.receipts[0] as Receipt;
  expect(receipt).toMatchObject({ kind: 'service.product-runtime-operation', requestId: answer.body.requestId });
  expect(receipt.month).toBe(currentMonth());
  return receipt;
}

describe('Product Runtime metering: apiOperationsPerMonth per organization', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  /** A POST whose body is sent as it is (callRuntime sends JSON only). */
  async function rawPost(path: string, token: string, body: string): Promise<RuntimeAnswer<unknown>> {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'X-Service-Runtime-Version': '1', Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
      body,
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as RuntimeAnswer<unknown>['body'] };
  }

  async function cappedChain(label: string, limit: number | null, options: Parameters<typeof createRuntimeChain>[2] = {}): Promise<{ chain: RuntimeChainSetup; token: string }> {
    const chain = await createRuntimeChain(gateway, label, options);
    await gateway.services.runtimeAdmin.setOrganizationSettings(chain.organization.slug, { apiOperationsPerMonth: limit });
    return { chain, token: await runtimeToken(gateway, chain) };
  }

  it('a ceiling of 5: of 12 concurrent calls exactly 5 are answered and 7 refused, and the count never passes 5', async () => {
    const { chain, token } = await cappedChain('ceiling', 5);
    const answers = await Promise.all(Array.from({ length: 12 }, () => callRuntime(gateway, token, 'GET', '/api/product/v1/context')));
    const answered = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status !== 200);
    expect(answered).toHaveLength(5);
    expect(refused).toHaveLength(7);
    expect(answered.map((a) => receiptOf(a)).map((r) => [r.used, r.limit]).sort(([a], [b]) => a! - b!)).toEqual([
      [1, 5],
      [2, 5],
      [3, 5],
      [4, 5],
      [5, 5],
    ]);
    for (const answer of refused) {
      const problem = expectRuntimeProblem(answer, 429, 'runtime_operations_exhausted');
      expect(problem.details).toMatchObject({ limit: 5 });
      expect(answer.body.receipts).toEqual([]);
    }
    expect(await usageOf(gateway, chain.organization.id)).toBe(5);

    // Exhausted, every route is refused the same way and the count stays.
    const publish = await callRuntime(gateway, token, 'POST', `${vaultPath(chain)}/notes/publish`, {
      json: { path: 'lessons/late.md', content: '# Late\n', dryRun: false },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expectRuntimeProblem(publish, 429, 'runtime_operations_exhausted');
    expect(await gateway.db.query(`SELECT 1 FROM notes WHERE vault_id = $1 AND path = 'lessons/late.md'`, [chain.vaultId])).toEqual([]);
    expectRuntimeProblem(await callRuntime(gateway, token, 'GET', '/api/product/v1/capabilities'), 429, 'runtime_operations_exhausted');
    expect(await usageOf(gateway, chain.organization.id)).toBe(5);

    // Raised to 6, one more call is answered; cleared (blank: no cap), calls go on being counted without refusal.
    const { runtimeAdmin } = gateway.services;
    await runtimeAdmin.setOrganizationSettings(chain.organization.slug, { apiOperationsPerMonth: 6 });
    expect(receiptOf(await callRuntime(gateway, token, 'GET', '/api/product/v1/context'))).toMatchObject({ used: 6, limit: 6 });
    expectRuntimeProblem(await callRuntime(gateway, token, 'GET', '/api/product/v1/context'), 429, 'runtime_operations_exhausted');
    await runtimeAdmin.setOrganizationSettings(chain.organization.slug, { apiOperationsPerMonth: null });
    expect(receiptOf(await callRuntime(gateway, token, 'GET', '/api/product/v1/context'))).toMatchObject({ used: 7, limit: null });
    expect(await usageOf(gateway, chain.organization.id)).toBe(7);
  });

  it('refusals before execution consume nothing: version, token, claimed audience, scope, workspace, vault, malformed body', async () => {
    const { chain, token } = await cappedChain('free-refusals', 5, { scopes: ['media.read'] });
    const base = vaultPath(chain);
    const apply = (path: string, headers: Record<string, string | null> = {}) =>
      callRuntime(gateway, token, 'POST', path, {
        json: { path: 'lessons/refused.md', content: '# Refused\n', dryRun: false },
        headers: { 'Idempotency-Key': randomUUID(), ...headers },
      });
    const refusals: Array<[Promise<RuntimeAnswer<unknown>>, number, string]> = [
      [callRuntime(gateway, token, 'GET', '/api/product/v1/context', { headers: { 'X-Service-Runtime-Version': null } }), 400, 'runtime_version_required'],
      [callRuntime(gateway, token, 'GET', '/api/product/v1/context', { headers: { 'X-Service-Runtime-Version': '0' } }), 400, 'runtime_version_unsupported'],
      [callRuntime(gateway, `kgrp_${randomBytes(32).toString('base64url')}`, 'GET', '/api/product/v1/context'), 401, 'unauthenticated'],
      [callRuntime(gateway, chain.customer.token, 'GET', '/api/product/v1/context'), 401, 'unauthenticated'],
      [callRuntime(gateway, token, 'GET', '/api/product/v1/context', { headers: { 'X-Service-Audience': 'owner' } }), 400, 'client_audience_refused'],
      [apply(`${base}/notes/publish`), 403, 'insufficient_scope'],
      [callRuntime(gateway, token, 'GET', `/workspaces/${randomUUID()}/vaults/${chain.vaultId}/notes`), 404, 'workspace_not_assigned'],
      [callRuntime(gateway, token, 'GET', `/workspaces/${chain.workspaceId}/vaults/${randomUUID()}/notes`), 404, 'vault_not_granted'],
      [callRuntime(gateway, token, 'GET', `/api/product/v1/workspaces/${randomUUID()}`), 404, 'workspace_not_assigned'],
      [callRuntime(gateway, token, 'GET', `/api/product/v1/scopes/${randomUUID()}/context`), 404, 'scope_not_found'],
      [rawPost(`${base}/notes/publish`, token, '{"path":'), 400, 'invalid_request'],
      [rawPost(`${base}/notes/publish`, token, '["not", "an", "object"]'), 400, 'invalid_request'],
      [callRuntime(gateway, token, 'GET', '/api/product/v1/no-such-route'), 404, 'not_found'],
    ];
    for (const [answer, status, code] of refusals) expectRuntimeProblem(await answer, status, code);
    expect(await usageOf(gateway, chain.organization.id)).toBe(0);

    // The first call that passes the chain is the first one counted.
    expect(receiptOf(await callRuntime(gateway, token, 'GET', `${base}/notes`))).toMatchObject({ used: 1, limit: 5 });
    // A body that is JSON but fails the operation's schema is refused after the reservation: it consumed its unit, and
    // its refusal says so.
    const invalid = await callRuntime(gateway, token, 'POST', `${base}/notes/publish`, { json: { path: 42, content: '# x\n' } });
    expectRuntimeProblem(invalid, 400, 'invalid_request');
    expect(receiptOf(invalid)).toMatchObject({ used: 2, limit: 5 });
    expect(await usageOf(gateway, chain.organization.id)).toBe(2);
  });

  it('blank (no cap) counts every call without refusing, per organization', async () => {
    const first = await cappedChain('blank-a', null);
    const second = await cappedChain('blank-b', null);
    const answers = await Promise.all(Array.from({ length: 8 }, () => callRuntime(gateway, first.token, 'GET', '/api/product/v1/capabilities')));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    expect(answers.map((a) => receiptOf(a).used).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const answer of answers) expect(receiptOf(answer).limit).toBeNull();
    expect(await usageOf(gateway, first.chain.organization.id)).toBe(8);
    // Another organization's count is its own.
    expect(receiptOf(await callRuntime(gateway, second.token, 'GET', '/api/product/v1/context'))).toMatchObject({ used: 1, limit: null });
    expect(await usageOf(gateway, second.chain.organization.id)).toBe(1);
  });

  it('one row per organization and UTC calendar month', async () => {
    const { chain, token } = await cappedChain('month', 100);
    const receipt = receiptOf(await callRuntime(gateway, token, 'GET', '/api/product/v1/context'));
    const rows = await gateway.db.query<{ month: string; used: number }>(
      `SELECT to_char(month_start, 'YYYY-MM') AS month, used FROM runtime_usage WHERE organization_id = $1`,
      [chain.organization.id],
    );
    expect(rows).toEqual([{ month: receipt.month, used: 1 }]);
  });
});
