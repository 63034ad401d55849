/**
 * Saved views, watches and findings in real Chromium: a person saves a view and a new version on the scope's page
 * (a bad form comes back with why and nothing stored), watches it; an agent's governed write in the scope makes a
 * finding; the person acknowledges it on the findings page (its evidence links to the line in the note view), and
 * get_watch_findings then answers it acknowledged. Review posts are refused without the CSRF token, with a bearer
 * token of each kind (personal, OAuth read and write), from another account and from a viewer, each with nothing
 * changed. The in-page WebMCP adapter runs a saved view by its name: it resolves the name to the view's id and
 * version over the session bridge, and translates legacy operation names to explicit tools, never to a selector.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { connect, type TestAccount } from './support/oauth-flow.ts';
import { restClient } from './support/rest-client.ts';
import { hashOf, seedNotes } from './support/rest-transactions.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';


const PLAN = '# Plan\n\n- [ ] Ship the pilot [owner:: Ana] 📅 2026-12-01\n';
const PLAN_2 = '# Plan\n\n- [ ] Ship the pilot [owner:: Ana] 📅 2026-12-01\n- [ ] Brief the crews [owner:: Ana]\n';
const TABLES = ['knowledge_views', 'knowledge_view_versions', 'knowledge_watches', 'knowledge_watch_matches', 'knowledge_watch_findings'];

describe.skipIf(!chromiumAvailable)('saved views and findings in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let account: TestAccount;
  let scopeId: string;
  const password = 'a long views password';
  const snapshot = async () => JSON.stringify(await Promise.all(TABLES.map((t) => gateway.db.query(`SELECT * FROM ${t} ORDER BY 1, 2`))));
  const scopeUrl = (view: string) => `${gateway.baseUrl}/workspace/vaults/${account.mappingId}/scopes/${scopeId}/${view}`;

  async function mcp(token: string, name: string, args: Record<string, unknown>): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any -- tool results of many shapes
    const response = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    return ((await response.json()) as { result: Record<string, unknown> }).result;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `views-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password });
    account = { email, password, accountId: owner.accountId, mappingId: owner.mapping.id, personalToken: owner.token };
    await seedNotes(restClient(gateway, owner.token), account.mappingId, { 'Alpha/Plan.md': PLAN, 'Beta/Other.md': '# Other\n\n- [ ] Elsewhere\n' });
    scopeId = (await gateway.services.scopes.create({ accountId: owner.accountId, credentialKind: 'session' }, account.mappingId, { name: 'Alpha', pathPrefixes: ['Alpha'], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, email, password);
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('saves a view and a new version on the page, refusing a bad form with nothing stored, and watches it', async () => {
    await page.goto(scopeUrl('views'));
    await expectAccessible(page);
    const form = page.locator('form.view');
    await form.getByLabel('Name').fill('Ana’s work');
    for (const kind of ['Decisions', 'Open questions']) await form.getByLabel(kind).uncheck();
    await form.getByLabel('Owner of commitments').fill('Ana');
    // A due range that ends before it starts is refused: the form comes back as written, with why.
    await form.getByLabel('Commitments due on or after').fill('2026-12-31');
    await form.getByLabel('Commitments due on or before').fill('2026-01-01');
    const before = await snapshot();
    await form.getByRole('button', { name: 'Save view' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('dueAfter is later than its dueBefore');
    expect(await page.locator('form.view').getByLabel('Owner of commitments').inputValue()).toBe('Ana');
    expect(await snapshot()).toBe(before);
    await page.locator('form.view').getByLabel('Commitments due on or after').fill('');
    await page.locator('form.view').getByLabel('Commitments due on or before').fill('');
    await page.locator('form.view').getByRole('button', { name: 'Save view' }).click();
    await page.waitForURL(/\/views\/[0-9a-f-]{36}$/);
    expect(await page.locator('main').innerText()).toContain('Ship the pilot');
    await expectAccessible(page);

    // A new version: the name changes, version 1 stays as it was.
    const edit = page.locator('form.view');
    await edit.getByLabel('Name').fill('Ana’s open work');
    await edit.getByRole('button', { name: 'Save as a new version' }).click();
    await expect.poll(() => page.locator('main').innerText()).toContain('Version 2 of 2 (the latest)');
    await page.getByRole('link', { name: 'Version 1: Ana’s work' }).click();
    expect(await page.locator('main').innerText()).toContain('Version 1 of 2');

    await page.getByLabel('Watch').selectOption('');
    await page.getByRole('button', { name: 'Watch this view' }).click();
    await expect.poll(() => page.locator('main').innerText()).toContain('runs the latest version');
  });

  it('finds what an agent wrote in the scope; a person acknowledges it on the page, and the tool then says so', async () => {
    const written = await mcp(account.personalToken, 'apply_note_writes', {
      mappingId: account.mappingId,
      idempotencyKey: randomUUID(),
      notes: [{ path: 'Alpha/Plan.md', content: PLAN_2, expectedHash: hashOf(PLAN) }],
    });
    expect(written.isError, JSON.stringify(written)).toBeFalsy();
    await page.goto(scopeUrl('findings'));
    await expectAccessible(page);
    const item = page.locator('li.record', { hasText: 'Brief the crews' });
    expect(await item.innerText()).toContain('began to match');
    // Its evidence opens the note at the record's line.
    expect(await item.getByRole('link', { name: 'Alpha/Plan.md' }).getAttribute('href')).toBe(`/workspace/vaults/${account.mappingId}/notes/Alpha/Plan.md#L4`);
    await item.getByRole('button', { name: /^Acknowledge/ }).click();
    await expect.poll(() => page.locator('li.record', { hasText: 'Brief the crews' }).innerText()).toContain('acknowledged');
    const read = await mcp(account.personalToken, 'get_watch_findings', { mappingId: account.mappingId, contextScopeId: scopeId });
    expect(read.structuredContent.findings).toEqual([expect.objectContaining({ change: 'matched', state: 'acknowledged', record: expect.objectContaining({ title: 'Brief the crews [owner:: Ana]' }) })]);
  });

  it('refuses a review without the CSRF token, with any bearer token, from another account or a viewer, with nothing changed', async () => {
    const [finding] = (await mcp(account.personalToken, 'get_watch_findings', { mappingId: account.mappingId, contextScopeId: scopeId })).structuredContent.findings as Array<{ id: string }>;
    const action = `/workspace/vaults/${account.mappingId}/scopes/${scopeId}/findings/${finding!.id}/review`;
    const person: PageBrowser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(person, account.email, password)).status).toBe(303);
    const csrf = hiddenField(await (await person.get(`/workspace/vaults/${account.mappingId}/scopes/${scopeId}/findings`)).text(), 'csrf');
    const expectRefused = async (send: () => Promise<Response>, status: number) => {
      const before = await snapshot();
      const response = await send();
      expect(response.status).toBe(status);
      expect(await snapshot()).toBe(before);
    };
    const form = (token: string) => ({ csrf: token, state: 'resolved', seen: 'acknowledged' });
    await expectRefused(() => person.post(action, { state: 'resolved', seen: 'acknowledged' }), 403);
    await expectRefused(() => person.post(action, form(`${csrf.slice(0, -1)}x`)), 403);
    await expectRefused(() => person.post(action, form(csrf), { origin: 'https://attacker.example' }), 403);
    // A stale form (the finding moved since the page was read) is refused and says so.
    await expectRefused(() => person.post(action, { csrf, state: 'resolved', seen: 'new' }), 409);

    const oauthRead = (await connect(gateway, account, { scope: 'mcp:read' })).tokens.access_token;
    const oauthWrite = (await connect(gateway, account, { scope: 'mcp:read mcp:write' })).tokens.access_token;
    for (const bearer of [account.personalToken, oauthRead, oauthWrite]) {
      const tokenOnly = pageBrowser(gateway.baseUrl);
      await expectRefused(() => tokenOnly.post(action, form(csrf), { authorization: `Bearer ${bearer}` }), 303);
    }

    const strangerEmail = `stranger-${randomBytes(4).toString('hex')}@example.test`;
    await gateway.services.onboarding.bootstrapOwner({ email: strangerEmail, password });
    const stranger = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(stranger, strangerEmail, password)).status).toBe(303);
    const strangerCsrf = hiddenField(await (await stranger.get('/workspace')).text(), 'csrf');
    await expectRefused(() => stranger.post(action, form(strangerCsrf)), 404);

    const viewerEmail = `viewer-${randomBytes(4).toString('hex')}@example.test`;
    const v = await gateway.services.onboarding.bootstrapOwner({ email: viewerEmail, password });
    const mapping = await gateway.services.vaults.resolveHostedMapping(account.accountId, account.mappingId, 'read');
    const { token } = await gateway.services.membership.invite(account.accountId, mapping.workspaceId, 'viewer');
    await gateway.services.membership.acceptInvitation(v.accountId, token);
    const viewer = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(viewer, viewerEmail, password)).status).toBe(303);
    const viewerPage = await (await viewer.get(`/workspace/vaults/${account.mappingId}/scopes/${scopeId}/findings`)).text();
    expect(viewerPage).toContain('Your role in this workspace does not allow reviewing findings.');
    expect(viewerPage).not.toContain(`action="${action}"`);
    await expectRefused(() => viewer.post(action, form(hiddenField(viewerPage, 'csrf'))), 403);
  });

  it('runs a saved view by its name from the in-page adapter, with the id and version the name resolves to', async () => {
    const sent: Array<{ name: string; arguments: Record<string, unknown> }> = [];
    const record = (request: { url(): string; postData(): string | null }) => {
      if (request.url().endsWith('/api/mcp')) sent.push((JSON.parse(request.postData() ?? '{}') as { params: { name: string; arguments: Record<string, unknown> } }).params);
    };
    await page.goto(`${gateway.baseUrl}/workspace`);
    await expect.poll(() => page.evaluate('document.documentElement.dataset.webmcp')).toBe('ready');
    const run = async (script: string) => JSON.parse(await page.evaluate<string>(`(async () => JSON.stringify(await ${script}))()`)) as { isError?: boolean; structuredContent: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- tool results of many shapes
    const tool = (name: string, input: Record<string, unknown>) =>
      run(`(async () => { const t = (await document.modelContext.getTools()).find((x) => x.name === ${JSON.stringify(name)}); const r = await document.modelContext.executeTool(t, ${JSON.stringify(JSON.stringify(input))}); return typeof r === 'string' ? JSON.parse(r) : r; })()`);
    const views = (await gateway.db.query<{ id: string }>('SELECT id FROM knowledge_views'))[0]!;
    page.on('request', record);
    try {
      const latest = await tool('query_saved_view', { vaultId: `hosted:${account.mappingId}`, contextScopeId: scopeId, view: 'ana’s OPEN work' });
      expect(latest.structuredContent.view).toMatchObject({ id: views.id, name: 'Ana’s open work', version: 2 });
      const pinned = await tool('query_saved_view', { vaultId: `hosted:${account.mappingId}`, contextScopeId: scopeId, view: 'Ana’s open work', version: 1 });
      expect(pinned.structuredContent.view).toMatchObject({ id: views.id, name: 'Ana’s work', version: 1 });
      const unknown = await tool('query_saved_view', { vaultId: `hosted:${account.mappingId}`, contextScopeId: scopeId, view: 'Nobody’s work' });
      expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
      // A legacy operation name is translated to the explicit tools; an unknown one is refused before anything is sent.
      const legacy = await run(`window.kgateAdapter.run('knowledge.savedView', { vaultId: 'hosted:${account.mappingId}', contextScopeId: '${scopeId}', view: 'Ana’s open work' })`);
      expect(legacy.structuredContent.view).toMatchObject({ id: views.id, version: 2 });
      const count = sent.length;
      expect(await run(`window.kgateAdapter.run('operation', { operation: 'query_saved_knowledge_view' })`)).toMatchObject({ isError: true, structuredContent: { code: 'invalid_request' } });
      expect(sent.length).toBe(count);
    } finally {
      page.off('request', record);
    }
    expect(sent.map((s) => s.name)).toEqual([
      'list_saved_knowledge_views',
      'query_saved_knowledge_view',
      'list_saved_knowledge_views',
      'query_saved_knowledge_view',
      'list_saved_knowledge_views',
      'list_saved_knowledge_views',
      'query_saved_knowledge_view',
    ]);
    const queries = sent.filter((s) => s.name === 'query_saved_knowledge_view').map((s) => s.arguments);
    expect(queries).toEqual([
      { mappingId: account.mappingId, contextScopeId: scopeId, viewId: views.id, version: 2 },
      { mappingId: account.mappingId, contextScopeId: scopeId, viewId: views.id, version: 1 },
      { mappingId: account.mappingId, contextScopeId: scopeId, viewId: views.id, version: 2 },
    ]);
    expect(sent.some((s) => 'operation' in s.arguments)).toBe(false);
  });
});
