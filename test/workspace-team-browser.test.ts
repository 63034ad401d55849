/**
 * A team workspace in real Chromium: the owner invites a viewer with a link; the viewer signs in, joins, reads the
 * shared vault, and is refused every write (page, REST, MCP); removed, the same credentials see nothing of it.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
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

const PASSWORD = 'a long team password';

describe.skipIf(!available)('a team workspace in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let ownerPage: Page;
  let viewerPage: Page;
  let owner: { accountId: string; token: string; mappingId: string; email: string };
  let viewer: { accountId: string; token: string; email: string };

  async function signIn(page: Page, email: string): Promise<void> {
    await page.goto(`${gateway.baseUrl}/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL((url) => url.pathname !== '/signin');
  }

  async function mcpCall(token: string, name: string, args: Record<string, unknown>) {
    const response = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    });
    return ((await response.json()) as { result: { isError?: boolean; structuredContent: Record<string, unknown> } }).result;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const ownerEmail = `team-owner-${randomBytes(4).toString('hex')}@example.test`;
    const made = await gateway.services.onboarding.bootstrapOwner({ email: ownerEmail, password: PASSWORD });
    await gateway.services.accounts.setPlan(made.accountId, 'team');
    owner = { accountId: made.accountId, token: made.token, mappingId: made.mapping.id, email: ownerEmail };
    await seedNotes(restClient(gateway, owner.token), owner.mappingId, { 'Shared/Plan.md': '# Plan\n\nShared with the team.\n', 'Shared/Old.md': '# Old\n' });
    const deleted = await apply(restClient(gateway, owner.token), owner.mappingId, [{ type: 'delete-note', path: 'Shared/Old.md', expectedHash: hashOf('# Old\n') }]);
    expect(deleted.status).toBe(200);
    const viewerEmail = `team-viewer-${randomBytes(4).toString('hex')}@example.test`;
    const v = await gateway.services.onboarding.bootstrapOwner({ email: viewerEmail, password: PASSWORD });
    viewer = { accountId: v.accountId, token: v.token, email: viewerEmail };
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
    ownerPage = await (await browser.newContext()).newPage();
    viewerPage = await (await browser.newContext()).newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('invites a viewer, who signs in, joins and reads the shared vault', async () => {
    await signIn(ownerPage, owner.email);
    await ownerPage.goto(`${gateway.baseUrl}/workspace/team`);
    await expectAccessible(ownerPage);
    await ownerPage.getByLabel('Role').selectOption('viewer');
    await ownerPage.getByRole('button', { name: 'Make an invitation link' }).click();
    const link = await ownerPage.locator('code.secret').innerText();
    expect(link).toMatch(new RegExp(`^${gateway.baseUrl}/invitations\\?token=`));
    // The link's secret is kept only as its hash.
    expect(JSON.stringify(await gateway.db.query('SELECT * FROM workspace_invitations'))).not.toContain(new URL(link).searchParams.get('token')!);

    await viewerPage.goto(link);
    expect(new URL(viewerPage.url()).pathname).toBe('/signin');
    await viewerPage.getByLabel('Email').fill(viewer.email);
    await viewerPage.getByLabel('Password').fill(PASSWORD);
    await viewerPage.getByRole('button', { name: 'Sign in' }).click();
    await viewerPage.waitForURL((url) => url.pathname === '/invitations');
    await expectAccessible(viewerPage);
    await viewerPage.getByRole('button', { name: /^Join / }).click();
    await viewerPage.waitForURL((url) => url.pathname === '/workspace');
    expect(await viewerPage.locator('main').innerText()).toContain(owner.mappingId);
    await viewerPage.goto(`${gateway.baseUrl}/workspace/vaults/${owner.mappingId}/notes/Shared/Plan.md`);
    expect(await viewerPage.locator('article').innerText()).toContain('Shared with the team.');
    // The used link does not work twice.
    const again = await viewerPage.goto(link);
    expect(again?.status()).toBe(404);
  });

  it('refuses the viewer every write: the page, REST and MCP, and nothing changes', async () => {
    const before = await snapshotTables(gateway.db);
    await viewerPage.goto(`${gateway.baseUrl}/workspace/vaults/${owner.mappingId}/trash`);
    await viewerPage.getByRole('button', { name: 'Preview restore of Shared/Old.md' }).click();
    expect(await viewerPage.locator('main').innerText()).toMatch(/does not allow vault\.write/);
    const rest = await apply(restClient(gateway, viewer.token), owner.mappingId, [{ type: 'write-note', path: 'Shared/New.md', content: 'x' }]);
    expect([rest.status, (rest.body as unknown as { code: string }).code]).toEqual([403, 'forbidden']);
    const mcp = await mcpCall(viewer.token, 'apply_note_writes', { mappingId: owner.mappingId, idempotencyKey: `v-${randomBytes(4).toString('hex')}`, notes: [{ path: 'Shared/New.md', content: 'x' }] });
    expect(mcp).toMatchObject({ isError: true, structuredContent: { code: 'forbidden' } });
    const listed = await mcpCall(viewer.token, 'list_vaults', {});
    expect(listed.structuredContent.vaults).toContainEqual(expect.objectContaining({ mappingId: owner.mappingId, role: 'viewer', writeAccess: false }));
    expect(await snapshotTables(gateway.db)).toBe(before);
  });

  it('keeps the last owner, and once the viewer is removed the same credentials see nothing of the workspace', async () => {
    await ownerPage.goto(`${gateway.baseUrl}/workspace/team`);
    await ownerPage.getByRole('button', { name: 'Leave this workspace' }).click();
    expect(await ownerPage.locator('main').innerText()).toMatch(/last owner/);
    await ownerPage.goto(`${gateway.baseUrl}/workspace/team`);
    await ownerPage.getByRole('button', { name: `Remove ${viewer.email}` }).click();
    await ownerPage.waitForURL((url) => url.pathname === '/workspace/team');
    expect(await ownerPage.locator('main').innerText()).not.toContain(viewer.email);

    const page = await viewerPage.goto(`${gateway.baseUrl}/workspace/vaults/${owner.mappingId}/notes/Shared/Plan.md`);
    expect(page?.status()).toBe(404);
    expect((await restClient(gateway, viewer.token).get('/notes/by-path', { query: { mappingId: owner.mappingId, path: 'Shared/Plan.md' } })).status).toBe(404);
    const read = await mcpCall(viewer.token, 'get_note_content', { mappingId: owner.mappingId, path: 'Shared/Plan.md' });
    expect(read).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
    const listed = await mcpCall(viewer.token, 'list_vaults', {});
    expect((listed.structuredContent.vaults as Array<{ mappingId: string }>).map((v) => v.mappingId)).not.toContain(owner.mappingId);
  });
});
