/**
 * The automation pages in real Chromium (docs/workspace.md, "Automation pages"): an admin adds a webhook endpoint at a
 * local https receiver (its secret shown once, on the answer to the form: not in its address, not cached, not on the
 * page loaded again), rotates its secret (the new one shown once, with the previous one's overlap), creates a trigger,
 * turns it off and on and edits it; an event sent with a personal token and one POST /process later, the runs page
 * shows the run, its page every step in order and the delivery attempt, and the executions page every attempt. A
 * trigger that proposes a note puts an automation proposal in the vault's review queue, named as automation's, where
 * an approval says that `process` applies it as the approving person. An editor is refused every automation page
 * and every change (403, nothing stored). axe-core on every page.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { automationCounts, startAutomationGateway, type AutomationGateway } from './support/automation-gateway.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { startWebhookReceiver, type WebhookReceiver } from './fakes/webhook-receiver/index.ts';

// `KGATE_SCREENSHOTS=1 KGATE_REQUIRE_CHROMIUM=1 npx vitest run --project pglite test/automation-pages-browser.test.ts`
// writes the automation screenshots of docs/workspace.md.
const SCREENSHOTS = process.env.KGATE_SCREENSHOTS === '1' ? fileURLToPath(new URL('../docs/workspace/', import.meta.url)) : undefined;

async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

interface RunBody {
  id: string;
  state: string;
  proposalId: string | null;
  steps: Array<{ step: string }>;
}

describe.skipIf(!chromiumAvailable)('automation pages in a real browser', () => {
  let auto: AutomationGateway;
  let receiver: WebhookReceiver;
  let browser: Browser;
  let admin: Page;
  let base: string;
  let endpointId: string;
  let triggerId: string;

  const url = (path: string) => `${auto.gateway.baseUrl}${path}`;
  const pages = () => `/workspace/automation/${auto.workspaceId}`;
  const mainText = (page: Page) => page.locator('main').innerText();

  /** Submits the form whose button is `name` and answers the response to its post. */
  async function press(page: Page, name: string): Promise<Response> {
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.getByRole('button', { name, exact: true }).click();
    const response = await answer;
    await page.waitForLoadState();
    return response;
  }

  /** Posts a form with `fields` from the page, as a browser does (the page's origin, its cookie), and answers the response. */
  async function postFrom(page: Page, action: string, fields: Record<string, string>): Promise<Response> {
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.evaluate(`(() => {
      const form = document.createElement('form');
      form.method = 'post';
      form.action = ${JSON.stringify(action)};
      for (const [name, value] of Object.entries(${JSON.stringify(fields)})) {
        const input = document.createElement('input');
        input.type = 'hidden'; input.name = name; input.value = value;
        form.appendChild(input);
      }
      document.body.appendChild(form);
      form.submit();
    })()`);
    const response = await answer;
    await page.waitForLoadState();
    return response;
  }

  /** The session's CSRF token, from the sign-out form every signed-in page has. */
  const csrfOf = async (page: Page) => (await page.locator('form[action="/signout"] input[name="csrf"]').getAttribute('value')) ?? '';

  /** Runs POST /process until the run is no longer queued or waiting (each call moves it on as far as it can). */
  async function processUntilSettled(runId: string): Promise<RunBody> {
    for (let i = 0; i < 5; i += 1) {
      await auto.admin.api.process();
      const { body } = await auto.admin.api.get<{ run: RunBody }>(`/runs/${runId}`);
      if (body.run.state !== 'queued' && body.run.state !== 'waiting') return body.run;
    }
    throw new Error(`run ${runId} did not settle`);
  }

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    auto = await startAutomationGateway({ trust: receiver.cert });
    base = auto.gateway.baseUrl;
    browser = await launchChromium();
    admin = await signedInPage(browser, base, auto.admin.email, auto.admin.password);
  });

  afterAll(async () => {
    await browser?.close();
    await auto?.stop();
    await receiver?.close();
  });

  it('lists the workspaces where the role manages automation, with their pages', async () => {
    await admin.goto(url('/workspace/automation'));
    const row = admin.locator(`tr[data-workspace="${auto.workspaceId}"]`);
    expect(await row.innerText()).toMatch(/admin/);
    await row.getByRole('link', { name: /^Triggers of / }).click();
    await admin.waitForURL((u) => u.pathname === `${pages()}/triggers`);
    await expectAccessible(admin);
  });

  it('adds an endpoint: the secret is shown once, never in an address or a cache, and not on the page loaded again', async () => {
    await admin.goto(url(`${pages()}/endpoints`));
    await expectAccessible(admin);
    await admin.getByLabel('Address (https)').fill(receiver.url);
    await admin.getByLabel('Description (optional)').fill('The intake receiver');
    const response = await press(admin, 'Add endpoint');
    expect(response.status()).toBe(200);
    expect(response.headers()['cache-control']).toBe('no-store');
    const secret = await admin.locator('#new-secret').innerText();
    expect(secret).toMatch(/^whsec_/);
    expect(admin.url()).not.toContain(secret);
    expect(await mainText(admin)).toContain('shown this once and never again');
    await expectAccessible(admin);
    endpointId = (await admin.locator('tr[data-endpoint]').first().getAttribute('data-endpoint')) ?? '';
    const hint = await admin.locator(`tr[data-endpoint="${endpointId}"] [data-field="secret-hint"]`).innerText();
    expect(secret.startsWith(hint.replace('…', ''))).toBe(true);

    // The page's address loaded again: the list with the hint, never the secret.
    await admin.goto(url(`${pages()}/endpoints`));
    expect(await admin.locator('#new-secret').count()).toBe(0);
    expect(await admin.content()).not.toContain(secret);

    await press(admin, `Rotate secret of ${receiver.url}`);
    const rotated = await admin.locator('#new-secret').innerText();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    expect(await mainText(admin)).toMatch(/previous secret keeps signing beside this one for 24 hours, until/);
    expect(await admin.locator(`tr[data-endpoint="${endpointId}"]`).innerText()).toMatch(/rotated[\s\S]*the previous one signs too until/);
    await expectAccessible(admin);
    await screenshot(admin, 'automation-endpoints');
    await admin.goto(url(`${pages()}/endpoints`));
    const again = await admin.content();
    expect(again).not.toContain(secret);
    expect(again).not.toContain(rotated);
  });

  it('creates a trigger that delivers to the endpoint, turns it off and on, and edits it', async () => {
    await admin.goto(url(`${pages()}/triggers`));
    await admin.getByLabel('Name', { exact: true }).fill('Forward contact forms');
    await admin.getByLabel('Event type').fill('form.submitted');
    await admin.getByLabel(/^Conditions/).fill('data.form=contact');
    await admin.getByLabel('Deliver the event to webhook endpoints').check();
    await admin.getByLabel(receiver.url).check();
    const created = await press(admin, 'Create trigger');
    expect(created.status()).toBe(303);
    expect(await mainText(admin)).toContain('The trigger was created.');
    const row = admin.locator('tr[data-trigger]').first();
    triggerId = (await row.getAttribute('data-trigger')) ?? '';
    expect(await row.innerText()).toMatch(/Forward contact forms[\s\S]*form\.submitted[\s\S]*data\.form=contact[\s\S]*enabled/);
    await expectAccessible(admin);

    await press(admin, 'Disable Forward contact forms');
    expect(await admin.locator(`tr[data-trigger="${triggerId}"] [data-enabled]`).innerText()).toBe('disabled');
    await press(admin, 'Enable Forward contact forms');
    expect(await admin.locator(`tr[data-trigger="${triggerId}"] [data-enabled]`).innerText()).toBe('enabled');

    await admin.getByRole('link', { name: 'Edit Forward contact forms' }).click();
    await admin.waitForURL((u) => u.pathname.endsWith('/edit'));
    await expectAccessible(admin);
    expect(await admin.getByLabel(/^Conditions/).inputValue()).toBe('data.form=contact');
    await admin.getByLabel('Name', { exact: true }).fill('Forward contact requests');
    await press(admin, 'Save changes');
    expect(await mainText(admin)).toContain('The trigger was saved.');
    expect(await admin.locator(`tr[data-trigger="${triggerId}"]`).innerText()).toContain('Forward contact requests');
    await screenshot(admin, 'automation-triggers');
  });

  it('shows the run of an event with every step in order, and each delivery attempt', async () => {
    const ingested = await auto.admin.api.ingest(
      { workspaceId: auto.workspaceId, type: 'form.submitted', source: 'forms.example.com', subject: 'submission-7', data: { form: 'contact', name: 'Ada Lovelace' } },
      'pages-event-1',
    );
    expect(ingested.status, ingested.text).toBe(200);
    const runIds = (ingested.body as { runIds: string[] }).runIds;
    expect(runIds).toHaveLength(1);
    const run = await processUntilSettled(runIds[0]!);
    expect(run.state).toBe('succeeded');

    await admin.goto(url(`${pages()}/runs`));
    await expectAccessible(admin);
    const row = admin.locator(`tr[data-run="${run.id}"]`);
    expect(await row.innerText()).toMatch(/Forward contact requests[\s\S]*succeeded/);
    await row.getByRole('link').first().click();
    await admin.waitForURL((u) => u.pathname.endsWith(`/runs/${run.id}`));
    const stepRows = admin.locator('table.steps tbody tr');
    const steps: Array<string | null> = [];
    for (let i = 0; i < (await stepRows.count()); i += 1) steps.push(await stepRows.nth(i).getAttribute('data-step'));
    expect(steps).toEqual(run.steps.map((s) => s.step));
    expect(steps[0]).toBe('matched');
    expect(steps[steps.length - 1]).toBe('succeeded');
    const attempt = admin.locator('table.executions tbody tr').first();
    expect(await attempt.getAttribute('data-outcome')).toBe('succeeded');
    expect(await attempt.innerText()).toMatch(/webhook delivery[\s\S]*form\.submitted[\s\S]*\b1\b[\s\S]*succeeded[\s\S]*2\d\d/);
    await expectAccessible(admin);
    await screenshot(admin, 'automation-run');

    await admin.goto(url(`${pages()}/executions`));
    await expectAccessible(admin);
    const rows = admin.locator('table.executions tbody tr');
    expect(await rows.count()).toBe(receiver.received.length);
    expect(await rows.first().innerText()).toMatch(/webhook delivery[\s\S]*succeeded/);
  });

  it('puts a trigger’s proposal in the vault’s review queue as automation’s, which process applies as the approving person', async () => {
    const created = await auto.admin.api.post<{ trigger: { id: string } }>('/triggers', {
      json: {
        workspaceId: auto.workspaceId,
        name: 'File feedback',
        when: { eventType: 'feedback.received' },
        action: { kind: 'propose', mappingId: auto.mappingId, title: 'Feedback from {{event.data.name}}', path: 'Inbox/{{event.subject}}.md', content: '# {{event.data.name}}\n' },
      },
    });
    expect(created.status, created.text).toBe(200);
    const ingested = await auto.admin.api.ingest(
      { workspaceId: auto.workspaceId, type: 'feedback.received', source: 'n8n', subject: 'feedback-3', data: { name: 'Grace' } },
      'pages-event-2',
    );
    const runId = (ingested.body as { runIds: string[] }).runIds[0]!;
    await auto.admin.api.process();
    const { body } = await auto.admin.api.get<{ run: RunBody }>(`/runs/${runId}`);
    expect(body.run.proposalId).not.toBeNull();

    // From the run, to the proposal's own review page in the vault's queue.
    await admin.goto(url(`${pages()}/runs/${runId}`));
    await admin.getByRole('link', { name: 'Review the proposal' }).click();
    await admin.waitForURL((u) => u.pathname === `/workspace/vaults/${auto.mappingId}/proposals/${body.run.proposalId}`);
    expect(await admin.locator('[data-origin]').first().getAttribute('data-origin')).toBe('automation');
    await admin.goto(url(`/workspace/vaults/${auto.mappingId}/proposals`));
    const waiting = admin.locator('section', { has: admin.getByRole('heading', { name: 'Waiting for a person' }) });
    expect(await waiting.locator('tbody tr').first().innerText()).toMatch(/Feedback from Grace[\s\S]*automation/);
    await expectAccessible(admin);

    await admin.goto(url(`/workspace/vaults/${auto.mappingId}/proposals/${body.run.proposalId}`));
    await admin.getByRole('button', { name: 'Approve', exact: true }).click();
    await admin.waitForURL((u) => u.hash === '#state');
    expect(await admin.locator('#automation-executes').innerText()).toMatch(/process[\s\S]*applies it as you/);
    await expect.poll(() => admin.getByRole('button', { name: 'Apply the approved changes' }).count()).toBe(1);
    await expectAccessible(admin);

    const run = await processUntilSettled(runId);
    expect(run.steps.map((s) => s.step)).toEqual(expect.arrayContaining(['proposal.approved', 'proposal.executed']));
    await admin.reload();
    expect(await admin.locator('#state .badge').innerText()).toBe('applied');
  });

  it('refuses an editor every automation page and change, and nothing is stored', async () => {
    const editor = await signedInPage(browser, base, auto.editor.email, auto.editor.password);
    try {
      await editor.goto(url('/workspace/automation'));
      expect(await editor.locator(`tr[data-workspace="${auto.workspaceId}"]`).innerText()).toContain('Your role (editor) does not manage automation');
      await expectAccessible(editor);
      for (const tab of ['triggers', 'endpoints', 'runs', 'executions']) {
        const response = await editor.goto(url(`${pages()}/${tab}`));
        expect(response?.status(), tab).toBe(403);
        expect(await mainText(editor)).toContain('does not manage automation');
      }
      await expectAccessible(editor);

      // Every row count, and the triggers and endpoints whole (a rename, a soft delete or a new secret changes a row).
      const snapshot = async () =>
        JSON.stringify([
          await automationCounts(auto.gateway, auto.workspaceId),
          await auto.gateway.db.query('SELECT * FROM automation_triggers WHERE workspace_id = $1 ORDER BY id', [auto.workspaceId]),
          await auto.gateway.db.query('SELECT * FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY id', [auto.workspaceId]),
        ]);
      const before = await snapshot();
      const csrf = await csrfOf(editor);
      const attempts: Array<[string, Record<string, string>]> = [
        [`${pages()}/triggers`, { csrf, name: 'Sneaky', enabled: 'on', when: 'event', event_type: 'form.submitted', action: 'webhook' }],
        [`${pages()}/triggers/${triggerId}/enabled`, { csrf, enabled: 'off' }],
        [`${pages()}/triggers/${triggerId}/edit`, { csrf, name: 'Renamed', when: 'event', event_type: '*', action: 'webhook' }],
        [`${pages()}/triggers/${triggerId}/delete`, { csrf, confirm: 'yes' }],
        [`${pages()}/endpoints`, { csrf, url: receiver.url }],
        [`${pages()}/endpoints/${endpointId}/rotate-secret`, { csrf }],
        [`${pages()}/endpoints/${endpointId}/delete`, { csrf, confirm: 'yes' }],
      ];
      for (const [action, fields] of attempts) {
        const response = await postFrom(editor, url(action), fields);
        expect(response.status(), action).toBe(403);
        expect(await editor.getByRole('heading', { level: 1 }).innerText()).toBe('Not allowed');
      }
      expect(await snapshot()).toBe(before);
    } finally {
      await editor.context().close();
    }
  });
});
