/**
 * The workspace in real Chromium: browse, search as you type, read a note, follow a WikiLink and a backlink, see an
 * agent's change in the events, restore from the trash (preview, then apply), a hostile note rendered inert, and
 * axe-core on every page.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.KGATE_REQUIRE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

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

async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string | null; nodes: number }>> {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(`axe.run(document).then((result) => result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`);
}

/** Serious and critical violations only: the bar. */
async function expectAccessible(page: Page): Promise<void> {
  const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${page.url()}: ${JSON.stringify(serious)}`).toEqual([]);
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
  });

  it('browses folders, reads a note with its properties, follows a WikiLink and a backlink', async () => {
    await page.getByRole('link', { name: 'Demo vault' }).first().click();
    await page.getByRole('link', { name: 'Projects/' }).click();
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Plan' }).click();
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Projects/Plan.md`);
    const main = await page.locator('main').innerText();
    expect(main).toContain('active');
    expect(main).toContain('sync, planning');
    expect(await page.locator('article table td').first().innerText()).toBe('design');
    // The unresolved link searches the vault; the resolved ones lead to the note.
    expect(await page.locator('a.unresolved').getAttribute('href')).toBe(`/workspace/vaults/${mappingId}?q=Missing%20Note`);
    await expectAccessible(page);
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
    const rows = await page.locator('tbody tr').allInnerTexts();
    expect(rows[0]).toContain('moved to the trash');
    const change = rows.find((row) => row.includes('Notes/Ideas.md') && row.includes('changed'));
    expect(change).toContain('access token');
    await expectAccessible(page);
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
    const approved = page.locator('form[action$="/restore/apply"]');
    const action = new URL((await approved.getAttribute('action'))!, gateway.baseUrl).toString();
    const fields: Record<string, string> = {};
    for (const input of await approved.locator('input[type=hidden]').all()) fields[(await input.getAttribute('name'))!] = (await input.getAttribute('value'))!;
    await page.getByRole('button', { name: 'Restore this note' }).click();
    expect(new URL(page.url()).pathname).toBe(`/workspace/vaults/${mappingId}/notes/Notes/Old.md`);
    expect((await api.get('/notes/by-path', { query: { mappingId, path: 'Notes/Old.md' } })).status).toBe(200);
    // Submitting the same approved form again (a double click, a resubmit) replays it: one restore event, not two.
    const again = await page.request.post(action, { form: fields, headers: { origin: gateway.baseUrl }, maxRedirects: 0 });
    expect(again.status()).toBe(303);
    const events = await api.get<{ events: Array<{ kind: string }> }>('/events', { query: { mappingId } });
    expect(events.body.events.filter((e) => e.kind === 'note.restored')).toHaveLength(1);
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
