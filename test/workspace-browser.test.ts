/**
 * The workspace in real Chromium: browse, search as you type, read a note, follow a WikiLink and a backlink, see an
 * agent's change in the events, restore from the trash (preview, then apply), a hostile note rendered inert, and
 * axe-core on every page.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { snapshotTables } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.KGATE_REQUIRE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);

const PLAN = `---
status: active
tags: [sync, planning]
---
# Plan

We build on [[Ideas]] and [[Ideas#Offline|the offline part]]; [[Missing Note]] is still to write.

| step | owner |
|---|---|
| design | Ana |
`;

const IDEAS = '# Ideas\n\nOffline sync with a conflict rule.\n\n## Offline\n\nQueue changes while offline.\n';

// Each trick must stay inert: if any runs, it sets window.__pwned.
const HOSTILE = `# Hostile

<script>window.__pwned = 'script'</script>
<img src="x" onerror="window.__pwned = 'onerror'">
<a href="javascript:window.__pwned='raw-link'">raw link</a>
[markdown link](javascript:window.__pwned='md-link')
<iframe src="javascript:window.__pwned='frame'"></iframe>
<div onclick="window.__pwned='click'">click me</div>

\`\`\`canvas
{"nodes":[{"id":"a","type":"text","text":"Start here","x":0,"y":0,"width":100,"height":50},{"id":"b","type":"file","file":"Notes/Ideas.md","x":0,"y":100,"width":100,"height":50}],"edges":[{"id":"e","fromNode":"a","toNode":"b","label":"leads to"}]}
\`\`\`
`;

// `KGATE_SCREENSHOTS=1 npx vitest run test/workspace-browser.test.ts` writes the screenshots of docs/workspace.md.
const SCREENSHOTS = process.env.KGATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/workspace/', import.meta.url)) : undefined;

/** Takes the page's screenshot for docs/workspace.md when asked to. */
async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!available)('the workspace in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let mappingId: string;
  let token: string;
  const email = `workspace-${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a long workspace password';

  beforeAll(async () => {
    gateway = await startTestGateway();
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password });
    mappingId = owner.mapping.id;
    token = owner.token;
    const api = restClient(gateway, token);
    await seedNotes(api, mappingId, {
      'Projects/Plan.md': PLAN,
      'Notes/Ideas.md': IDEAS,
      'Notes/Hostile.md': HOSTILE,
      'Notes/Old.md': '# Old\n\nKept for the trash.\n',
    });
    // An agent's change over MCP, to be seen in the events.
    const agent = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'apply_note_writes',
          arguments: { mappingId, idempotencyKey: `agent-${randomBytes(4).toString('hex')}`, notes: [{ path: 'Notes/Ideas.md', content: `${IDEAS}\nAdded by an agent.\n`, expectedHash: hashOf(IDEAS) }] },
        },
      }),
    });
    expect(await agent.text()).not.toContain('"isError":true');
    const deleted = await apply(api, mappingId, [{ type: 'delete-note', path: 'Notes/Old.md', expectedHash: hashOf('# Old\n\nKept for the trash.\n') }]);
    expect(deleted.status, deleted.text).toBe(200);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
    page = await (await browser.newContext()).newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('leads a stranger from / to sign-in, and the person to the workspace with the vault and its id', async () => {
    await page.goto(`${gateway.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    await expectAccessible(page);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
    await page.goto(`${gateway.baseUrl}/`);
    expect(new URL(page.url()).pathname).toBe('/workspace');
    await expect.poll(() => page.locator('main').innerText()).toContain(mappingId);
    // The copy button appears with script, and copies the id.
    await expect.poll(() => page.getByRole('button', { name: /Copy the mapping id/ }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'vaults');
  });

  it('browses folders, reads a note with its properties, follows a WikiLink and a backlink', async () => {
    await page.getByRole('link', { name: 'Demo vault' }).first().click();
    await page.getByRole('link', { name: 'Projects/' }).click();
    await expectAccessible(page);
    await screenshot(page, 'folder');
    await page.getByRole('link', { name: 'Plan' }).click();
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Projects/Plan.md`);
    const main = await page.locator('main').innerText();
    expect(main).toContain('active');
    expect(main).toContain('sync, planning');
    expect(await page.locator('article table td').first().innerText()).toBe('design');
    // The unresolved link searches the vault; the resolved ones lead to the note.
    expect(await page.locator('a.unresolved').getAttribute('href')).toBe(`/workspace/vaults/${mappingId}?q=Missing%20Note`);
    await expectAccessible(page);
    await screenshot(page, 'note');
    await page.locator('article').getByRole('link', { name: 'Ideas', exact: true }).click();
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Notes/Ideas.md`);
    expect(await page.locator('article').innerText()).toContain('Added by an agent.');
    await page.getByRole('region', { name: 'Backlinks' }).getByRole('link', { name: 'Projects/Plan.md' }).click();
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Projects/Plan.md`);
  });

  it('searches as you type, and without script through the form', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}`);
    await page.getByLabel('Search this vault').pressSequentially('conflict rule');
    await expect.poll(() => page.locator('#results').innerText()).toContain('Ideas');
    expect(new URL(page.url()).search).toBe(''); // swapped in, not navigated
    await expectAccessible(page);
    await screenshot(page, 'search');
    const plain = await fetch(`${gateway.baseUrl}/workspace/vaults/${mappingId}?q=conflict`, { headers: { cookie: await sessionCookie(page) } });
    expect(await plain.text()).toContain('Notes/Ideas.md');
  });

  it('renders a hostile note inert, and shows the outline of its canvas', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/notes/Notes/Hostile.md`);
    const article = page.locator('article.note');
    expect(await article.locator('script, iframe, img, [onerror], [onclick]').count()).toBe(0);
    const hrefs = await Promise.all((await article.locator('a').all()).map((link) => link.getAttribute('href')));
    expect(hrefs.filter((href) => href !== null && /^\s*javascript:/i.test(href))).toEqual([]);
    await article.getByText('raw link').click();
    await article.getByText('click me').click();
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.getByRole('region', { name: 'Canvas outline' }).innerText()).toContain('Start here');
    await expectAccessible(page);
  });

  it("shows the agent's change in the events, newest first, with who and through what", async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/events`);
    const rows = await page.locator('tbody tr:not(.diff-row)').allInnerTexts();
    expect(rows[0]).toContain('moved to the trash');
    const change = rows.find((row) => row.includes('Notes/Ideas.md') && row.includes('changed'));
    expect(change).toContain('access token');
    // The change's diff, one click away.
    await page.getByText('What changed in Notes/Ideas.md').click();
    const diff = await page.locator('pre.diff').first().innerText();
    expect(diff).toContain('+Added by an agent.');
    expect(diff).toContain('--- a/Notes/Ideas.md');
    await expectAccessible(page);
    await screenshot(page, 'events');
  });

  it('restores a note from the trash: a preview first, then the apply, once', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/trash`);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Preview restore of Notes/Old.md' }).click();
    expect(await page.locator('main').innerText()).toContain('Notes/Old.md');
    // Previewing changed nothing.
    const api = restClient(gateway, token);
    expect((await api.get('/notes/by-path', { query: { mappingId, path: 'Notes/Old.md' } })).status).toBe(404);
    await expectAccessible(page);
    await screenshot(page, 'restore-preview');
    const approved = page.locator('form[action$="/restore/apply"]');
    const action = new URL((await approved.getAttribute('action'))!, gateway.baseUrl).toString();
    const fields: Record<string, string> = {};
    for (const input of await approved.locator('input[type=hidden]').all()) fields[(await input.getAttribute('name'))!] = (await input.getAttribute('value'))!;
    // A forged form (another trash entry, or no key) is refused and restores nothing.
    const untouched = await snapshotTables(gateway.db);
    for (const forged of [{ ...fields, trash_id: randomUUID(), idempotency_key: randomUUID() }, { ...fields, idempotency_key: '' }]) {
      const refused = await page.request.post(action, { form: forged, headers: { origin: gateway.baseUrl }, maxRedirects: 0 });
      expect(refused.status()).toBeGreaterThanOrEqual(400);
    }
    expect(await snapshotTables(gateway.db)).toBe(untouched);
    await page.getByRole('button', { name: 'Restore this note' }).click();
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Notes/Old.md`);
    expect((await api.get('/notes/by-path', { query: { mappingId, path: 'Notes/Old.md' } })).status).toBe(200);
    // Submitting the same approved form again (a double click, a resubmit) replays it: one restore event, not two.
    const again = await page.request.post(action, { form: fields, headers: { origin: gateway.baseUrl }, maxRedirects: 0 });
    expect(again.status()).toBe(303);
    const events = await api.get<{ events: Array<{ kind: string }> }>('/events', { query: { mappingId } });
    expect(events.body.events.filter((e) => e.kind === 'note.restored')).toHaveLength(1);
  });

  /** Runs a WebMCP tool of the page as an in-page agent would: found with getTools, run with executeTool. */
  async function webmcpTool(name: string, input: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent: Record<string, unknown> }> {
    const raw = await page.evaluate(`(async () => {
      const tool = (await document.modelContext.getTools()).find((t) => t.name === ${JSON.stringify(name)});
      const result = await document.modelContext.executeTool(tool, ${JSON.stringify(JSON.stringify(input))});
      return typeof result === 'string' ? result : JSON.stringify(result);
    })()`);
    return JSON.parse(raw as string) as { isError?: boolean; structuredContent: Record<string, unknown> };
  }

  it('registers the WebMCP tools with document.modelContext once the workspace is ready', async () => {
    await page.goto(`${gateway.baseUrl}/workspace`);
    await expect.poll(() => page.evaluate('document.documentElement.dataset.webmcp')).toBe('ready');
    const names = await page.evaluate<string[]>('document.modelContext.getTools().then((tools) => tools.map((t) => t.name))');
    expect(names.sort()).toEqual([
      'apply_note_deletions',
      'apply_note_writes',
      'get_note_content',
      'get_published_intelligence_changes',
      'get_published_intelligence_insights',
      'get_published_intelligence_state',
      'get_published_intelligence_timeline',
      'get_watch_findings',
      'list_published_intelligence_sources',
      'list_vaults',
      'preview_note_deletions',
      'preview_note_writes',
      'query_saved_view',
      'search_notes',
      'search_published_intelligence',
    ]);
    const vaults = await webmcpTool('list_vaults', {});
    expect(vaults.structuredContent.vaults).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ vaultId: 'local:default', kind: 'local', selected: true }),
        expect.objectContaining({ vaultId: `hosted:${mappingId}`, kind: 'hosted' }),
      ]),
    );
  });

  it('works on a local vault in the page with the governed rules, and never sends its notes to the server', async () => {
    const secret = `SECRET-LOCAL-${randomBytes(6).toString('hex')}`;
    const seen: string[] = [];
    const record = (request: { url(): string; postData(): string | null }) => seen.push(`${request.url()} ${request.postData() ?? ''}`);
    page.on('request', record);
    try {
      const notes = [{ path: 'Local/idea.md', content: `# Idea\n\n${secret}\n` }];
      const preview = await webmcpTool('preview_note_writes', { notes });
      expect(preview.structuredContent).toMatchObject({ vaultId: 'local:default', applied: false, actions: [{ path: 'Local/idea.md', status: 'create', beforeRevision: null }] });
      const key = `local-${randomBytes(4).toString('hex')}`;
      expect((await webmcpTool('apply_note_writes', { notes, idempotencyKey: key })).structuredContent).toMatchObject({ applied: true });
      const read = await webmcpTool('get_note_content', { path: 'Local/idea.md' });
      expect(read.structuredContent.content).toContain(secret);
      // A stale hash changes nothing; a change without the hash is refused; the same key replays.
      const stale = await webmcpTool('apply_note_writes', { notes: [{ path: 'Local/idea.md', content: 'overwritten', expectedHash: `sha256:${'0'.repeat(64)}` }], idempotencyKey: `${key}-2` });
      expect(stale).toMatchObject({ isError: true, structuredContent: { code: 'conflict' } });
      const blind = await webmcpTool('apply_note_writes', { notes: [{ path: 'Local/idea.md', content: 'overwritten' }], idempotencyKey: `${key}-3` });
      expect(blind).toMatchObject({ isError: true, structuredContent: { code: 'precondition_required' } });
      expect((await webmcpTool('get_note_content', { vaultId: 'local:default', path: 'Local/idea.md' })).structuredContent.content).toContain(secret);
      expect((await webmcpTool('apply_note_writes', { notes, idempotencyKey: key })).structuredContent).toMatchObject({ applied: true, replayed: true });
      expect((await webmcpTool('search_notes', { query: secret.toLowerCase() })).structuredContent.results).toEqual([expect.objectContaining({ path: 'Local/idea.md' })]);
      // Deleting: a preview, a stale hash refused, then the apply with the current hash moves it to the local trash.
      const hash = (await webmcpTool('get_note_content', { path: 'Local/idea.md' })).structuredContent.contentHash as string;
      const deletion = await webmcpTool('preview_note_deletions', { notes: [{ path: 'Local/idea.md' }] });
      expect(deletion.structuredContent).toMatchObject({ applied: false, actions: [{ path: 'Local/idea.md', status: 'delete', beforeRevision: hash }] });
      const staleDelete = await webmcpTool('apply_note_deletions', { notes: [{ path: 'Local/idea.md', expectedHash: `sha256:${'1'.repeat(64)}` }], idempotencyKey: `${key}-4` });
      expect(staleDelete).toMatchObject({ isError: true, structuredContent: { code: 'conflict' } });
      expect((await webmcpTool('apply_note_deletions', { notes: [{ path: 'Local/idea.md', expectedHash: hash }], idempotencyKey: `${key}-5` })).structuredContent).toMatchObject({ applied: true });
      expect(await webmcpTool('get_note_content', { path: 'Local/idea.md' })).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
    } finally {
      page.off('request', record);
    }
    expect(seen.filter((line) => line.includes('SECRET-LOCAL'))).toEqual([]);
    // And the hosted vault never received it.
    const rows = await gateway.db.query<{ count: number }>("SELECT count(*)::int AS count FROM notes WHERE content LIKE '%SECRET-LOCAL%'");
    expect(rows[0]!.count).toBe(0);
  });

  it('forwards a hosted tool through the session cookie and the WebMCP header, never a bearer token', async () => {
    const sent: Array<Record<string, string>> = [];
    const record = (request: { url(): string; headers(): Record<string, string> }) => {
      if (request.url().endsWith('/api/mcp')) sent.push(request.headers());
    };
    page.on('request', record);
    try {
      const read = await webmcpTool('get_note_content', { vaultId: `hosted:${mappingId}`, path: 'Notes/Ideas.md' });
      expect(read.structuredContent).toMatchObject({ path: 'Notes/Ideas.md' });
      expect(read.structuredContent.content).toContain('Added by an agent.');
    } finally {
      page.off('request', record);
    }
    expect(sent).toHaveLength(1);
    expect(sent[0]!['kgate-webmcp']).toBe('1');
    expect(sent[0]!.authorization).toBeUndefined();
    const foreign = await webmcpTool('get_note_content', { vaultId: 'hosted:00000000-0000-7000-8000-000000000000', path: 'Notes/Ideas.md' });
    expect(foreign).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
  });

  it('follows an open_app_view link to the note it names', async () => {
    const reply = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'open_app_view', arguments: { view: 'note', mappingId, path: 'Notes/Ideas.md' } } }),
    });
    const { url } = ((await reply.json()) as { result: { structuredContent: { url: string } } }).result.structuredContent;
    await page.goto(url);
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Notes/Ideas.md`);
    expect(await page.locator('article').innerText()).toContain('Offline sync with a conflict rule.');
  });

  it('refuses the session bridge to a request without the WebMCP header, and the browser never sends one cross-site', async () => {
    const units = async () =>
      (await gateway.db.query<{ used: number }>("SELECT coalesce(sum(used), 0)::int AS used FROM usage_counters WHERE surface = 'mcp' AND period = 'month'"))[0]!.used;
    const before = await units();
    await page.goto(`${gateway.baseUrl}/workspace`);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_vaults', arguments: {} } });
    // Same origin, with the cookie, without the header: refused.
    const plain = await page.evaluate(`fetch('/api/mcp', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: ${JSON.stringify(body)} }).then((r) => r.status)`);
    expect(plain).toBe(401);
    // From another site (127.0.0.1 is another site than localhost): with the header, the browser asks first and kgate
    // grants no preflight, so nothing is sent; without it, the Lax session cookie stays home and the call is refused.
    await page.goto(`${gateway.url}/healthz`);
    const crossSite = await page.evaluate(
      `fetch(${JSON.stringify(`${gateway.baseUrl}/api/mcp`)}, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json', 'kgate-webmcp': '1' }, body: ${JSON.stringify(body)} }).then(() => 'sent', () => 'blocked')`,
    );
    expect(crossSite).toBe('blocked');
    await page.evaluate(`fetch(${JSON.stringify(`${gateway.baseUrl}/api/mcp`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(body)} }).catch(() => undefined)`);
    expect(await units()).toBe(before);
  });

  it('unregisters the WebMCP tools when the page goes away', async () => {
    await page.goto(`${gateway.baseUrl}/workspace`);
    await expect.poll(() => page.evaluate('document.documentElement.dataset.webmcp')).toBe('ready');
    expect(await page.evaluate<number>('document.modelContext.getTools().then((tools) => tools.length)')).toBe(15);
    await page.evaluate(`window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }))`);
    await expect.poll(() => page.evaluate<number>('document.modelContext.getTools().then((tools) => tools.length)')).toBe(0);
  });

  it("answers another person's vault as if it did not exist", async () => {
    const other = await gateway.services.onboarding.bootstrapOwner({ email: `other-${randomBytes(4).toString('hex')}@example.test`, password });
    for (const path of ['', '/events', '/trash', '/notes/Notes/Ideas.md']) {
      const response = await page.goto(`${gateway.baseUrl}/workspace/vaults/${other.mapping.id}${path}`);
      expect(response?.status()).toBe(404);
    }
  });
});

async function sessionCookie(page: Page): Promise<string> {
  const cookies = await page.context().cookies();
  return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}
