/**
 * Accepting a section of the brief is a person's act on the workspace page (spec 4.3 rule 8): the form's post is
 * refused without the session's CSRF token, with a bearer token of any kind instead of a session, from another origin,
 * from another account's session and from a member whose role does not write, each with nothing stored; and no REST
 * route or MCP tool accepts or builds a section.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/kernel/principal.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { seedNotes } from './support/rest-transactions.ts';

const PASSWORD = 'a long synthesis password';

describe('only a signed-in person accepts a section of the brief, on the workspace page', () => {
  let gateway: TestGateway;
  let owner: { accountId: string; token: string; mappingId: string; workspaceId: string; email: string };
  let scopeId: string;
  let person: PageBrowser;
  let csrf: string;
  let fingerprint: string;

  const stored = async () => JSON.stringify([await gateway.db.query('SELECT * FROM synthesis_sections ORDER BY section'), await gateway.db.query('SELECT * FROM synthesis_section_events ORDER BY id')]);
  const briefPath = () => `/workspace/vaults/${owner.mappingId}/scopes/${scopeId}/synthesis`;
  const acceptPath = () => `${briefPath()}/accept`;
  const form = (extra: Record<string, string> = {}) => ({ section: 'open-commitments', fingerprint, ...extra });

  async function signedIn(email: string): Promise<PageBrowser> {
    const browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
    return browser;
  }

  /** Sends a post that must change nothing: no acceptance stored, the section still a draft. */
  async function expectRefused(send: () => Promise<Response>, status: number, location?: RegExp): Promise<string> {
    const before = await stored();
    const response = await send();
    expect(response.status).toBe(status);
    if (location) expect(response.headers.get('location')).toMatch(location);
    expect(await stored()).toBe(before);
    const actor: Actor = { accountId: owner.accountId, credentialKind: 'session' };
    const [section] = await gateway.services.synthesis.read(await gateway.services.scopes.authorize(actor, owner.mappingId, scopeId), ['open-commitments']);
    expect(section).toMatchObject({ state: 'draft', trusted: false });
    return response.text();
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `brief-${randomBytes(4).toString('hex')}@example.test`;
    const made = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    await gateway.services.accounts.setPlan(made.accountId, 'team');
    owner = { accountId: made.accountId, token: made.token, mappingId: made.mapping.id, workspaceId: made.workspaceId, email };
    await seedNotes(restClient(gateway, owner.token), owner.mappingId, { 'Plans/Pilot.md': '# Pilot\n\n- [ ] Train the crews 📅 2099-02-01\n' });
    const actor: Actor = { accountId: owner.accountId, credentialKind: 'session' };
    scopeId = (await gateway.services.scopes.create(actor, owner.mappingId, { name: 'Plans', pathPrefixes: ['Plans'], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
    person = await signedIn(email);
    const first = await (await person.get(briefPath())).text();
    csrf = hiddenField(first, 'csrf');
    expect((await person.post(`${briefPath()}/rebuild`, { csrf, section: 'all' })).status).toBe(303);
    const page = await (await person.get(briefPath())).text();
    expect(page).toContain(`action="${acceptPath()}"`);
    // The fingerprint of the Open commitments build the page shows (each draft has its own Accept form).
    fingerprint = /name="section" value="open-commitments"><input type="hidden" name="fingerprint" value="([^"]+)"/.exec(page)![1]!;
  });

  afterAll(() => gateway?.stop());

  it('refuses a post without the CSRF token, or with another one', async () => {
    expect(await expectRefused(() => person.post(acceptPath(), form()), 403)).toContain('Nothing was changed.');
    await expectRefused(() => person.post(acceptPath(), form({ csrf: `${csrf.slice(0, -1)}x` })), 403);
  });

  it('refuses a bearer token of any kind instead of a session, and a post from another origin', async () => {
    const tokenOnly = pageBrowser(gateway.baseUrl);
    await expectRefused(() => tokenOnly.post(acceptPath(), form({ csrf }), { authorization: `Bearer ${owner.token}` }), 303, /^\/signin\?/);
    await expectRefused(() => tokenOnly.post(acceptPath(), form({ csrf }), { authorization: 'Bearer kgo_at_an-oauth-access-token' }), 303, /^\/signin\?/);
    await expectRefused(() => person.post(acceptPath(), form({ csrf }), { origin: 'https://attacker.example' }), 403);
  });

  it('refuses a fingerprint other than the build shown, and a section that does not exist', async () => {
    expect(await expectRefused(() => person.post(acceptPath(), form({ csrf, fingerprint: `sha256:${'0'.repeat(64)}` })), 409)).toContain('rebuilt since you read it');
    await expectRefused(() => person.post(acceptPath(), form({ csrf, section: 'everything' })), 400);
  });

  it("refuses another account's session as for a vault that does not exist, and a member whose role does not write", async () => {
    const strangerEmail = `stranger-${randomBytes(4).toString('hex')}@example.test`;
    await gateway.services.onboarding.bootstrapOwner({ email: strangerEmail, password: PASSWORD });
    const stranger = await signedIn(strangerEmail);
    const strangerCsrf = hiddenField(await (await stranger.get('/workspace')).text(), 'csrf');
    expect(await expectRefused(() => stranger.post(acceptPath(), form({ csrf: strangerCsrf })), 404)).toContain('No such vault.');
    expect((await stranger.get(briefPath())).status).toBe(404);

    const viewerEmail = `viewer-${randomBytes(4).toString('hex')}@example.test`;
    const v = await gateway.services.onboarding.bootstrapOwner({ email: viewerEmail, password: PASSWORD });
    const { token } = await gateway.services.membership.invite(owner.accountId, owner.workspaceId, 'viewer');
    await gateway.services.membership.acceptInvitation(v.accountId, token);
    const viewer = await signedIn(viewerEmail);
    const viewerPage = await (await viewer.get(briefPath())).text();
    expect(viewerPage).toContain('Your role in this workspace does not allow building or accepting the brief.');
    expect(viewerPage).not.toContain(`action="${acceptPath()}"`);
    const viewerCsrf = hiddenField(viewerPage, 'csrf');
    expect(await expectRefused(() => viewer.post(acceptPath(), form({ csrf: viewerCsrf })), 403)).toContain('does not allow building or accepting');
    await expectRefused(() => viewer.post(`${briefPath()}/rebuild`, { csrf: viewerCsrf, section: 'all' }), 403);
  });

  it('publishes no REST route and no MCP tool that accepts or builds a section', async () => {
    const openapi = (await (await fetch(`${gateway.url}/api/dev/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.keys(methods).filter((m) => m !== 'get').map((m) => `${m} ${path}`));
    expect(writes.filter((w) => /synthesis|brief|accept|rebuild/i.test(w))).toEqual([]);
    const api = restClient(gateway, owner.token);
    const before = await stored();
    for (const path of ['/knowledge/synthesis', '/knowledge/synthesis/accept', '/knowledge/synthesis/rebuild']) {
      const response = await api.post(path, { json: { mappingId: owner.mappingId, contextScopeId: scopeId, section: 'open-commitments', fingerprint } });
      expect([path, response.status]).toEqual([path, 404]);
    }
    expect(await stored()).toBe(before);
  });

  it('stores the acceptance of the person with the token', async () => {
    const accepted = await person.post(acceptPath(), form({ csrf }));
    expect([accepted.status, accepted.headers.get('location')]).toEqual([303, `${briefPath()}#open-commitments`]);
    const events = await gateway.db.query<{ action: string; account_id: string }>(`SELECT action, account_id FROM synthesis_section_events WHERE section = 'open-commitments' ORDER BY at, action`);
    expect(events.map((e) => [e.action, e.account_id])).toEqual([
      ['built', owner.accountId],
      ['accepted', owner.accountId],
    ]);
  });
});
