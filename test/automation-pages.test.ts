/**
 * The automation pages over fetch (docs/workspace.md, "Automation pages"): who may open them (owners and admins; an
 * editor or a viewer gets the 403 page, someone outside the workspace the 404 page, as for one that does not exist),
 * the CSRF and Origin checks of every form, forms refused for their content (shown again as written, with the stable
 * code, nothing stored), a trigger changed meanwhile (409, shown as it is now), deletions without their confirmation,
 * and an endpoint's secret: on the answer to the form only, not cached, not in a redirect, never on a later page.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { automationCounts, startAutomationGateway, type AutomationGateway, type AutomationMember } from './support/automation-gateway.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';

describe('the automation pages', () => {
  let auto: AutomationGateway;
  const people = new Map<string, PageBrowser>();
  let outsider: PageBrowser;
  let triggerId: string;
  const pages = () => `/workspace/automation/${auto.workspaceId}`;
  const TABS = ['triggers', 'endpoints', 'runs', 'executions'];

  async function signedIn(email: string, password: string): Promise<PageBrowser> {
    const browser = pageBrowser(auto.gateway.baseUrl);
    expect((await signInThroughForm(browser, email, password)).status).toBe(303);
    return browser;
  }
  const as = (member: AutomationMember) => people.get(member.role)!;
  const csrfOf = async (browser: PageBrowser) => hiddenField(await (await browser.get('/workspace/automation')).text(), 'csrf');

  /** The triggers and endpoints whole, and every row count: equal before and after means nothing changed. */
  const snapshot = async () =>
    JSON.stringify([
      await automationCounts(auto.gateway, auto.workspaceId),
      await auto.gateway.db.query('SELECT * FROM automation_triggers WHERE workspace_id = $1 ORDER BY id', [auto.workspaceId]),
      await auto.gateway.db.query('SELECT * FROM webhook_endpoints WHERE workspace_id = $1 ORDER BY id', [auto.workspaceId]),
    ]);

  const triggerForm = (csrf: string, overrides: Record<string, string> = {}) => ({
    csrf,
    name: 'Forward forms',
    enabled: 'on',
    when: 'event',
    event_type: 'form.submitted',
    conditions: 'data.form=contact',
    every_minutes: '60',
    action: 'webhook',
    ...overrides,
  });

  beforeAll(async () => {
    auto = await startAutomationGateway();
    for (const member of auto.members) people.set(member.role, await signedIn(member.email, member.password));
    const email = `outsider-${randomBytes(4).toString('hex')}@example.test`;
    const password = `pw-${randomBytes(12).toString('hex')}`;
    await auto.gateway.services.onboarding.bootstrapOwner({ email, password });
    outsider = await signedIn(email, password);
    const made = await auto.admin.api.post<{ trigger: { id: string } }>('/triggers', {
      json: { workspaceId: auto.workspaceId, name: 'Existing', when: { eventType: 'form.*' }, action: { kind: 'webhook' } },
    });
    expect(made.status, made.text).toBe(200);
    triggerId = made.body.trigger.id;
  });

  afterAll(() => auto?.stop());

  it('opens every page for owners and admins; editors and viewers get 403 saying why, outsiders and unknown ids 404', async () => {
    for (const member of [auto.owner, auto.admin]) {
      for (const tab of TABS) expect((await as(member).get(`${pages()}/${tab}`)).status, `${member.role} ${tab}`).toBe(200);
    }
    for (const member of [auto.editor, auto.viewer]) {
      const home = await (await as(member).get('/workspace/automation')).text();
      expect(home).toContain(`Your role (${member.role}) does not manage automation`);
      expect(home).not.toContain(`href="${pages()}/triggers"`);
      for (const tab of TABS) {
        const response = await as(member).get(`${pages()}/${tab}`);
        expect(response.status, `${member.role} ${tab}`).toBe(403);
        expect(await response.text()).toContain('does not manage automation');
      }
    }
    const refusals = [
      () => outsider.get(`${pages()}/triggers`),
      () => outsider.get(`${pages()}/runs`),
      () => as(auto.admin).get(`/workspace/automation/00000000-0000-4000-8000-000000000000/triggers`),
      () => as(auto.admin).get(`${pages()}/triggers/00000000-0000-4000-8000-000000000000/edit`),
    ];
    for (const refusal of refusals) expect((await refusal()).status).toBe(404);
    // Signed out: off to sign in.
    expect((await pageBrowser(auto.gateway.baseUrl).get(`${pages()}/triggers`)).status).toBe(303);
  });

  it('refuses a form without the session’s CSRF token, from another origin, or of an editor or outsider; nothing is stored', async () => {
    const before = await snapshot();
    const csrf = await csrfOf(as(auto.admin));
    const attempts: Array<[() => Promise<Response>, number]> = [
      [() => as(auto.admin).post(`${pages()}/triggers`, triggerForm('')), 403],
      [() => as(auto.admin).post(`${pages()}/triggers`, triggerForm('not-the-token')), 403],
      [() => as(auto.admin).post(`${pages()}/triggers`, triggerForm(csrf), { origin: 'https://evil.example' }), 403],
      [async () => as(auto.editor).post(`${pages()}/triggers`, triggerForm(await csrfOf(as(auto.editor)))), 403],
      [async () => as(auto.viewer).post(`${pages()}/triggers/${triggerId}/delete`, { csrf: await csrfOf(as(auto.viewer)), confirm: 'yes' }), 403],
      [async () => as(auto.editor).post(`${pages()}/endpoints`, { csrf: await csrfOf(as(auto.editor)), url: 'https://hooks.example.com/x' }), 403],
      [async () => outsider.post(`${pages()}/triggers/${triggerId}/enabled`, { csrf: await csrfOf(outsider), enabled: 'off' }), 404],
    ];
    for (const [attempt, status] of attempts) expect((await attempt()).status).toBe(status);
    expect(await snapshot()).toBe(before);
  });

  it('shows a refused trigger form again as written with why, and stores nothing', async () => {
    const before = await snapshot();
    const csrf = await csrfOf(as(auto.admin));
    const cases: Array<[Record<string, string>, number, string]> = [
      [triggerForm(csrf, { name: 'Bad type <b>', event_type: 'Not A Type' }), 400, 'invalid_request'],
      [triggerForm(csrf, { name: 'Bad line', conditions: 'no equals sign here' }), 400, 'invalid_request'],
      [triggerForm(csrf, { name: 'Bad minutes', when: 'schedule', every_minutes: 'soon' }), 400, 'invalid_request'],
      [triggerForm(csrf, { name: 'No vault', action: 'propose', title: 'T', path: 'P.md', content: 'C' }), 400, 'invalid_request'],
      [triggerForm(csrf, { name: '' }), 400, 'invalid_request'],
    ];
    for (const [fields, status, code] of cases) {
      const response = await as(auto.admin).post(`${pages()}/triggers`, fields);
      expect(response.status, fields.name).toBe(status);
      const page = await response.text();
      expect(page).toContain(`data-code="${code}"`);
      expect(page).toContain('Nothing was changed.');
      if (fields.name) expect(page).toContain(`value="${fields.name.replace('<', '&lt;').replace('>', '&gt;')}"`);
    }
    expect(await snapshot()).toBe(before);
  });

  it('refuses an edit made from an older version (409, shown as it is now) and a delete without its confirmation', async () => {
    const csrf = await csrfOf(as(auto.admin));
    const renamed = await as(auto.admin).post(`${pages()}/triggers/${triggerId}/edit`, triggerForm(csrf, { name: 'Renamed once', expected_version: '1' }));
    expect(renamed.status).toBe(303);
    const before = await snapshot();
    const stale = await as(auto.admin).post(`${pages()}/triggers/${triggerId}/edit`, triggerForm(csrf, { name: 'Renamed from a stale page', expected_version: '1' }));
    expect(stale.status).toBe(409);
    const page = await stale.text();
    expect(page).toContain('data-code="conflict"');
    expect(page).toContain('value="Renamed once"');
    const toggle = await as(auto.admin).post(`${pages()}/triggers/${triggerId}/enabled`, { csrf, enabled: 'off', expected_version: '1' });
    expect(toggle.status).toBe(409);
    const unconfirmed = await as(auto.admin).post(`${pages()}/triggers/${triggerId}/delete`, { csrf });
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.text()).toContain('Tick the box');
    expect(await snapshot()).toBe(before);
  });

  it('refuses an endpoint that is not https with the form as written; shows a new secret only on the answer to the form', async () => {
    const csrf = await csrfOf(as(auto.admin));
    const before = await snapshot();
    const refused = await as(auto.admin).post(`${pages()}/endpoints`, { csrf, url: 'http://hooks.example.com/plain', description: 'plain', event_types: 'form.*' });
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain('data-code="endpoint_url_refused"');
    expect(page).toContain('value="http://hooks.example.com/plain"');
    expect(await snapshot()).toBe(before);

    const made = await as(auto.admin).post(`${pages()}/endpoints`, { csrf, url: 'https://127.0.0.1:9/hook', description: 'local', event_types: 'form.* proposal.executed' });
    expect(made.status).toBe(200);
    expect(made.headers.get('location')).toBeNull();
    expect(made.headers.get('cache-control')).toBe('no-store');
    const secret = /<code class="secret" id="new-secret">([^<]+)<\/code>/.exec(await made.text())?.[1];
    expect(secret).toMatch(/^whsec_/);
    const stored = await auto.gateway.db.query<{ id: string }>('SELECT id FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL', [auto.workspaceId]);
    expect(stored).toHaveLength(1);
    for (const path of TABS.map((tab) => `${pages()}/${tab}`)) expect(await (await as(auto.admin).get(path)).text()).not.toContain(secret!);

    const endpointId = stored[0]!.id;
    const unconfirmed = await as(auto.admin).post(`${pages()}/endpoints/${endpointId}/delete`, { csrf });
    expect(unconfirmed.status).toBe(400);
    const deleted = await as(auto.admin).post(`${pages()}/endpoints/${endpointId}/delete`, { csrf, confirm: 'yes' });
    expect(deleted.status).toBe(303);
    expect((await auto.gateway.db.query('SELECT id FROM webhook_endpoints WHERE workspace_id = $1 AND deleted_at IS NULL', [auto.workspaceId])).length).toBe(0);
  });

  it('refuses a run filter that is not a state', async () => {
    expect((await as(auto.admin).get(`${pages()}/runs?state=finished`)).status).toBe(400);
  });
});
