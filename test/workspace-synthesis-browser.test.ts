/**
 * The brief and work session pages in real Chromium: a person builds a scope's brief, accepts a section (what agents
 * then read as trusted), sees it go stale when a governed write changes a record it cites and rebuilds it; a published
 * session is listed and shown with its gaps. Every evidence link leads to its line in the note view; axe-core on
 * every page.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/kernel/principal.ts';
import { expectAccessible } from './support/axe.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { KNOWLEDGE_NOTES } from './support/knowledge-vault.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';


const MEETING = 'Meetings/Pilot Planning.md';

describe.skipIf(!chromiumAvailable)('the brief and work session pages in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let api: RestClient;
  let mappingId: string;
  let scopeId: string;
  let accountId: string;
  const email = `brief-${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a long briefing password';
  const person = (): Actor => ({ accountId, credentialKind: 'session' });
  const section = (title: string) => page.locator('section', { has: page.getByRole('heading', { name: new RegExp(`^${title}`) }) });

  beforeAll(async () => {
    gateway = await startTestGateway();
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password });
    accountId = owner.accountId;
    mappingId = owner.mapping.id;
    api = restClient(gateway, owner.token);
    await seedNotes(api, mappingId, KNOWLEDGE_NOTES);
    scopeId = (await gateway.services.scopes.create(person(), mappingId, { name: 'Tidewater', pathPrefixes: ['Decisions', 'Meetings', 'Questions'], tags: [], audience: { minimumRole: 'viewer', agents: true } })).id;
    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, email, password);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  /** The brief's sections as an agent reads them through its token, by title: their state and whether trusted. */
  async function asAgentReads(): Promise<Record<string, [string, boolean]>> {
    const response = await api.get<{ sections: Array<{ title: string; state: string; trusted: boolean }> }>('/knowledge/synthesis', { query: { mappingId, contextScopeId: scopeId } });
    expect(response.status, response.text).toBe(200);
    return Object.fromEntries(response.body.sections.map((s) => [s.title, [s.state, s.trusted]]));
  }

  it('builds the brief, and a person accepts a section that agents then read as trusted', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes/${scopeId}/decisions`);
    await page.getByRole('navigation', { name: 'Knowledge' }).getByRole('link', { name: 'Brief' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/synthesis'));
    expect(await page.locator('main').innerText()).toContain('Nobody has built this section yet.');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Rebuild every section' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/synthesis'));
    const commitments = section('Open commitments');
    expect(await commitments.innerText()).toContain('draft — not accepted by a person');
    expect(await commitments.innerText()).toContain('Train the crews');
    const link = commitments.getByRole('link', { name: MEETING }).first();
    expect(await link.getAttribute('href')).toMatch(new RegExp(`/notes/.*#L\\d+$`));
    expect((await asAgentReads())['Open commitments']).toEqual(['draft', false]);
    await expectAccessible(page);

    await commitments.getByRole('button', { name: 'Accept “Open commitments”' }).click();
    await page.waitForURL((url) => url.hash === '#open-commitments');
    expect(await section('Open commitments').innerText()).toMatch(/accepted[\s\S]*accepted by a person/);
    expect((await asAgentReads())['Open commitments']).toEqual(['accepted', true]);
    expect((await asAgentReads())['Open questions']).toEqual(['draft', false]);

    // The evidence link opens the note at the item's line.
    await section('Open commitments').getByRole('link', { name: MEETING }).first().click();
    await page.waitForURL((url) => url.hash.startsWith('#L'));
    await page.goBack();
  });

  it('marks a section stale when a governed write changes a record it cites, until a person rebuilds it', async () => {
    const edited = KNOWLEDGE_NOTES[MEETING]!.replace('- [ ] Order spare tablets', '- [x] Order spare tablets');
    const response = await apply(api, mappingId, [{ type: 'write-note', path: MEETING, content: edited, expectedHash: hashOf(KNOWLEDGE_NOTES[MEETING]!) }]);
    expect(response.status, response.text).toBe(200);
    expect((await asAgentReads())['Open commitments']).toEqual(['stale', false]);

    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes/${scopeId}/synthesis`);
    const commitments = section('Open commitments');
    expect(await commitments.innerText()).toMatch(/stale — its evidence changed[\s\S]*1 removed/);
    expect(await commitments.getByRole('button', { name: /^Accept/ }).count()).toBe(0);
    await expectAccessible(page);
    await commitments.getByRole('button', { name: 'Rebuild “Open commitments”' }).click();
    await page.waitForURL((url) => url.hash === '#open-commitments');
    expect(await section('Open commitments').innerText()).toContain('draft — not accepted by a person');
    expect(await section('Open commitments').innerText()).not.toContain('Order spare tablets');
    expect((await asAgentReads())['Open commitments']).toEqual(['draft', false]);
  });

  it('lists published work sessions and shows one with its gaps', async () => {
    const published = await api.post('/traces/sessions', {
      json: {
        mappingId,
        contextScopeId: scopeId,
        dryRun: false,
        sessionId: 'pilot-prep-1',
        title: 'Pilot preparation',
        agent: 'planning agent',
        steps: [
          { summary: 'Read the ADRs', references: [{ kind: 'note', path: 'Decisions/ADR-2 SQLite.md', revision: hashOf(KNOWLEDGE_NOTES['Decisions/ADR-2 SQLite.md']!) }] },
          { summary: 'Read the meeting', references: [{ kind: 'note', path: MEETING, revision: hashOf(KNOWLEDGE_NOTES[MEETING]!) }, { kind: 'note', path: 'Projects/Tidewater.md', revision: 'sha256:x' }] },
          { summary: 'Ran the checks locally', references: [{ kind: 'local', label: 'Local lint run' }] },
        ],
      },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(published.status, published.text).toBe(200);

    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes/${scopeId}/synthesis`);
    await page.getByRole('navigation', { name: 'Knowledge' }).getByRole('link', { name: 'Work sessions' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/traces'));
    await expectAccessible(page);
    await page.getByRole('link', { name: 'Pilot preparation' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/traces/pilot-prep-1'));
    const text = await page.locator('main').innerText();
    expect(text).toContain('3 gaps on this page: 0 not in this scope now, 1 outside it, 1 changed since, 1 not published here');
    expect(await page.locator('li li', { hasText: 'Decisions/ADR-2 SQLite.md' }).innerText()).toContain('resolved');
    expect(await page.locator('li li', { hasText: MEETING }).innerText()).toContain('gap: changed since (stale)');
    // A note outside the scope is named as published, never linked.
    expect(await page.getByRole('link', { name: 'Projects/Tidewater.md' }).count()).toBe(0);
    expect(text).toContain('gap: outside this scope');
    await expectAccessible(page);
    expect((await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes/${scopeId}/traces/no-such-session`))!.status()).toBe(404);
  });
});
