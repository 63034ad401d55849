/**
 * The session bridge (spec 4.5, 7.11): hosted MCP with the person's session cookie, only with the WebMCP header from
 * the gateway's own origin, same-origin or same-site; and the session-only transactions endpoint, which refuses
 * bearer credentials. Every refusal consumes nothing and changes nothing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBrowser, signInThroughForm } from './support/browser.ts';
import { snapshotTables } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { hashOf, seedNotes } from './support/rest-transactions.ts';

const PASSWORD = 'a long bridge password';

describe('the WebMCP session bridge', () => {
  let gateway: TestGateway;
  let cookie: string;
  let token: string;
  let accountId: string;
  let mappingId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `bridge-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    ({ token, accountId } = owner);
    mappingId = owner.mapping.id;
    await seedNotes(restClient(gateway, token), mappingId, { 'Inbox/hello.md': '# Hello\n\nworld\n', 'Inbox/old.md': '# Old\n' });
    const browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
    cookie = `kgate_session=${browser.cookies.get('kgate_session')!}`;
  });
  afterAll(() => gateway?.stop());

  const bridgeHeaders = (overrides: Record<string, string | undefined> = {}): Record<string, string> => {
    const headers: Record<string, string | undefined> = {
      cookie,
      'kgate-webmcp': '1',
      origin: gateway.baseUrl,
      'sec-fetch-site': 'same-origin',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...overrides,
    };
    return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined));
  };

  async function mcp(body: unknown, overrides: Record<string, string | undefined> = {}) {
    const response = await fetch(`${gateway.baseUrl}/api/mcp`, { method: 'POST', headers: bridgeHeaders(overrides), body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as { result?: Record<string, unknown>; error?: { data?: { code?: string } } }) : null };
  }

  const toolCall = (name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } });

  async function mcpUnits(): Promise<number> {
    const rows = await gateway.db.query<{ used: number }>("SELECT used FROM usage_counters WHERE account_id = $1 AND surface = 'mcp' AND period = 'minute'", [accountId]);
    return rows[0]?.used ?? 0;
  }

  it('serves hosted tools with the session, counted on the MCP allowance and recorded as the workspace', async () => {
    const read = await mcp(toolCall('get_note_content', { mappingId, path: 'Inbox/hello.md' }));
    expect(read.status).toBe(200);
    expect(read.body!.result).toMatchObject({ structuredContent: { path: 'Inbox/hello.md', content: '# Hello\n\nworld\n' } });
    const key = `bridge-${randomUUID()}`;
    const write = await mcp(toolCall('apply_note_writes', { mappingId, idempotencyKey: key, notes: [{ path: 'Inbox/new.md', content: '# New\n' }] }));
    expect(write.body!.result).toMatchObject({ structuredContent: { applied: true } });
    const events = await gateway.db.query<{ credential_kind: string; client: string | null }>(
      "SELECT credential_kind, client FROM provenance_events WHERE idempotency_key = $1",
      [key],
    );
    expect(events).toEqual([{ credential_kind: 'session', client: 'kgate workspace' }]);
    expect(await mcpUnits()).toBeGreaterThan(0);
  });

  it.each([
    ['without the WebMCP header', { 'kgate-webmcp': undefined }, 401],
    ['with another value of the header', { 'kgate-webmcp': '2' }, 403],
    ['from a foreign origin', { origin: 'https://evil.example' }, 403],
    ['from a loopback origin on another port', { origin: 'http://localhost:1' }, 403],
    ['without an Origin', { origin: undefined }, 403],
    ['cross-site, as the browser reports it', { 'sec-fetch-site': 'cross-site' }, 403],
    ['with no session', { cookie: undefined }, 401],
    ['with an unknown session', { cookie: 'kgate_session=not-a-session' }, 401],
  ])('refuses a session request %s, and consumes and changes nothing', async (_label, overrides, status) => {
    const units = await mcpUnits();
    const before = await snapshotTables(gateway.db);
    const refused = await mcp(toolCall('apply_note_writes', { mappingId, idempotencyKey: `no-${randomUUID()}`, notes: [{ path: 'Inbox/never.md', content: 'x' }] }), overrides);
    expect(refused.status).toBe(status);
    expect(refused.body!.error).toBeDefined();
    expect(await mcpUnits()).toBe(units);
    expect(await snapshotTables(gateway.db)).toBe(before);
  });

  it("applies the account's rate allowance and status through the bridge too", async () => {
    await gateway.services.accounts.setAllowanceOverrides(accountId, { mcpOperationsPerMinute: (await mcpUnits()) + 1 });
    try {
      expect((await mcp({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
      const limited = await mcp({ jsonrpc: '2.0', id: 2, method: 'ping' });
      expect(limited.status).toBe(429);
      expect(limited.body!.error!.data!.code).toBe('rate_limited');
    } finally {
      await gateway.services.accounts.setAllowanceOverrides(accountId, {});
    }
    await gateway.services.accounts.setStatus(accountId, 'suspended');
    try {
      const suspended = await mcp({ jsonrpc: '2.0', id: 3, method: 'ping' });
      expect(suspended.status).toBe(401);
    } finally {
      await gateway.services.accounts.setStatus(accountId, 'active');
    }
  });
});

describe('the session-only transactions endpoint', () => {
  let gateway: TestGateway;
  let cookie: string;
  let token: string;
  let mappingId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `session-tx-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    token = owner.token;
    mappingId = owner.mapping.id;
    await seedNotes(restClient(gateway, token), mappingId, { 'A/keep.md': '# Keep\n', 'A/drop.md': '# Drop\n' });
    const browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
    cookie = `kgate_session=${browser.cookies.get('kgate_session')!}`;
  });
  afterAll(() => gateway?.stop());

  const actions = () => [
    { type: 'write-note', path: 'A/keep.md', content: '# Keep\n\nedited\n', expectedHash: hashOf('# Keep\n') },
    { type: 'delete-note', path: 'A/drop.md', expectedHash: hashOf('# Drop\n') },
    { type: 'write-note', path: 'A/new.md', content: '# New\n' },
  ];

  async function post(body: unknown, headers: Record<string, string | undefined>) {
    const sent = Object.fromEntries(Object.entries({ 'content-type': 'application/json', ...headers }).filter((e): e is [string, string] => e[1] !== undefined));
    const response = await fetch(`${gateway.baseUrl}/api/workspace/transactions`, { method: 'POST', headers: sent, body: JSON.stringify(body) });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as Record<string, unknown> };
  }

  const session = (extra: Record<string, string | undefined> = {}) => ({ cookie, 'kgate-webmcp': '1', origin: gateway.baseUrl, 'sec-fetch-site': 'same-origin', ...extra });

  it('previews, then applies a mixed transaction atomically, once per key', async () => {
    const preview = await post({ mappingId, actions: actions() }, session());
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({ applied: false });
    const key = randomUUID();
    const applied = await post({ mappingId, dryRun: false, actions: actions() }, session({ 'idempotency-key': key }));
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ applied: true });
    const again = await post({ mappingId, dryRun: false, actions: actions() }, session({ 'idempotency-key': key }));
    expect([again.status, again.replayed]).toEqual([200, 'true']);
    const notes = await gateway.db.query<{ path: string }>('SELECT path FROM notes WHERE path LIKE $1 ORDER BY path', ['A/%']);
    expect(notes.map((n) => n.path)).toEqual(['A/keep.md', 'A/new.md']);
  });

  it.each([
    ['a personal access token', () => ({ authorization: `Bearer ${token}` }), 401],
    ['a personal access token beside the session', () => ({ ...session(), authorization: `Bearer ${token}` }), 401],
    ['an OAuth access token', () => ({ ...session(), authorization: 'Bearer kgo_at_0123456789abcdefghijklmnopqrstuvwxyzABCD' }), 401],
    ['a session without the WebMCP header', () => session({ 'kgate-webmcp': undefined }), 403],
    ['a session from a foreign origin', () => session({ origin: 'https://evil.example' }), 403],
    ['a cross-site session request', () => session({ 'sec-fetch-site': 'cross-site' }), 403],
    ['no credential at all', () => ({ 'kgate-webmcp': '1', origin: gateway.baseUrl }), 401],
  ])('refuses %s, and changes nothing', async (_label, headers, status) => {
    const before = await snapshotTables(gateway.db);
    const refused = await post({ mappingId, dryRun: false, actions: [{ type: 'write-note', path: 'A/never.md', content: 'x' }] }, { ...headers(), 'idempotency-key': randomUUID() });
    expect(refused.status).toBe(status);
    expect(refused.body.code).toBe(status === 401 ? 'unauthenticated' : 'forbidden');
    expect(await snapshotTables(gateway.db)).toBe(before);
  });

  it('refuses a body that is not JSON, or not a transaction, and changes nothing', async () => {
    const before = await snapshotTables(gateway.db);
    for (const body of ['{not json', '[]', JSON.stringify({ mappingId, dryRun: false, actions: 'all' })]) {
      const response = await fetch(`${gateway.baseUrl}/api/workspace/transactions`, {
        method: 'POST',
        headers: { ...session({ 'idempotency-key': randomUUID() }), 'content-type': 'application/json' } as Record<string, string>,
        body,
      });
      expect(response.status, body).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('invalid_request');
    }
    expect(await snapshotTables(gateway.db)).toBe(before);
  });

  it('is not a tool: tools/list names no transaction tool', async () => {
    const { OPERATIONS } = await import('../src/surfaces/operations/table.ts');
    const names = OPERATIONS.flatMap((operation) => (operation.mcp ? [operation.mcp.name] : []));
    expect(names.some((name) => /transaction/.test(name))).toBe(false);
  });
});
