/**
 * Governed proposals end to end, in real Chromium: an agent (the MCP SDK client with an OAuth token) proposes, a
 * person opens the reviewUrl, reads the diff, approves and applies; the notes then hold exactly what was proposed and
 * the events and the proposal's steps say who did what. A note changed between the approval and the apply fails the
 * apply with nothing changed; an undo restores the previous content and moves a created note to the trash, and an
 * undo after someone changed the note again is refused with nothing changed; under the `people-approve` policy (set
 * on the Vaults page) an agent's direct apply is refused, and its proposal applies once a person approves it.
 * axe-core on every page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient, type Structured } from './support/mcp-client.ts';
import { connect, newAccount, type TestAccount } from './support/oauth-flow.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes, type EventBody } from './support/rest-transactions.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';


// `KGATE_SCREENSHOTS=1 npx vitest run --project pglite test/proposal-review-browser.test.ts` writes the screenshots of docs/workspace.md.
const SCREENSHOTS = process.env.KGATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/workspace/', import.meta.url)) : undefined;

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

const PLAN = 'Projects/Pilot plan.md';
const BUDGET = 'Projects/Budget.md';
const ROSTER = 'Projects/Roster.md';
const LAUNCH = 'Projects/Launch checklist.md';
const SEED: Readonly<Record<string, string>> = {
  [PLAN]: '# Pilot plan\n\n- Start in March\n- Two districts\n',
  [BUDGET]: '# Budget\n\nTablets: 40\n',
  [ROSTER]: '# Roster\n\n- Ana\n',
};
const PLAN_NEW = '# Pilot plan\n\n- Start in April\n- Two districts\n- Train the nurses first\n';
const LAUNCH_NEW = '# Launch checklist\n\n- [ ] Tablets charged\n- [ ] <script>alert(1)</script> stays text\n';

describe.skipIf(!chromiumAvailable)('proposals reviewed in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let page: Page;
  let account: TestAccount;
  let vaultId: string;
  let api: RestClient;
  let agent: Client;
  let executedId: string;

  /** Every note's path and content, and the trash: equal before and after means no note changed. */
  const noteState = async () =>
    JSON.stringify([
      await gateway.db.query('SELECT path, content, content_hash FROM notes WHERE vault_id = $1 ORDER BY path', [vaultId]),
      await gateway.db.query('SELECT original_path, content_hash FROM trash_entries WHERE vault_id = $1 ORDER BY original_path', [vaultId]),
    ]);
  const contentOf = async (path: string) => (await gateway.db.query<{ content: string }>('SELECT content FROM notes WHERE vault_id = $1 AND path = $2', [vaultId, path]))[0]?.content;
  const stateOf = async (id: string) => (await gateway.db.query<{ state: string }>('SELECT state FROM action_proposals WHERE id = $1', [id]))[0]!.state;
  const badge = () => page.locator('#state .badge').innerText();
  /** The steps of the proposal on the page, oldest first. */
  async function stepNames(): Promise<Array<string | null>> {
    const rows = page.locator('table.steps tbody tr');
    const names: Array<string | null> = [];
    for (let i = 0; i < (await rows.count()); i += 1) names.push(await rows.nth(i).getAttribute('data-step'));
    return names;
  }

  /** An agent's proposal over MCP; the tool's answer. */
  async function propose(title: string, notes: Array<{ path: string; content: string; expectedHash?: string }>): Promise<Structured> {
    const result = await callTool(agent, 'propose_action', { mappingId: account.mappingId, title, rationale: 'So that the pilot starts prepared.', notes });
    expect(result.isError, JSON.stringify(result.data)).toBe(false);
    return result.data;
  }

  /** Opens a proposal's review page as the person does, from the URL the agent was given. */
  async function openReview(reviewUrl: string): Promise<void> {
    await page.goto(reviewUrl);
    await expectAccessible(page);
  }

  async function press(button: string, comment?: string): Promise<void> {
    if (comment !== undefined) await page.getByLabel('Comment (optional)').first().fill(comment);
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.waitForURL((url) => url.hash === '#state');
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    account = await newAccount(gateway, 'proposals');
    const mapping = await gateway.services.vaults.setMcpNoteChanges(account.accountId, account.mappingId, true);
    vaultId = mapping.vaultId!;
    api = restClient(gateway, account.personalToken);
    await seedNotes(api, account.mappingId, SEED);
    const connection = await connect(gateway, account, { scope: 'mcp:read mcp:write' });
    agent = await connectMcpClient(gateway.url, connection.tokens.access_token);
    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, account.email, account.password);
  });

  afterAll(async () => {
    await agent?.close();
    await browser?.close();
    await gateway?.stop();
  });

  it('A: an agent proposes, a person reads the diff, approves and applies; exactly the proposed notes are written, and the events and steps say who did what', async () => {
    const before = await noteState();
    const proposed = await propose('Move the pilot to April and add a launch checklist', [
      { path: PLAN, content: PLAN_NEW },
      { path: LAUNCH, content: LAUNCH_NEW },
    ]);
    const id = proposed.proposal.id as string;
    executedId = id;
    expect(proposed.reviewUrl).toBe(`${gateway.baseUrl}/workspace/vaults/${account.mappingId}/proposals/${id}`);
    expect(proposed.proposal).toMatchObject({ state: 'proposed', kind: 'action', proposedBy: { accountId: account.accountId, credentialKind: 'oauth' } });
    expect(await noteState()).toBe(before);

    // The vault's navigation leads to the list, where it waits for a person.
    await page.goto(`${gateway.baseUrl}/workspace/vaults/${account.mappingId}`);
    await page.getByRole('navigation', { name: 'Vault' }).getByRole('link', { name: 'Proposals' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/proposals'));
    const waiting = page.locator('section', { has: page.getByRole('heading', { name: 'Waiting for a person' }) });
    expect(await waiting.locator('tbody tr').innerText()).toMatch(/Move the pilot to April[\s\S]*2 notes[\s\S]*connected application[\s\S]*waiting for a person/);
    await expectAccessible(page);

    await openReview(proposed.reviewUrl as string);
    expect(await badge()).toBe('waiting for a person');
    const diffs = await page.locator('pre.diff').allInnerTexts();
    expect(diffs).toHaveLength(2);
    expect(diffs[0]).toContain('-- Start in March');
    expect(diffs[0]).toContain('+- Start in April');
    expect(diffs[0]).toContain('+- Train the nurses first');
    // Markup in a proposed note is shown as text, never run.
    expect(diffs[1]).toContain('+- [ ] <script>alert(1)</script> stays text');
    expect(await page.locator('main').innerText()).toMatch(/previewed against revision sha256:/);
    expect(await page.locator('main').innerText()).toContain('a new note: previewed when no note had this path');
    await screenshot(page, 'proposal');

    await press('Approve', 'Looks right for April');
    expect(await badge()).toBe('approved — not applied yet');
    expect(await noteState()).toBe(before);
    await expectAccessible(page);

    await press('Apply the approved changes');
    expect(await badge()).toBe('applied');
    expect(await contentOf(PLAN)).toBe(PLAN_NEW);
    expect(await contentOf(LAUNCH)).toBe(LAUNCH_NEW);
    expect(await contentOf(BUDGET)).toBe(SEED[BUDGET]);
    expect(await stateOf(id)).toBe('executed');

    // The steps, each with its receipt: proposed by the connected application, approved and applied by the person.
    const steps = page.locator('table.steps tbody tr');
    expect(await stepNames()).toEqual(['propose', 'approve', 'execute']);
    expect(await steps.nth(0).innerText()).toMatch(new RegExp(`${account.email} \\(connected application[\\s\\S]*– → proposed`));
    expect(await steps.nth(1).innerText()).toMatch(new RegExp(`${account.email} \\(signed in, in the workspace\\)[\\s\\S]*proposed → approved[\\s\\S]*Looks right for April`));
    expect(await steps.nth(2).innerText()).toMatch(new RegExp(`approved → executed[\\s\\S]*idempotency key proposal:${id}`));
    expect(await steps.nth(2).innerText()).toContain(`update ${PLAN}`);
    await expectAccessible(page);
    await screenshot(page, 'proposal-applied');

    // The agent follows it in the vault's events: created by its token, approved and executed by the session, and
    // the note events under the proposal's idempotency key.
    const events = await callTool(agent, 'get_knowledge_events', { mappingId: account.mappingId, limit: 200 });
    expect(events.isError).toBe(false);
    const mine = (events.data.events as EventBody[]).filter((e) => e.details.proposalId === id || e.idempotencyKey === `proposal:${id}`);
    expect(mine.map((e) => [e.kind, e.credentialKind, e.path])).toEqual([
      ['proposal.created', 'oauth', null],
      ['proposal.approved', 'session', null],
      ['note.updated', 'session', PLAN],
      ['note.created', 'session', LAUNCH],
      ['proposal.executed', 'session', null],
    ]);
    expect(mine.filter((e) => e.kind.startsWith('note.')).every((e) => e.idempotencyKey === `proposal:${id}`)).toBe(true);
    expect(mine.find((e) => e.kind === 'note.updated')).toMatchObject({ beforeRevision: hashOf(SEED[PLAN]!), afterRevision: hashOf(PLAN_NEW) });

    // The vault's Events page names the proposal's steps and links each to the proposal.
    await page.getByRole('navigation', { name: 'Vault' }).getByRole('link', { name: 'Events' }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/events'));
    const rows = await page.locator('tbody tr', { has: page.getByRole('link', { name: 'Move the pilot to April and add a launch checklist' }) }).allInnerTexts();
    expect(rows.map((r) => r.split('\t')[2])).toEqual(['applied a proposal', 'approved a proposal', 'proposed']);
    await expectAccessible(page);
  });

  it('B: a note changed after the approval fails the apply with nothing applied; the page says which and why', async () => {
    const proposed = await propose('Raise the tablet count', [
      { path: BUDGET, content: '# Budget\n\nTablets: 60\n' },
      { path: ROSTER, content: '# Roster\n\n- Ana\n- Jonas\n' },
    ]);
    const id = proposed.proposal.id as string;
    await openReview(proposed.reviewUrl as string);
    await press('Approve');

    // Someone changes the budget through the governed REST path after the proposal was made.
    const changed = await apply(api, account.mappingId, [{ type: 'write-note', path: BUDGET, content: '# Budget\n\nTablets: 45\n', expectedHash: hashOf(SEED[BUDGET]!) }]);
    expect(changed.status, changed.text).toBe(200);
    const before = await noteState();

    await press('Apply the approved changes');
    expect(await badge()).toBe('failed — nothing applied');
    const decision = await page.locator('#decide ~ *').first().innerText();
    expect(decision).toContain('Applying it was refused, and nothing was applied.');
    const main = await page.locator('main').innerText();
    expect(main).toContain('stale_revision');
    expect(main).toContain(BUDGET);
    expect(await noteState()).toBe(before);
    expect(await contentOf(BUDGET)).toBe('# Budget\n\nTablets: 45\n');
    expect(await contentOf(ROSTER)).toBe(SEED[ROSTER]);
    expect(await stateOf(id)).toBe('failed');
    expect(await page.getByRole('button', { name: 'Apply the approved changes' }).count()).toBe(0);
    expect(await stepNames()).toEqual(['propose', 'approve', 'fail']);
    await expectAccessible(page);
    await screenshot(page, 'proposal-failed');
  });

  it('C: undo restores the previous content and moves the created note to the trash; an undo after the note changed again is refused with nothing changed', async () => {
    await openReview(`${gateway.baseUrl}/workspace/vaults/${account.mappingId}/proposals/${executedId}`);
    await press('Undo these changes');
    expect(await badge()).toBe('undone');
    expect(await contentOf(PLAN)).toBe(SEED[PLAN]);
    expect(await contentOf(LAUNCH)).toBeUndefined();
    const trashed = await gateway.db.query<{ original_path: string; content_hash: string }>('SELECT original_path, content_hash FROM trash_entries WHERE vault_id = $1 AND original_path = $2', [vaultId, LAUNCH]);
    expect(trashed).toEqual([{ original_path: LAUNCH, content_hash: hashOf(LAUNCH_NEW) }]);
    expect(await page.getByRole('button', { name: /Undo/ }).count()).toBe(0);
    await expectAccessible(page);

    // Another proposal, applied; the person opens it, someone changes the note, then the person presses Undo.
    const proposed = await propose('Add Jonas to the roster', [{ path: ROSTER, content: '# Roster\n\n- Ana\n- Jonas\n' }]);
    const id = proposed.proposal.id as string;
    await openReview(proposed.reviewUrl as string);
    await press('Approve');
    await press('Apply the approved changes');
    expect(await contentOf(ROSTER)).toBe('# Roster\n\n- Ana\n- Jonas\n');
    expect(await page.getByRole('button', { name: 'Undo these changes' }).count()).toBe(1);
    const edited = await apply(api, account.mappingId, [{ type: 'write-note', path: ROSTER, content: '# Roster\n\n- Ana\n- Jonas\n- Priya\n', expectedHash: hashOf('# Roster\n\n- Ana\n- Jonas\n') }]);
    expect(edited.status, edited.text).toBe(200);
    const before = await noteState();
    await press('Undo these changes');
    expect(await noteState()).toBe(before);
    expect(await stateOf(id)).toBe('executed');
    expect(await badge()).toBe('applied');
    const main = await page.locator('main').innerText();
    expect(main).toContain('The last undo was refused, and nothing was changed');
    expect(main).toContain('stale_revision');
    expect(main).toContain('It cannot be undone now: a note it changed has changed again since');
    expect(await page.getByRole('button', { name: 'Undo these changes' }).count()).toBe(0);
    expect(await stepNames()).toEqual(['propose', 'approve', 'execute', 'undo-failed']);
    await expectAccessible(page);
  });

  it("D: under 'people-approve', set on the Vaults page, an agent's direct apply is refused naming propose_action; its proposal, approved on the page, applies", async () => {
    await page.goto(`${gateway.baseUrl}/account/vaults`);
    await page.getByRole('combobox', { name: /Approval policy for/ }).selectOption('people-approve');
    await page.getByRole('button', { name: /Save the approval policy/ }).click();
    await page.waitForURL((url) => url.pathname === '/account/vaults');
    expect((await gateway.services.vaults.resolveHostedMapping(account.accountId, account.mappingId, 'read')).approvalPolicy).toBe('people-approve');
    await expectAccessible(page);

    const roster = (await contentOf(ROSTER))!;
    const content = `${roster}- Mei\n`;
    const before = await noteState();
    const direct = await callTool(agent, 'apply_note_writes', { mappingId: account.mappingId, idempotencyKey: 'agent-direct-1', notes: [{ path: ROSTER, content, expectedHash: hashOf(roster) }] });
    expect(direct).toMatchObject({ isError: true, data: { code: 'approval_required' } });
    expect(JSON.stringify(direct.data)).toContain('propose_action');
    expect(await noteState()).toBe(before);

    const proposed = await propose('Add Mei to the roster', [{ path: ROSTER, content }]);
    await openReview(proposed.reviewUrl as string);
    await press('Approve');
    await press('Apply the approved changes');
    expect(await badge()).toBe('applied');
    expect(await contentOf(ROSTER)).toBe(content);

    // The list: one waiting first, then applied, failed and undone ones under the decided ones, newest first.
    await propose('Note who pays for the map tiles', [{ path: BUDGET, content: `${(await contentOf(BUDGET))!}Map tiles: paid by the district\n` }]);
    await page.getByRole('link', { name: /^Proposals of / }).click();
    await page.waitForURL((url) => url.pathname.endsWith('/proposals'));
    const decided = page.locator('section', { has: page.getByRole('heading', { name: 'Decided, applied or expired' }) });
    expect(await decided.locator('tbody tr .badge').allInnerTexts()).toEqual(['applied', 'applied', 'failed — nothing applied', 'undone']);
    const waiting = page.locator('section', { has: page.getByRole('heading', { name: 'Waiting for a person' }) });
    expect(await waiting.locator('tbody tr').allInnerTexts()).toEqual([expect.stringContaining('Note who pays for the map tiles')]);
    await expectAccessible(page);
    await screenshot(page, 'proposals');
  });
});
