/**
 * The knowledge pages in real Chromium: an owner manages context scopes (bad input refused with nothing changed),
 * reads a scope's decisions, confirms a candidate (the only way one becomes a decision of the team) and supersedes
 * another, follows commitments by owner with the overdue one marked, open questions, and an entity's history with
 * its valid and known times; every item links to its line in the note view; axe-core on every page.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContextScope } from '../src/domains/scopes/index.ts';
import { expectAccessible } from './support/axe.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { ENTITY_EDITED, ENTITY_PATH, KNOWLEDGE_NOTES } from './support/knowledge-vault.ts';
import { restClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';


// `KGATE_SCREENSHOTS=1 npx vitest run --project pglite test/workspace-knowledge-browser.test.ts` writes the screenshots of docs/workspace.md.
const SCREENSHOTS = process.env.KGATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/workspace/', import.meta.url)) : undefined;

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!chromiumAvailable)('the knowledge pages in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let mappingId: string;
  let vaultId: string;
  let token: string;
  let accountId: string;
  const email = `knowledge-${randomBytes(4).toString('hex')}@example.test`;
  const password = 'a long knowledge password';
  const scopeCount = async () => (await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM context_scopes WHERE mapping_id = $1', [mappingId]))[0]!.n;
  const reviewCount = async () => (await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM decision_reviews'))[0]!.n;
  const scopeNamed = async (name: string): Promise<ContextScope> =>
    (await gateway.services.scopes.listManaged({ accountId, credentialKind: 'session' }, mappingId)).find((s) => s.name === name)!;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password });
    ({ accountId, token } = owner);
    mappingId = owner.mapping.id;
    vaultId = owner.mapping.vaultId!;
    const api = restClient(gateway, token);
    await seedNotes(api, mappingId, KNOWLEDGE_NOTES);
    // The entity note as if stored before receipts existed: compiled later, in the background, known from nothing.
    for (const table of ['knowledge_notes', 'knowledge_records', 'knowledge_record_history', 'knowledge_observations']) {
      await gateway.db.query(`DELETE FROM ${table} WHERE vault_id = $1 AND path = $2`, [vaultId, ENTITY_PATH]);
    }
    expect(await gateway.services.knowledge.compileBacklog(gateway.db)).toMatchObject({ notes: 1 });
    // Then edited through the governed path: the new versions are known from this replica's receipt.
    const edited = await apply(api, mappingId, [{ type: 'write-note', path: ENTITY_PATH, content: ENTITY_EDITED, expectedHash: hashOf(KNOWLEDGE_NOTES[ENTITY_PATH]!) }]);
    expect(edited.status, edited.text).toBe(200);
    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, email, password);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('manages scopes: bad input is refused with its reason and nothing changed; create, edit, delete', async () => {
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}`);
    await page.getByRole('navigation', { name: 'Vault' }).getByRole('link', { name: 'Knowledge' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/scopes'));
    expect(await page.locator('main').innerText()).toContain('This vault has no context scope yet.');
    await expectAccessible(page);

    // A folder outside the vault: refused, the form shown again as written.
    await page.getByLabel('Name').fill('Tidewater');
    await page.getByLabel('Folders, one per line').fill('Decisions\n../outside');
    await page.getByRole('button', { name: 'Create scope' }).click();
    await expect.poll(() => page.locator('p.error').innerText()).toMatch(/pathPrefixes\[1\] is not a folder of the vault\. Nothing was changed\./);
    expect(await page.getByLabel('Folders, one per line').inputValue()).toBe('Decisions\n../outside');
    expect(await page.getByLabel('Name').inputValue()).toBe('Tidewater');
    await expectAccessible(page);
    expect(await scopeCount()).toBe(0);

    await page.getByLabel('Folders, one per line').fill('Decisions\nMeetings\nProjects\nQuestions');
    await page.getByRole('button', { name: 'Create scope' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#scope-'));
    expect(await page.locator('table').innerText()).toContain('Tidewater');

    // A taken name (names compare case-insensitively): refused, nothing changed.
    await page.getByLabel('Name').fill('tidewater');
    await page.getByRole('button', { name: 'Create scope' }).click();
    await expect.poll(() => page.locator('p.error').innerText()).toContain('Another scope of this mapping has that name.');
    expect(await scopeCount()).toBe(1);

    // A second scope for people only, changed, then deleted.
    await page.getByLabel('Name').fill('Private');
    await page.getByLabel('Folders, one per line').fill('Private');
    await page.getByLabel('Tags').fill('#secret, hr');
    await page.getByLabel('Who may use it: minimum role').selectOption('admin');
    await page.getByLabel(/Agents may use this scope/).uncheck();
    await page.getByRole('button', { name: 'Create scope' }).click();
    await page.waitForURL((url) => url.hash.startsWith('#scope-'));
    expect(await scopeNamed('Private')).toMatchObject({ pathPrefixes: ['Private/'], tags: ['hr', 'secret'], audience: { minimumRole: 'admin', agents: false } });
    const row = page.locator('tr', { hasText: 'Private' });
    expect(await row.innerText()).toContain('signed-in people only');
    await page.getByRole('link', { name: 'Edit Private' }).click();
    await expectAccessible(page);
    await page.getByLabel('Tags').fill('not a tag!');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.locator('p.error').innerText()).toContain('is not a tag name');
    expect((await scopeNamed('Private')).tags).toEqual(['hr', 'secret']);
    await page.getByLabel('Tags').fill('hr');
    await page.getByLabel('Who may use it: minimum role').selectOption('editor');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/scopes'));
    expect(await scopeNamed('Private')).toMatchObject({ tags: ['hr'], audience: { minimumRole: 'editor', agents: false } });
    await page.getByRole('link', { name: 'Edit Private' }).click();
    await page.getByRole('button', { name: 'Delete “Private”' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/scopes'));
    expect(await scopeCount()).toBe(1);
    await screenshot(page, 'scopes');
  });

  it('labels decisions found in notes as candidates; a person confirms one, and agents then read it as confirmed', async () => {
    const scope = await scopeNamed('Tidewater');
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes`);
    await page.getByRole('link', { name: 'Tidewater', exact: true }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/decisions'));
    const items = page.locator('ul.records > li');
    await expect.poll(() => items.count()).toBe(3);
    // Every decision is a candidate, whatever its note says ("accepted" included).
    for (const text of await items.allInnerTexts()) expect(text).toContain('candidate — not confirmed');
    expect(await items.first().innerText()).toContain('The note says “accepted”, which is not a decision of the team.');
    await expectAccessible(page);

    const adr2 = page.locator('li', { hasText: 'ADR-2' });
    const csrf = await adr2.locator('form input[name=csrf]').inputValue();
    expect(csrf.length).toBeGreaterThanOrEqual(32);
    expect(await reviewCount()).toBe(0);
    await adr2.getByLabel(/Comment on/).fill('Agreed at the sync review');
    await adr2.getByRole('button', { name: /^Confirm/ }).click();
    await page.waitForURL((url) => url.hash.startsWith('#d-'));
    const confirmed = page.locator('li', { hasText: 'ADR-2' });
    expect(await confirmed.innerText()).toMatch(/confirmed[\s\S]*Confirmed by a person on .*: “Agreed at the sync review”/);
    expect(await confirmed.innerText()).not.toContain('candidate');
    expect(await confirmed.locator('form').count()).toBe(0);
    expect(await reviewCount()).toBe(1);
    await screenshot(page, 'decisions');

    // What an agent reads through the scope (its token): the decision confirmed, with the person's review.
    const agent = await gateway.services.tokens.authenticate(token);
    const { slice } = await gateway.services.scopes.authorize(agent.actor, mappingId, scope.id);
    const read = await gateway.services.knowledge.decisions(slice, { statuses: ['confirmed'] });
    expect(read.items).toEqual([expect.objectContaining({ title: 'ADR-2: SQLite on the device with a change-log sync', status: 'confirmed', candidate: false, validFrom: '2026-11-04' })]);
    expect(read.items[0]!.review).toMatchObject({ verdict: 'confirmed', comment: 'Agreed at the sync review' });
    await expectDecisionsTool(scope.id, 'ADR-2: SQLite on the device with a change-log sync');
  });

  /** get_decisions over MCP, as an agent calls it with the owner's token: the decision confirmed by the person. */
  async function expectDecisionsTool(scopeId: string, title: string): Promise<void> {
    const rpc = async (method: string, params: Record<string, unknown>) => {
      const response = await fetch(`${gateway.url}/api/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
      return ((await response.json()) as { result: Record<string, unknown> }).result;
    };
    const tools = (await rpc('tools/list', {})).tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toContain('get_decisions');
    const result = (await rpc('tools/call', { name: 'get_decisions', arguments: { mappingId, contextScopeId: scopeId } })) as { isError?: boolean; structuredContent: { decisions: Array<{ title: string; status: string }> } };
    expect(result.isError ?? false).toBe(false);
    expect(result.structuredContent.decisions).toContainEqual(expect.objectContaining({ title, status: 'confirmed' }));
  }

  it('supersedes a decision by another of the scope on its page, and shows the review history', async () => {
    await page.getByRole('link', { name: 'ADR-1: CouchDB replication for offline sync' }).click();
    await page.waitForURL((url) => /\/decisions\/[^/]+$/.test(url.pathname));
    // The source of a decision note is its frontmatter block, as the note is now.
    expect(await page.locator('pre.outline').innerText()).toContain('status: accepted\ndecided: 2026-10-06');
    expect(await page.locator('main').innerText()).toContain('No person has reviewed this decision yet.');
    await expectAccessible(page);
    // Supersede without choosing which decision: refused, shown with the reason, nothing changed.
    await page.getByRole('button', { name: 'Mark superseded' }).click();
    await expect.poll(() => page.locator('p.error').innerText()).toContain('names the decision that supersedes it');
    expect(await reviewCount()).toBe(1);
    await page.getByLabel('Superseded by').selectOption({ label: 'ADR-2: SQLite on the device with a change-log sync (confirmed, Decisions/ADR-2 SQLite.md)' });
    await page.getByLabel('Comment (optional)').fill('The spike showed PouchDB too slow.');
    await page.getByRole('button', { name: 'Mark superseded' }).click();
    await page.waitForURL((url) => url.hash === '#review');
    const main = await page.locator('main').innerText();
    expect(main).toMatch(/superseded[\s\S]*Superseded by a person on .*, in favour of ADR-2: SQLite on the device with a change-log sync: “The spike showed PouchDB too slow\.”/);
    const history = page.locator('table', { hasText: 'Verdict' });
    expect(await history.locator('tbody tr').count()).toBe(1);
    expect(await history.innerText()).toMatch(new RegExp(`${email}\\s+Superseded by ADR-2: SQLite on the device with a change-log sync\\s+The spike showed PouchDB too slow\\.\\s+yes`));
    // Superseded by a person: valid until the review.
    expect(await page.locator('dl').innerText()).toMatch(/valid from 2026-10-06 until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);
    await expectAccessible(page);
    await screenshot(page, 'decision');
  });

  it('shows commitments by owner, soonest due first, the overdue one marked, done ones on request, each linked to its line', async () => {
    await page.getByRole('navigation', { name: 'Knowledge' }).getByRole('link', { name: 'Commitments' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/commitments'));
    const owners = await page.locator('main h2').allInnerTexts();
    expect(owners).toEqual(['Ana Ruiz', 'Priya Natarajan', 'No owner']);
    const ana = page.locator('section', { has: page.getByRole('heading', { name: 'Ana Ruiz' }) });
    const rows = await ana.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^2020-01-15 overdue\s+Draft the pilot checklist/);
    expect(rows[1]).toMatch(/^2099-03-01\s+Order spare tablets/);
    expect(await ana.locator('tr.overdue').count()).toBe(1);
    expect(await page.locator('main').innerText()).not.toContain('Book the training room');
    await expectAccessible(page);
    await screenshot(page, 'commitments');

    await page.getByRole('link', { name: 'Include done ones' }).click();
    await expect.poll(() => page.locator('main h2').allInnerTexts()).toEqual(['Ana Ruiz', 'Jonas Berg', 'Priya Natarajan', 'No owner']);
    expect(await page.locator('section', { hasText: 'Jonas Berg' }).innerText()).toMatch(/2020-01-10\s+Book the training room.*\s+done/);
    await page.getByRole('link', { name: 'Only Ana Ruiz\'s commitments' }).click();
    await expect.poll(() => page.locator('main h2').allInnerTexts()).toEqual(['Ana Ruiz']);

    // The evidence link leads to the task's line in the note view.
    await ana.getByRole('link', { name: 'Meetings/Pilot Planning.md' }).first().click();
    await page.waitForURL((url) => url.hash === '#L6');
    expect(await page.locator(':target').innerText()).toContain('Draft the pilot checklist');
    await expectAccessible(page);
  });

  it('shows open questions from callouts and question notes, each linked to its line', async () => {
    const scope = await scopeNamed('Tidewater');
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes/${scope.id}/questions`);
    const questions = await page.locator('ul.records > li').allInnerTexts();
    expect(questions).toHaveLength(2);
    expect(questions[0]).toMatch(/Who pays for the map tiles\?[\s\S]*Meetings\/Pilot Planning\.md line|lines 12/);
    expect(questions[1]).toMatch(/How long may a device stay offline\?[\s\S]*Questions\/Offline limit\.md/);
    await expectAccessible(page);
    await screenshot(page, 'questions');
    await page.getByRole('link', { name: 'Meetings/Pilot Planning.md' }).click();
    await page.waitForURL((url) => url.hash === '#L12');
    expect(await page.locator(':target').innerText()).toContain('Who pays for the map tiles?');
  });

  it("shows an entity's history: valid and known intervals, and 'known time unavailable' for versions from before receipts", async () => {
    const scope = await scopeNamed('Tidewater');
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${mappingId}/scopes/${scope.id}/entities`);
    expect(await page.locator('table').innerText()).toMatch(/project\s+tidewater\s+2/);
    await expectAccessible(page);
    await page.getByRole('link', { name: 'tidewater' }).click();
    await page.waitForURL((url) => url.searchParams.get('id') === 'tidewater');
    expect(await page.locator('main h2').allInnerTexts()).toEqual(['status', 'target_release']);
    const status = await page.locator('section', { has: page.getByRole('heading', { name: 'status' }) }).locator('tbody tr').allInnerTexts();
    expect(status).toHaveLength(2);
    // The first version: valid from the note's date until the next version's; stored before receipts, so its known
    // time is unavailable, and it stopped being known when the edit was stored.
    expect(status[0]).toMatch(/^planning\s+2026-09-15\s+2026-11-17\s+known time unavailable\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+Projects\/Tidewater\.md/);
    expect(status[1]).toMatch(/^active current\s+2026-11-17\s+open end\s+\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\s+still known\s+Projects\/Tidewater\.md/);
    await expectAccessible(page);
    await screenshot(page, 'entity');
  });
});
