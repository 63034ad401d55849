/**
 * Decisions are confirmed only by people (spec 4.3 rule 8): the review form's post is refused without the session's
 * CSRF token, with a bearer token instead of a session, from another origin, from another account's session and from
 * a member whose role does not write, each with no review stored; no REST route or MCP tool confirms a decision; and
 * an agent writing `status: accepted` into a decision note through the governed write path leaves it a candidate.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../src/domains/knowledge/index.ts';
import type { ContextScope } from '../src/domains/scopes/index.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { hashOf, seedNotes } from './support/rest-transactions.ts';

const PASSWORD = 'a long review password';
const PATH = 'Decisions/ADR-7 Tiles.md';
const NOTE = (status: string) => `---\ntype: decision\nstatus: ${status}\ndecided: 2026-11-20\n---\n# ADR-7: Map tiles cached per device\n`;

describe('only a signed-in person reviews a decision, on the workspace page', () => {
  let gateway: TestGateway;
  let owner: { accountId: string; token: string; mappingId: string; email: string };
  let scope: ContextScope;
  let person: PageBrowser;
  let csrf: string;
  let decisionId: string;

  const reviews = async () => gateway.db.query('SELECT * FROM decision_reviews ORDER BY id');
  const reviewPath = () => `/workspace/vaults/${owner.mappingId}/scopes/${scope.id}/decisions/${decisionId}/review`;
  const decisionPath = () => `/workspace/vaults/${owner.mappingId}/scopes/${scope.id}/decisions/${decisionId}`;

  /** The decision as an agent reads it through the scope with the owner's token. */
  async function asAgentSees(): Promise<Decision> {
    const agent = await gateway.services.tokens.authenticate(owner.token);
    const { slice } = await gateway.services.scopes.authorize(agent.actor, owner.mappingId, scope.id);
    const page = await gateway.services.knowledge.decisions(slice, { recordId: decisionId, statuses: ['confirmed', 'superseded', 'rejected', 'candidate'] });
    return page.items[0]!;
  }

  async function mcp(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await response.json()) as Record<string, unknown>;
  }

  async function signedIn(email: string): Promise<PageBrowser> {
    const browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
    return browser;
  }

  /** Sends a post that must change nothing: no review stored, the decision still a candidate. */
  async function expectRefused(send: () => Promise<Response>, status: number, location?: RegExp): Promise<string> {
    const before = await reviews();
    const response = await send();
    expect(response.status).toBe(status);
    if (location) expect(response.headers.get('location')).toMatch(location);
    expect(await reviews()).toEqual(before);
    expect(await asAgentSees()).toMatchObject({ status: 'candidate', candidate: true, review: null });
    return response.text();
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `reviewer-${randomBytes(4).toString('hex')}@example.test`;
    const made = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    await gateway.services.accounts.setPlan(made.accountId, 'team');
    owner = { accountId: made.accountId, token: made.token, mappingId: made.mapping.id, email };
    await seedNotes(restClient(gateway, owner.token), owner.mappingId, { [PATH]: NOTE('proposed') });
    scope = await gateway.services.scopes.create({ accountId: owner.accountId, credentialKind: 'session' }, owner.mappingId, {
      name: 'Decisions',
      pathPrefixes: ['Decisions'],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    const agent = await gateway.services.tokens.authenticate(owner.token);
    const { slice } = await gateway.services.scopes.authorize(agent.actor, owner.mappingId, scope.id);
    decisionId = (await gateway.services.knowledge.decisions(slice, {})).items[0]!.id;
    person = await signedIn(email);
    const page = await (await person.get(decisionPath())).text();
    expect(page).toContain(`action="${reviewPath()}"`);
    csrf = hiddenField(page, 'csrf');
  });

  afterAll(() => gateway?.stop());

  it('refuses a post without the CSRF token, or with another one', async () => {
    expect(await expectRefused(() => person.post(reviewPath(), { verdict: 'confirmed', comment: 'forged' }), 403)).toContain('Nothing was changed.');
    await expectRefused(() => person.post(reviewPath(), { csrf: `${csrf.slice(0, -1)}x`, verdict: 'confirmed' }), 403);
  });

  it('refuses a bearer token instead of a session: a personal access token is sent to sign in', async () => {
    const tokenOnly = pageBrowser(gateway.baseUrl);
    await expectRefused(() => tokenOnly.post(reviewPath(), { csrf, verdict: 'confirmed' }, { authorization: `Bearer ${owner.token}` }), 303, /^\/signin\?/);
  });

  it('refuses a post from another origin, even with the session and its token', async () => {
    await expectRefused(() => person.post(reviewPath(), { csrf, verdict: 'confirmed' }, { origin: 'https://attacker.example' }), 403);
  });

  it("refuses another account's session as for a vault that does not exist, and a member whose role does not write", async () => {
    const strangerEmail = `stranger-${randomBytes(4).toString('hex')}@example.test`;
    await gateway.services.onboarding.bootstrapOwner({ email: strangerEmail, password: PASSWORD });
    const stranger = await signedIn(strangerEmail);
    const strangerCsrf = hiddenField(await (await stranger.get('/workspace')).text(), 'csrf');
    expect(await expectRefused(() => stranger.post(reviewPath(), { csrf: strangerCsrf, verdict: 'confirmed' }), 404)).toContain('No such vault.');
    expect((await stranger.get(decisionPath())).status).toBe(404);

    // A viewer of the workspace reads the scope but is not offered the forms, and a forged post is refused.
    const viewerEmail = `viewer-${randomBytes(4).toString('hex')}@example.test`;
    const v = await gateway.services.onboarding.bootstrapOwner({ email: viewerEmail, password: PASSWORD });
    const mapping = await gateway.services.vaults.resolveHostedMapping(owner.accountId, owner.mappingId, 'read');
    const { token } = await gateway.services.membership.invite(owner.accountId, mapping.workspaceId, 'viewer');
    await gateway.services.membership.acceptInvitation(v.accountId, token);
    const viewer = await signedIn(viewerEmail);
    const viewerPage = await (await viewer.get(decisionPath())).text();
    expect(viewerPage).toContain('Your role in this workspace does not allow reviewing decisions.');
    expect(viewerPage).not.toContain(`action="${reviewPath()}"`);
    const viewerCsrf = hiddenField(viewerPage, 'csrf');
    expect(await expectRefused(() => viewer.post(reviewPath(), { csrf: viewerCsrf, verdict: 'confirmed' }), 403)).toContain('does not allow reviewing decisions');
  });

  it('publishes no REST route and no MCP tool that reviews a decision', async () => {
    const tools = ((await mcp('tools/list', {})).result as { tools: Array<{ name: string; description?: string }> }).tools;
    expect(tools.length).toBeGreaterThan(10);
    // Whole words of tool names: preview_note_writes previews, it does not review.
    expect(tools.filter((t) => /(^|_)(confirm|review|reject|supersede|approve|verdict)/i.test(t.name)).map((t) => t.name)).toEqual([]);
    const before = await reviews();
    for (const name of ['confirm_decision', 'review_decision']) {
      const called = await mcp('tools/call', { name, arguments: { mappingId: owner.mappingId, contextScopeId: scope.id, decisionId, verdict: 'confirmed' } });
      expect(JSON.stringify(called)).toMatch(/"isError":true|"error":/);
    }

    const openapi = (await (await fetch(`${gateway.url}/api/dev/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const writes = Object.entries(openapi.paths).flatMap(([path, methods]) => Object.keys(methods).filter((m) => m !== 'get').map((m) => `${m} ${path}`));
    expect(writes.filter((w) => /decision|confirm|review|verdict/i.test(w))).toEqual([]);
    const api = restClient(gateway, owner.token);
    for (const path of [`/decisions/${decisionId}/confirm`, '/decisions/confirm', `/knowledge/decisions/${decisionId}/confirm`, `/knowledge/decisions/${decisionId}/review`, '/knowledge/decisions/review']) {
      const response = await api.post(path, { json: { mappingId: owner.mappingId, contextScopeId: scope.id, decisionId, verdict: 'confirmed' } });
      expect([path, response.status]).toEqual([path, 404]);
    }
    expect(await reviews()).toEqual(before);
    expect(await asAgentSees()).toMatchObject({ status: 'candidate' });
  });

  it("leaves a decision a candidate when an agent writes 'status: accepted' into its note through the governed path", async () => {
    const applied = await mcp('tools/call', {
      name: 'apply_note_writes',
      arguments: { mappingId: owner.mappingId, idempotencyKey: `agent-${randomBytes(4).toString('hex')}`, notes: [{ path: PATH, content: NOTE('accepted'), expectedHash: hashOf(NOTE('proposed')) }] },
    });
    expect(JSON.stringify(applied)).not.toContain('"isError":true');
    expect(await asAgentSees()).toMatchObject({ status: 'candidate', candidate: true, statusInNote: 'accepted', review: null });
    expect(await reviews()).toEqual([]);
    const page = await (await person.get(`/workspace/vaults/${owner.mappingId}/scopes/${scope.id}/decisions`)).text();
    expect(page).toContain('candidate — not confirmed');
  });

  it('stores a review from the person with the token, and an agent editing the decision afterwards makes it a candidate again', async () => {
    const confirmed = await person.post(reviewPath(), { csrf, verdict: 'confirmed', comment: 'Yes', back: 'decision' });
    expect([confirmed.status, confirmed.headers.get('location')]).toEqual([303, `${decisionPath()}#review`]);
    expect(await reviews()).toHaveLength(1);
    expect(await asAgentSees()).toMatchObject({ status: 'confirmed', candidate: false, review: { verdict: 'confirmed', comment: 'Yes' } });

    // The review holds for the decision as reviewed: an agent changing it does not carry the confirmation along.
    const edited = await mcp('tools/call', {
      name: 'apply_note_writes',
      arguments: { mappingId: owner.mappingId, idempotencyKey: `agent-${randomBytes(4).toString('hex')}`, notes: [{ path: PATH, content: NOTE('accepted').replace('2026-11-20', '2026-11-21'), expectedHash: hashOf(NOTE('accepted')) }] },
    });
    expect(JSON.stringify(edited)).not.toContain('"isError":true');
    expect(await asAgentSees()).toMatchObject({ status: 'candidate', candidate: true, review: null });
    expect(await (await person.get(decisionPath())).text()).toMatch(/no: the note changed the decision since/);
  });
});
