import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { TEST_ENGINE } from './support/database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';

describe('bearer authentication over HTTP', () => {
  let gateway: TestGateway;
  let owner: Owner;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services);
  });
  afterAll(() => gateway.stop());

  const whoami = (authorization?: string) =>
    fetch(`${gateway.url}/api/account`, { headers: authorization ? { authorization } : {} });

  async function expectProblem(response: Response, status: number, code: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status, code, type: `urn:kgate:problem:${code}` });
    expect(body.requestId).toBe(response.headers.get('x-request-id'));
    return body;
  }

  it('resolves a valid token to the account, its status, plan and entitlements', async () => {
    const response = await whoami(`Bearer ${owner.token}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      accountId: owner.accountId,
      status: 'active',
      plan: 'developer',
      entitlements: { developerApi: true, hostedMcp: true },
      credential: { kind: 'personal_access_token' },
    });
  });

  it('accepts the scheme in any case (RFC 7235 s2.1)', async () => {
    expect((await whoami(`bearer ${owner.token}`)).status).toBe(200);
  });

  it('answers 401 with a bare challenge when no credential is sent', async () => {
    const response = await whoami();
    await expectProblem(response, 401, 'unauthenticated');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="kgate"');
  });

  it.each([
    ['a malformed token', 'Bearer not-a-token'],
    ['a token with a bad checksum', 'Bearer kgp_000000000000000000000000000000000000'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
  ])('answers 401 invalid_token for %s', async (_label, header) => {
    const response = await whoami(header);
    await expectProblem(response, 401, 'unauthenticated');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="kgate", error="invalid_token"');
  });

  it('a revoked token gets 401 on the very next request', async () => {
    const issued = await gateway.services.tokens.issueToken({ accountId: owner.accountId, name: 'revoke-me' });
    expect((await whoami(`Bearer ${issued.token}`)).status).toBe(200);
    await gateway.services.tokens.revokeToken(owner.accountId, issued.info.id);
    await expectProblem(await whoami(`Bearer ${issued.token}`), 401, 'unauthenticated');
  });

  it('a rotated token gets 401 at once and its replacement works', async () => {
    const issued = await gateway.services.tokens.issueToken({ accountId: owner.accountId, name: 'rotate-me' });
    expect((await whoami(`Bearer ${issued.token}`)).status).toBe(200);
    const next = await gateway.services.tokens.rotateToken(owner.accountId, issued.info.id);
    await expectProblem(await whoami(`Bearer ${issued.token}`), 401, 'unauthenticated');
    expect((await whoami(`Bearer ${next.token}`)).status).toBe(200);
  });

  it('a suspended account gets 403 account_inactive, and its plan is re-read on every request', async () => {
    const member = await createOwner(gateway.services, 'suspend');
    await gateway.services.accounts.setStatus(member.accountId, 'suspended');
    await expectProblem(await whoami(`Bearer ${member.token}`), 403, 'account_inactive');
    await gateway.services.accounts.setStatus(member.accountId, 'active');
    await gateway.services.accounts.setPlan(member.accountId, 'free');
    const body = (await (await whoami(`Bearer ${member.token}`)).json()) as { plan: string; entitlements: { developerApi: boolean } };
    expect(body.plan).toBe('free');
    expect(body.entitlements.developerApi).toBe(false);
  });

  it('changes committed by another process reach the credential cache through database notifications', async () => {
    const member = await createOwner(gateway.services, 'elsewhere');
    const issued = await gateway.services.tokens.issueToken({ accountId: member.accountId, name: 'cached' });
    // Both tokens are now resolved once, so the next requests would be served from the cache.
    expect((await whoami(`Bearer ${member.token}`)).status).toBe(200);
    expect((await whoami(`Bearer ${issued.token}`)).status).toBe(200);
    // Plain SQL, as an operator's script or another gateway would change them: no service hook runs here.
    await gateway.db.query("UPDATE accounts SET plan = 'free' WHERE id = $1", [member.accountId]);
    await expect
      .poll(async () => ((await (await whoami(`Bearer ${member.token}`)).json()) as { plan: string }).plan, { timeout: 5000, interval: 20 })
      .toBe('free');
    await gateway.db.query('UPDATE personal_access_tokens SET revoked_at = now() WHERE id = $1', [issued.info.id]);
    await expect.poll(async () => (await whoami(`Bearer ${issued.token}`)).status, { timeout: 5000, interval: 20 }).toBe(401);
    await gateway.db.query("UPDATE accounts SET status = 'suspended' WHERE id = $1", [member.accountId]);
    await expect.poll(async () => (await whoami(`Bearer ${member.token}`)).status, { timeout: 5000, interval: 20 }).toBe(403);
  });

  it.runIf(TEST_ENGINE === 'postgres')('stops caching credentials while the notification connection is down', async () => {
    const member = await createOwner(gateway.services, 'listener-down');
    const plan = async () => ((await (await whoami(`Bearer ${member.token}`)).json()) as { plan: string }).plan;
    expect(await plan()).toBe('developer');
    const logged = (text: string) => gateway.logs.filter((line) => line.includes(text)).length;
    const lostBefore = logged('credential notifications lost');
    const restoredBefore = logged('credential notifications restored');
    await gateway.db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kgate-listener' AND datname = current_database()");
    await expect.poll(() => logged('credential notifications lost'), { timeout: 5000 }).toBeGreaterThan(lostBefore);
    // A change made while notifications cannot arrive is still seen on the next request: nothing is cached.
    await gateway.db.query("UPDATE accounts SET plan = 'team' WHERE id = $1", [member.accountId]);
    expect(await plan()).toBe('team');
    await expect.poll(() => logged('credential notifications restored'), { timeout: 10_000 }).toBeGreaterThan(restoredBefore);
    expect(await plan()).toBe('team');
    await gateway.db.query("UPDATE accounts SET plan = 'free' WHERE id = $1", [member.accountId]);
    await expect.poll(plan, { timeout: 5000, interval: 20 }).toBe('free');
  });

  it('never writes a token into the request log', async () => {
    const issued = await gateway.services.tokens.issueToken({ accountId: owner.accountId, name: 'log-check' });
    await whoami(`Bearer ${issued.token}`);
    await fetch(`${gateway.url}/api/account?access_token=${issued.token}`, { headers: { 'x-request-id': issued.token } });
    await whoami(`Bearer ${issued.token.slice(0, -1)}x`);
    const lines = gateway.logs.filter((line) => line.includes('"msg":"request"'));
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(gateway.logs.join('\n')).not.toContain(issued.token.slice(4, 34));
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('reqId');
  });
});
