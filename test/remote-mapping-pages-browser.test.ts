/**
 * The workspace pages of remote mappings against a real gateway and the Dropbox fake. In Chromium: connect Dropbox
 * through the fake's real OAuth redirect, see the connection (never a token), map a folder, press Sync now and see
 * the copied notes, the files kept without a copy and a note's page; flip switches; disconnect and see the mapping's
 * connection as disconnected. Over fetch: the refusals (no session, a forged form, another account's connection and
 * mapping, a bad or reused state, declined consent, an unknown provider) each answer clearly and change nothing; a
 * server with no provider configured says so. axe-core on every page.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConnection } from '../src/domains/providers/index.ts';
import { startDropboxFake, type DropboxFake } from './fakes/dropbox/index.ts';
import { expectAccessible } from './support/axe.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { newAccount, type TestAccount } from './support/oauth-flow.ts';
import { syncMapping } from './support/remote-gateway.ts';

const WELCOME = '# Welcome\n\nHello from Dropbox.\n';

function dropboxEnv(fake: DropboxFake): Record<string, string> {
  return {
    KGATE_PROVIDER_TOKEN_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    KGATE_PROVIDERS_ALLOW_PRIVATE: 'true',
    // Caught-up mappings are not polled again during the file: the pages sync when the owner asks.
    KGATE_SYNC_INTERVAL_MS: '86400000',
    KGATE_DROPBOX_CLIENT_ID: fake.clientId,
    KGATE_DROPBOX_CLIENT_SECRET: fake.clientSecret,
    KGATE_DROPBOX_API_URL: fake.urls.api,
    KGATE_DROPBOX_CONTENT_URL: fake.urls.content,
    KGATE_DROPBOX_AUTHORIZE_URL: fake.urls.authorize,
    KGATE_DROPBOX_TOKEN_URL: fake.urls.token,
    KGATE_DROPBOX_REVOKE_URL: fake.urls.revoke,
  };
}

let fake: DropboxFake;
let gateway: TestGateway;

beforeAll(async () => {
  fake = await startDropboxFake();
  fake.putFile('/Notes/Welcome.md', WELCOME);
  fake.putFile('/Notes/Projects/Plan.md', '# Plan\n\n- [ ] Ship the pages\n');
  fake.putFile('/Notes/photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  gateway = await startTestGateway({ env: dropboxEnv(fake) });
  // The exact redirect URI, as the operator registers it with the provider (docs/providers/dropbox.md).
  fake.registerRedirectUri(`${gateway.baseUrl}/account/connections/dropbox/callback`);
});

afterAll(async () => {
  await gateway?.stop();
  await fake?.close();
});

describe.skipIf(!chromiumAvailable)('remote vaults in a real browser', () => {
  let browser: Browser;
  let page: Page;
  let account: TestAccount;

  beforeAll(async () => {
    account = await newAccount(gateway, 'remote-pages');
    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, account.email, account.password);
  });

  afterAll(async () => {
    await browser?.close();
  });

  const section = (name: string) => page.locator('section.remote-mapping', { has: page.getByRole('heading', { name }) });

  it('connects Dropbox, maps a folder, syncs it, flips switches and shows the mapping disconnected after a disconnect', async () => {
    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Provider connections' }).click();
    await page.waitForURL((url) => url.pathname === '/account/providers');
    expect(await page.locator('main').innerText()).toContain('You have connected no provider.');
    await expectAccessible(page);

    // The fake's consent page answers at once and redirects back to the callback with a code.
    await page.getByRole('radio', { name: /Read and write/ }).check();
    await page.getByRole('button', { name: 'Connect Dropbox' }).click();
    await page.waitForURL((url) => url.pathname === '/account/providers' && url.searchParams.get('notice') === 'connected');
    const row = page.locator('tbody tr', { has: page.getByRole('rowheader', { name: 'Dropbox' }) });
    expect(await row.innerText()).toMatch(/Dropbox\s+Franz Ferdinand\s+Connected\s+read and write/);
    expect(await row.locator('[data-field=last-error]').innerText()).toBe('none');
    // No token of any kind reaches the page.
    expect(await page.content()).not.toMatch(/sl\.[A-Za-z0-9_-]{20,}/);
    await expectAccessible(page);

    await page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Remote vaults' }).click();
    await page.waitForURL((url) => url.pathname === '/account/vaults/remote');
    expect(await page.locator('main').innerText()).toContain('You have no remote vaults yet.');
    await expectAccessible(page);
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Dropbox notes');
    await page.getByRole('textbox', { name: 'Folder', exact: true }).fill('Notes');
    await page.getByRole('button', { name: 'Create remote vault' }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'created');
    const mapping = (await gateway.services.vaults.listOwnedMappings(account.accountId)).find((m) => m.provider === 'dropbox')!;
    expect(mapping).toMatchObject({ name: 'Dropbox notes', remoteRoot: '/Notes', pullOnly: false, allowMcpNoteChanges: false, deviceEncrypted: false });
    const mine = section('Dropbox notes');
    expect(await mine.innerText()).toMatch(/Dropbox: \/Notes/);
    expect(await mine.locator('[data-field=connection]').innerText()).toBe('Connected as Franz Ferdinand (read and write)');
    await expectAccessible(page);

    // Sync now; the maintenance loop may be stepping the new mapping already, then the page says so: reload until done.
    await mine.getByRole('button', { name: 'Sync now: Dropbox notes' }).click();
    await page.waitForURL((url) => url.searchParams.has('notice') && url.searchParams.get('notice') !== 'created');
    for (let i = 0; i < 100 && (await mine.locator('[data-field=sync-status]').innerText()) !== 'up to date'; i += 1) {
      await delay(100);
      await page.reload();
    }
    expect(await mine.locator('[data-field=sync-status]').innerText()).toBe('up to date');
    expect(await mine.locator('[data-field=notes-synced]').innerText()).toBe('2');
    expect(await mine.locator('[data-field=kept]').innerText()).toBe('1 not a Markdown note');
    expect(await mine.locator('[data-field=last-error]').innerText()).toBe('none');
    await expectAccessible(page);

    // The copied note reads in the workspace like a hosted one.
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mapping.id}/notes/Welcome.md`);
    expect(await page.locator('article.note').innerText()).toContain('Hello from Dropbox.');

    // The owner's switches.
    await page.goto(`${gateway.baseUrl}/account/vaults/remote`);
    const state = (name: string) => mine.locator(`tr[data-switch=${name}] [data-field=state]`).innerText();
    await mine.getByRole('button', { name: 'Turn on allow hosted mcp note changes for Dropbox notes' }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'switched');
    expect(await state('allow_mcp_note_changes')).toBe('On');
    await mine.getByRole('button', { name: 'Turn on pull-only for Dropbox notes' }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'switched');
    expect(await state('pull_only')).toBe('On');
    expect(await state('device_encrypted')).toBe('Off');
    expect(await gateway.services.vaults.resolveMapping(account.accountId, mapping.id, 'read')).toMatchObject({ allowMcpNoteChanges: true, pullOnly: true, deviceEncrypted: false });
    await mine.getByRole('button', { name: 'Turn off pull-only for Dropbox notes' }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'switched');
    expect(await state('pull_only')).toBe('Off');
    await expectAccessible(page);

    // Disconnect: the grant is revoked at the provider and the mapping shows its connection disconnected.
    expect(fake.liveGrants()).toBe(1);
    await page.goto(`${gateway.baseUrl}/account/providers`);
    await page.getByRole('button', { name: 'Disconnect Dropbox (Franz Ferdinand)' }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'disconnected');
    expect(await row.locator('[data-field=status]').innerText()).toBe('Disconnected');
    expect(await row.getByRole('button').count()).toBe(0);
    expect(fake.liveGrants()).toBe(0);
    await expectAccessible(page);
    await page.goto(`${gateway.baseUrl}/account/vaults/remote`);
    expect(await mine.locator('[data-field=connection]').innerText()).toMatch(/^Disconnected\. kgate no longer reaches Dropbox for this vault \(Franz Ferdinand\): synchronization stops, and reads answer provider_disconnected\./);
    expect(await mine.getByRole('button', { name: /Sync now/ }).count()).toBe(0);
    await expectAccessible(page);
  });
});

describe('remote vault and connection pages refuse clearly and change nothing', () => {
  let owner: TestAccount;
  let ownerConnection: ProviderConnection;
  let ownerMappingId: string;
  let other: TestAccount;
  let web: PageBrowser;

  /** Everything these forms could change: connections, started authorizations, mappings and their switches, sync rows. */
  const snapshot = async () =>
    JSON.stringify(
      await Promise.all([
        gateway.db.query('SELECT id, account_id, status, can_write, last_error FROM provider_connections ORDER BY id'),
        gateway.db.query('SELECT count(*)::int AS n FROM provider_authorizations'),
        gateway.db.query('SELECT id, pull_only, allow_mcp_note_changes, device_encrypted FROM mappings ORDER BY id'),
        gateway.db.query('SELECT mapping_id, status, next_run_at, updated_at FROM remote_sync ORDER BY mapping_id'),
      ]),
    );

  /** The callback URL the fake redirects the browser to after the consent page, for an authorization URL. */
  async function consent(authorizationUrl: string): Promise<string> {
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(answer.status, await answer.text()).toBe(302);
    const back = new URL(answer.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${gateway.baseUrl}/account/connections/dropbox/callback`);
    return back.pathname + back.search;
  }

  /** Starts a connection through the page's form, as the signed-in browser does; the provider's authorization URL. */
  async function startThroughPage(): Promise<string> {
    const csrf = hiddenField(await (await web.get('/account/providers')).text(), 'csrf');
    const started = await web.post('/account/providers/connect', { csrf, kind: 'dropbox', access: 'read' }, { origin: gateway.baseUrl });
    expect(started.status).toBe(303);
    return started.headers.get('location')!;
  }

  const pageText = async (response: Response) => (await response.text()).replace(/\s+/g, ' ');

  beforeAll(async () => {
    owner = await newAccount(gateway, 'remote-owner');
    // The owner connects through the domain, with the fake's real redirect, and maps a folder that is then caught up
    // (so that the maintenance loop leaves it alone while the snapshots compare).
    const { authorizationUrl } = await gateway.services.connections.start(owner.accountId, 'dropbox', { write: true });
    const answer = new URL(await consent(authorizationUrl), gateway.baseUrl).searchParams;
    ownerConnection = await gateway.services.connections.complete(owner.accountId, 'dropbox', { state: answer.get('state') ?? undefined, code: answer.get('code') ?? undefined });
    const workspaceId = (await gateway.services.workspaces.listWorkspaces(owner.accountId))[0]!.id;
    ownerMappingId = (await gateway.services.remoteMappings.create(owner.accountId, { workspaceId, connectionId: ownerConnection.id, name: 'Owner notes', root: { folder: 'Notes' } })).id;
    expect((await syncMapping(gateway, ownerMappingId)).caughtUp).toBe(true);
    other = await newAccount(gateway, 'remote-other');
    web = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(web, other.email, other.password)).status).toBe(303);
  });

  it('without a session: every page and form goes to sign-in, and nothing changes', async () => {
    const before = await snapshot();
    const anonymous = pageBrowser(gateway.baseUrl);
    for (const path of ['/account/providers', '/account/vaults/remote', '/account/connections/dropbox/callback?state=x&code=y']) {
      const answer = await anonymous.get(path);
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location'), path).toBe(`/signin?${new URLSearchParams({ return_to: path }).toString()}`);
    }
    const posts: Array<[string, Record<string, string>]> = [
      ['/account/providers/connect', { kind: 'dropbox', access: 'write' }],
      ['/account/providers/disconnect', { connection_id: ownerConnection.id }],
      ['/account/vaults/remote', { connection_id: ownerConnection.id, name: 'x', folder: 'Notes' }],
      ['/account/vaults/remote/switch', { mapping_id: ownerMappingId, switch: 'pull_only', value: 'on' }],
      ['/account/vaults/remote/sync', { mapping_id: ownerMappingId }],
    ];
    for (const [path, fields] of posts) {
      const answer = await anonymous.post(path, fields);
      expect(answer.status, path).toBe(303);
      expect(answer.headers.get('location'), path).toMatch(/^\/signin\?return_to=/);
    }
    expect(await snapshot()).toBe(before);
  });

  it("another account's connection and mapping are unknown to a signed-in person; a form without the CSRF token is refused", async () => {
    const before = await snapshot();
    const csrf = hiddenField(await (await web.get('/account/vaults/remote')).text(), 'csrf');
    const post = (path: string, fields: Record<string, string>) => web.post(path, { csrf, ...fields }, { origin: gateway.baseUrl });

    const disconnect = await post('/account/providers/disconnect', { connection_id: ownerConnection.id });
    expect(disconnect.status).toBe(404);
    expect(await pageText(disconnect)).toContain('The connection does not exist.');
    const workspaceId = (await gateway.services.workspaces.listWorkspaces(other.accountId))[0]!.id;
    const create = await post('/account/vaults/remote', { workspace_id: workspaceId, connection_id: ownerConnection.id, name: 'Borrowed', folder: 'Notes' });
    expect(create.status).toBe(404);
    const created = await create.text();
    expect(created).toContain('data-code="not_found"');
    expect(created).toContain('Nothing was created.');
    for (const [path, fields] of [
      ['/account/vaults/remote/switch', { mapping_id: ownerMappingId, switch: 'allow_mcp_note_changes', value: 'on' }],
      ['/account/vaults/remote/switch', { mapping_id: ownerMappingId, switch: 'device_encrypted', value: 'on' }],
      ['/account/vaults/remote/sync', { mapping_id: ownerMappingId }],
      ['/account/vaults/remote/sync', { mapping_id: 'not-a-uuid' }],
    ] as const) {
      const answer = await post(path, fields);
      expect(answer.status, `${path} ${JSON.stringify(fields)}`).toBe(404);
      expect(await pageText(answer)).toContain('The remote vault does not exist.');
    }
    // The domain's setter refuses anyone but the owner the same way, and does not know a malformed id either.
    await expect(gateway.services.vaults.setOwnerSwitches(other.accountId, ownerMappingId, { pullOnly: true })).rejects.toMatchObject({ code: 'not_found' });
    await expect(gateway.services.vaults.setOwnerSwitches(owner.accountId, 'not-a-uuid', { deviceEncrypted: true })).rejects.toMatchObject({ code: 'not_found' });
    const malformed = await post('/account/vaults/remote/switch', { mapping_id: ownerMappingId, switch: 'read_only', value: 'on' });
    expect(malformed.status).toBe(400);
    // The forged form: right session cookie, no token (or another site's origin).
    expect((await web.post('/account/providers/connect', { kind: 'dropbox', access: 'write' }, { origin: gateway.baseUrl })).status).toBe(403);
    expect((await web.post('/account/vaults/remote', { csrf, connection_id: ownerConnection.id, name: 'x' }, { origin: 'http://evil.test' })).status).toBe(403);
    expect(await snapshot()).toBe(before);
    expect(await pageText(await web.get('/account/vaults/remote'))).not.toContain('Owner notes');
  });

  it('a bad, reused or foreign state and a declined consent end on a clear page; nothing is connected', async () => {
    const connectionsOf = (accountId: string) => gateway.services.connections.list(accountId);

    const bogus = await web.get('/account/connections/dropbox/callback?state=bogus&code=abc');
    expect(bogus.status).toBe(400);
    const bogusPage = await pageText(bogus);
    expect(bogusPage).toContain('data-code="invalid_request"');
    expect(bogusPage).toContain('Dropbox was not connected');
    expect(bogusPage).toContain('Nothing was connected.');
    expect(await connectionsOf(other.accountId)).toEqual([]);

    // Declined at the provider: the fake redirects back with error=access_denied.
    fake.setConsent({ deny: true });
    const declined = await web.get(await consent(await startThroughPage()));
    fake.setConsent({});
    expect(declined.status).toBe(403);
    const declinedPage = await pageText(declined);
    expect(declinedPage).toContain('data-code="access_denied"');
    expect(declinedPage).toContain('The provider did not grant access');
    expect(await connectionsOf(other.accountId)).toEqual([]);

    // Another account's authorization answered in this session: not this account's state.
    const foreign = await consent((await gateway.services.connections.start(owner.accountId, 'dropbox', { write: false })).authorizationUrl);
    const stolen = await web.get(foreign);
    expect(stolen.status).toBe(400);
    expect(await connectionsOf(other.accountId)).toEqual([]);
    expect((await connectionsOf(owner.accountId)).map((c) => [c.id, c.status, c.canWrite])).toEqual([[ownerConnection.id, 'active', true]]);

    // A good answer connects once; the same answer again is refused and changes nothing.
    const callback = await consent(await startThroughPage());
    const connected = await web.get(callback);
    expect(connected.status).toBe(303);
    expect(connected.headers.get('location')).toBe('/account/providers?notice=connected');
    const [made] = await connectionsOf(other.accountId);
    expect(made).toMatchObject({ provider: 'dropbox', status: 'active', canRead: true, canWrite: false });
    const before = await snapshot();
    const reused = await web.get(callback);
    expect(reused.status).toBe(400);
    expect(await pageText(reused)).toContain('already used');
    expect(await snapshot()).toBe(before);

    const unknown = await web.get('/account/connections/box/callback?state=x&code=y');
    expect(unknown.status).toBe(404);
    expect(await snapshot()).toBe(before);
  });

  it('a server with no provider configured says so plainly', async () => {
    // A second process over the same database, configured with no provider.
    const bare = await startTestGateway({ database: gateway.db });
    try {
      const account = await newAccount(bare, 'no-providers');
      const browser = pageBrowser(bare.baseUrl);
      expect((await signInThroughForm(browser, account.email, account.password)).status).toBe(303);
      const providers = await pageText(await browser.get('/account/providers'));
      expect(providers).toContain('No provider is configured on this server, so none can be connected.');
      expect(providers).not.toContain('Connect Dropbox');
      const remote = await pageText(await browser.get('/account/vaults/remote'));
      expect(remote).toContain('Connect a provider first');
      const csrf = hiddenField(await (await browser.get('/account/providers')).text(), 'csrf');
      const refused = await browser.post('/account/providers/connect', { csrf, kind: 'dropbox', access: 'read' }, { origin: bare.baseUrl });
      expect(refused.status).toBe(503);
      expect(await pageText(refused)).toContain('not configured');
    } finally {
      await bare.stop();
    }
  });
});
