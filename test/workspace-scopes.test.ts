/**
 * The scopes page as a browser posts to it: what a manager and a viewer see, and every refused form (bad input, no
 * CSRF token, a viewer, another account, an unknown scope) answered with why and nothing changed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

const PASSWORD = 'a long scopes password';

describe('the scopes page', () => {
  let gateway: TestGateway;
  let mappingId: string;
  let owner: PageBrowser;
  let ownerCsrf: string;
  let viewer: PageBrowser;
  let viewerCsrf: string;
  const scopesPath = () => `/workspace/vaults/${mappingId}/scopes`;
  const scopes = () => gateway.db.query<{ id: string; name: string; minimum_role: string; agents: boolean }>('SELECT id, name, minimum_role, agents FROM context_scopes ORDER BY name');
  const form = (fields: Record<string, string>) => ({ name: '', folders: '', tags: '', minimum_role: 'viewer', ...fields });

  async function signedIn(email: string): Promise<{ browser: PageBrowser; csrf: string }> {
    const browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
    return { browser, csrf: hiddenField(await (await browser.get('/workspace')).text(), 'csrf') };
  }

  /** Posts a form that must be refused with `status` and a page saying `why`; no scope changes. */
  async function expectRefused(send: () => Promise<Response>, status: number, why: string | RegExp): Promise<void> {
    const before = await scopes();
    const response = await send();
    const page = await response.text();
    expect([response.status, page]).toEqual([status, expect.stringMatching(why)]);
    expect(await scopes()).toEqual(before);
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const ownerEmail = `scopes-owner-${randomBytes(4).toString('hex')}@example.test`;
    const made = await gateway.services.onboarding.bootstrapOwner({ email: ownerEmail, password: PASSWORD });
    await gateway.services.accounts.setPlan(made.accountId, 'team');
    mappingId = made.mapping.id;
    const viewerEmail = `scopes-viewer-${randomBytes(4).toString('hex')}@example.test`;
    const v = await gateway.services.onboarding.bootstrapOwner({ email: viewerEmail, password: PASSWORD });
    const { token } = await gateway.services.membership.invite(made.accountId, made.workspaceId, 'viewer');
    await gateway.services.membership.acceptInvitation(v.accountId, token);
    ({ browser: owner, csrf: ownerCsrf } = await signedIn(ownerEmail));
    ({ browser: viewer, csrf: viewerCsrf } = await signedIn(viewerEmail));
  });

  afterAll(() => gateway?.stop());

  it('creates scopes from the form, and refuses bad input with its reason, nothing changed', async () => {
    const created = await owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Everyone', folders: 'Projects\n\n  Decisions/  ', tags: '#sync', agents: 'on' }) });
    expect([created.status, created.headers.get('location')]).toEqual([303, expect.stringMatching(new RegExp(`^${scopesPath()}#scope-`))]);
    expect(await owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Admins only', minimum_role: 'admin' }) }).then((r) => r.status)).toBe(303);
    expect(await scopes()).toEqual([
      expect.objectContaining({ name: 'Admins only', minimum_role: 'admin', agents: false }),
      expect.objectContaining({ name: 'Everyone', minimum_role: 'viewer', agents: true }),
    ]);

    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: '  ' }) }), 400, /A scope&#39;s name has 1 to 100 characters\. Nothing was changed\./);
    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'x'.repeat(101) }) }), 400, /1 to 100 characters/);
    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Roles', minimum_role: 'superuser' }) }), 400, /Choose the minimum role from the list\./);
    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Abs', folders: '/etc' }) }), 400, /pathPrefixes\[0\] is not a folder of the vault/);
    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Many', folders: Array.from({ length: 21 }, (_, i) => `F${i}`).join('\n') }) }), 400, /at most 20 path prefixes/);
    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'EVERYONE' }) }), 409, /Another scope of this mapping has that name\./);
    // The refused form comes back as written.
    const refused = await (await owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Abs', folders: '/etc', tags: 'kept' }) })).text();
    expect(refused).toContain('value="Abs"');
    expect(refused).toMatch(/name="tags"[^>]*>kept<\/textarea>/);
  });

  it('refuses a form without the CSRF token or from another origin', async () => {
    await expectRefused(() => owner.post(scopesPath(), form({ name: 'No token' })), 403, /Nothing was changed\./);
    await expectRefused(() => owner.post(scopesPath(), { csrf: ownerCsrf, ...form({ name: 'Elsewhere' }) }, { origin: 'https://attacker.example' }), 403, /Nothing was changed\./);
  });

  it('shows a viewer the scopes they may use, without forms, and refuses their posts', async () => {
    const page = await (await viewer.get(scopesPath())).text();
    expect(page).toContain('The scopes you may use');
    expect(page).toContain('>Everyone</a>');
    expect(page).not.toContain('Admins only');
    expect(page).not.toContain('Create scope');
    const everyone = (await scopes()).find((s) => s.name === 'Everyone')!;
    await expectRefused(() => viewer.post(scopesPath(), { csrf: viewerCsrf, ...form({ name: 'Mine' }) }), 403, /does not allow vault\.manage/);
    await expectRefused(() => viewer.post(`${scopesPath()}/${everyone.id}/delete`, { csrf: viewerCsrf }), 403, /does not allow vault\.manage/);
    expect((await viewer.get(`${scopesPath()}/${everyone.id}/edit`)).status).toBe(403);
    // The admins' scope is not found for the viewer, as a scope that does not exist.
    const admins = (await scopes()).find((s) => s.name === 'Admins only')!;
    expect((await viewer.get(`${scopesPath()}/${admins.id}/decisions`)).status).toBe(404);
    expect((await viewer.get(`${scopesPath()}/${everyone.id}/decisions`)).status).toBe(200);
  });

  it('answers another account, a guessed scope and a malformed id as not found', async () => {
    const strangerEmail = `scopes-stranger-${randomBytes(4).toString('hex')}@example.test`;
    await gateway.services.onboarding.bootstrapOwner({ email: strangerEmail, password: PASSWORD });
    const { browser: stranger, csrf } = await signedIn(strangerEmail);
    const everyone = (await scopes()).find((s) => s.name === 'Everyone')!;
    expect((await stranger.get(scopesPath())).status).toBe(404);
    expect((await stranger.get(`${scopesPath()}/${everyone.id}/decisions`)).status).toBe(404);
    await expectRefused(() => stranger.post(`${scopesPath()}/${everyone.id}/delete`, { csrf }), 404, /No such vault\./);
    const guessed = '01900000-0000-7000-8000-000000000000';
    for (const id of [guessed, 'not-a-uuid']) {
      expect((await owner.get(`${scopesPath()}/${id}/decisions`)).status).toBe(404);
      expect((await owner.get(`${scopesPath()}/${id}/edit`)).status).toBe(404);
      await expectRefused(() => owner.post(`${scopesPath()}/${id}/edit`, { csrf: ownerCsrf, ...form({ name: 'Renamed' }) }), 404, /No such context scope/);
      await expectRefused(() => owner.post(`${scopesPath()}/${id}/delete`, { csrf: ownerCsrf }), 404, /No such context scope/);
    }
  });

  it('changes and deletes a scope', async () => {
    const admins = (await scopes()).find((s) => s.name === 'Admins only')!;
    await expectRefused(() => owner.post(`${scopesPath()}/${admins.id}/edit`, { csrf: ownerCsrf, ...form({ name: 'Everyone' }) }), 409, /has that name/);
    const changed = await owner.post(`${scopesPath()}/${admins.id}/edit`, { csrf: ownerCsrf, ...form({ name: 'Editors', minimum_role: 'editor', agents: 'on' }) });
    expect(changed.status).toBe(303);
    expect((await scopes()).find((s) => s.id === admins.id)).toMatchObject({ name: 'Editors', minimum_role: 'editor', agents: true });
    expect((await owner.post(`${scopesPath()}/${admins.id}/delete`, { csrf: ownerCsrf })).status).toBe(303);
    expect((await scopes()).map((s) => s.name)).toEqual(['Everyone']);
  });
});
