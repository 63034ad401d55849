/**
 * `open_app_view`: deep links to workspace views, checked against what the caller may see, and followed by the
 * signed-in person to the page they name.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pageBrowser, signInThroughForm } from './support/browser.ts';
import { createOwner } from './support/fixtures.ts';
import { useMcpSuite } from './support/mcp-suite.ts';
import { restClient } from './support/rest-client.ts';
import { seedNotes } from './support/rest-transactions.ts';

describe('open_app_view', () => {
  const suite = useMcpSuite('app-view');
  const { call } = suite;

  it('is listed, read-only', async () => {
    const { tools } = await suite.client.listTools();
    const tool = tools.find((t) => t.name === 'open_app_view');
    expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it('links every view of a vault the caller may see, absolute and on this server', async () => {
    const mappingId = suite.owner.mapping.id;
    const expected: Record<string, string> = {
      vaults: '/workspace',
      vault: `/workspace/vaults/${mappingId}`,
      events: `/workspace/vaults/${mappingId}/events`,
      trash: `/workspace/vaults/${mappingId}/trash`,
      proposals: `/workspace/vaults/${mappingId}/proposals`,
    };
    for (const [view, path] of Object.entries(expected)) {
      const result = await call('open_app_view', { view, ...(view === 'vaults' ? {} : { mappingId }) });
      expect(result.isError, JSON.stringify(result.data)).toBe(false);
      expect(result.data).toEqual({ url: `${suite.gateway.baseUrl}${path}`, view });
    }
    const search = await call('open_app_view', { view: 'search', mappingId, query: 'offline sync' });
    expect(search.data.url).toBe(`${suite.gateway.baseUrl}/workspace/vaults/${mappingId}?q=offline%20sync`);
  });

  it('links a note that exists, and the person who follows it after signing in sees that note', async () => {
    const password = 'a long app view password';
    const email = `app-view-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await suite.gateway.services.onboarding.bootstrapOwner({ email, password });
    await seedNotes(restClient(suite.gateway, owner.token), owner.mapping.id, { 'Folder/My Note.md': '# My note\n\nHello.\n' });
    const reply = await suite.rpc(
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'open_app_view', arguments: { view: 'note', mappingId: owner.mapping.id, path: 'Folder/My Note.md' } } },
      {},
      owner.token,
    );
    const url = (reply.body!.result.structuredContent as { url: string }).url;
    expect(url).toBe(`${suite.gateway.baseUrl}/workspace/vaults/${owner.mapping.id}/notes/Folder/My%20Note.md`);
    const browser = pageBrowser(suite.gateway.url);
    expect((await signInThroughForm(browser, email, password)).status).toBe(303);
    const page = await browser.get(new URL(url).pathname);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Hello.');
  });

  it("answers another person's vault and a missing note exactly as a vault that does not exist", async () => {
    const other = await createOwner(suite.gateway.services, 'app-view-other');
    const unknown = await call('open_app_view', { view: 'vault', mappingId: '00000000-0000-7000-8000-000000000000' });
    const foreign = await call('open_app_view', { view: 'vault', mappingId: other.mapping.id });
    expect(unknown).toMatchObject({ isError: true, data: { code: 'not_found' } });
    expect(foreign).toEqual(unknown);
    const missing = await call('open_app_view', { view: 'note', mappingId: suite.owner.mapping.id, path: 'Nowhere/none.md' });
    expect(missing).toMatchObject({ isError: true, data: { code: 'not_found' } });
    const foreignNote = await call('open_app_view', { view: 'note', mappingId: other.mapping.id, path: 'Nowhere/none.md' });
    expect(foreignNote).toEqual(unknown);
  });

  it('refuses a view without what it needs, and fields it does not know', async () => {
    const mappingId = suite.owner.mapping.id;
    for (const args of [{ view: 'vault' }, { view: 'note', mappingId }, { view: 'search', mappingId }, { view: 'search', mappingId, query: '  ' }, { view: 'nope' }, { view: 'vaults', token: 'x' }]) {
      const result = await call('open_app_view', args);
      expect(result, JSON.stringify(args)).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    }
  });
});
