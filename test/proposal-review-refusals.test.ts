/**
 * Only a signed-in person approves, rejects, applies or undoes a proposal, on its workspace page (spec 4.3 rule 8):
 * every step's post is refused without the session's CSRF token, with another one, from another origin, from another
 * account's session, from a viewer, and with a bearer credential (a personal access token, an OAuth token of each
 * scope) instead of a session; the proposals domain refuses every credential but a session too; no REST route or MCP
 * tool takes these steps. Each refusal leaves the proposal (state and steps), the notes, the trash and the events as
 * they were. A replayed apply (two at once, and another after it succeeded) applies once.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/kernel/principal.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { connect, newAccount, type TestAccount } from './support/oauth-flow.ts';
import { restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import { seedNotes } from './support/rest-transactions.ts';

const STEPS = ['approve', 'reject', 'execute', 'undo'] as const;
type Step = (typeof STEPS)[number];

describe('only a signed-in person takes a proposal’s steps, on its page', () => {
  let gateway: TestGateway;
  let owner: TestAccount;
  let api: RestClient;
  let person: PageBrowser;
  let csrf: string;
  /** The proposal each step is tried on: one in the state that step starts from. */
  const target: Partial<Record<Step, string>> = {};
  const bearers: Array<[string, string]> = [];
  let counter = 0;

  const pagePath = (id: string) => `/workspace/vaults/${owner.mappingId}/proposals/${id}`;

  /** A new proposal of a new note, made by a script with the owner's personal token. */
  async function proposal(): Promise<string> {
    counter += 1;
    const response = await api.post<{ proposal: { id: string } }>('/proposals', {
      json: { mappingId: owner.mappingId, title: `Add note ${counter}`, notes: [{ path: `Inbox/Note ${counter}.md`, content: `# Note ${counter}\n` }, { path: 'Inbox/Seed.md', content: `# Seed ${counter}\n` }] },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.proposal.id;
  }

  /** Takes a step as the person, through the page's form. */
  async function step(id: string, name: Step): Promise<Response> {
    return person.post(pagePath(id), { csrf, step: name });
  }

  /** Everything a step could change: the proposals and their steps, notes, trash and events. */
  async function everything(): Promise<string> {
    return JSON.stringify([
      await gateway.db.query('SELECT id, state, decided_at, executed_at, undone_at, failure, result FROM action_proposals ORDER BY seq'),
      await gateway.db.query('SELECT proposal_id, step, from_state, to_state FROM action_proposal_steps ORDER BY seq'),
      await snapshotOf(gateway),
    ]);
  }

  async function signedIn(email: string, password: string): Promise<PageBrowser> {
    const browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, password)).status).toBe(303);
    return browser;
  }

  /** Sends a post that must change nothing; returns its page. */
  async function expectRefused(send: () => Promise<Response>, status: number, location?: RegExp): Promise<string> {
    const before = await everything();
    const response = await send();
    expect(response.status).toBe(status);
    if (location) expect(response.headers.get('location')).toMatch(location);
    expect(await everything()).toBe(before);
    return response.text();
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await newAccount(gateway, 'reviewer');
    await gateway.services.accounts.setPlan(owner.accountId, 'team');
    api = restClient(gateway, owner.personalToken);
    await seedNotes(api, owner.mappingId, { 'Inbox/Seed.md': '# Seed\n' });
    person = await signedIn(owner.email, owner.password);
    const list = await (await person.get(`/workspace/vaults/${owner.mappingId}/proposals`)).text();
    csrf = hiddenField(list, 'csrf');

    target.approve = await proposal();
    target.reject = await proposal();
    target.execute = await proposal();
    expect((await step(target.execute, 'approve')).status).toBe(303);
    target.undo = await proposal();
    expect((await step(target.undo, 'approve')).status).toBe(303);
    expect((await step(target.undo, 'execute')).status).toBe(303);
    const states = await gateway.db.query<{ id: string; state: string }>('SELECT id, state FROM action_proposals');
    expect(Object.fromEntries(STEPS.map((s) => [s, states.find((r) => r.id === target[s])!.state]))).toEqual({ approve: 'proposed', reject: 'proposed', execute: 'approved', undo: 'executed' });

    bearers.push(['personal access token', owner.personalToken]);
    for (const scope of ['mcp:read', 'mcp:write', 'mcp:read mcp:write offline_access']) {
      bearers.push([`OAuth token (${scope})`, (await connect(gateway, owner, { scope })).tokens.access_token]);
    }
  });

  afterAll(() => gateway?.stop());

  it('refuses every step without the CSRF token, or with another one', async () => {
    for (const name of STEPS) {
      expect(await expectRefused(() => person.post(pagePath(target[name]!), { step: name }), 403)).toContain('Nothing was changed.');
      await expectRefused(() => person.post(pagePath(target[name]!), { csrf: `${csrf.slice(0, -1)}${csrf.endsWith('x') ? 'y' : 'x'}`, step: name }), 403);
    }
  });

  it('refuses every step from another origin, even with the session and its token', async () => {
    for (const name of STEPS) {
      await expectRefused(() => person.post(pagePath(target[name]!), { csrf, step: name }, { origin: 'https://attacker.example' }), 403);
    }
  });

  it('refuses a bearer credential instead of a session: a personal access token or an OAuth token of any scope is sent to sign in', async () => {
    for (const [label, token] of bearers) {
      const tokenOnly = pageBrowser(gateway.baseUrl);
      for (const name of STEPS) {
        await expectRefused(() => tokenOnly.post(pagePath(target[name]!), { csrf, step: name }, { authorization: `Bearer ${token}` }), 303, /^\/signin\?/);
      }
      const read = await tokenOnly.get(pagePath(target.approve!), { authorization: `Bearer ${token}` });
      expect([label, read.status]).toEqual([label, 303]);
    }
  });

  it("refuses another account's session as for a vault that does not exist, and a viewer of the workspace", async () => {
    const stranger = await newAccount(gateway, 'stranger');
    const strangerBrowser = await signedIn(stranger.email, stranger.password);
    const strangerCsrf = hiddenField(await (await strangerBrowser.get('/workspace')).text(), 'csrf');
    for (const name of STEPS) {
      expect(await expectRefused(() => strangerBrowser.post(pagePath(target[name]!), { csrf: strangerCsrf, step: name }), 404)).toContain('No such vault.');
    }
    expect((await strangerBrowser.get(pagePath(target.approve!))).status).toBe(404);
    // The stranger's own vault does not hold the owner's proposal either.
    await expectRefused(() => strangerBrowser.post(`/workspace/vaults/${stranger.mappingId}/proposals/${target.approve!}`, { csrf: strangerCsrf, step: 'approve' }), 404);

    const viewerAccount = await newAccount(gateway, 'viewer');
    const mapping = await gateway.services.vaults.resolveHostedMapping(owner.accountId, owner.mappingId, 'read');
    const { token } = await gateway.services.membership.invite(owner.accountId, mapping.workspaceId, 'viewer');
    await gateway.services.membership.acceptInvitation(viewerAccount.accountId, token);
    const viewer = await signedIn(viewerAccount.email, viewerAccount.password);
    const viewerPage = await (await viewer.get(pagePath(target.approve!))).text();
    expect(viewerPage).toContain('Your role in this workspace does not allow deciding proposals.');
    expect(viewerPage).not.toContain('name="step"');
    const viewerCsrf = hiddenField(viewerPage, 'csrf');
    for (const name of STEPS) {
      await expectRefused(() => viewer.post(pagePath(target[name]!), { csrf: viewerCsrf, step: name }), 403);
    }
  });

  it('the proposals domain refuses every step to a token or a connected application, and no REST route or MCP tool takes one', async () => {
    const agents: Actor[] = [
      (await gateway.services.tokens.authenticate(owner.personalToken)).actor,
      { accountId: owner.accountId, credentialKind: 'oauth', credentialId: randomBytes(16).toString('hex'), client: 'An agent' },
    ];
    const before = await everything();
    for (const actor of agents) {
      for (const name of STEPS) {
        const call = name === 'approve' || name === 'reject' ? gateway.services.proposals[name](actor, owner.mappingId, target[name]!, 'by a token') : gateway.services.proposals[name](actor, owner.mappingId, target[name]!);
        await expect(call).rejects.toMatchObject({ code: 'forbidden' });
      }
    }
    for (const path of ['/proposals/approve', '/proposals/execute', `/proposals/${target.approve!}/approve`, '/proposals/item/approve', '/proposals/undo']) {
      const response = await api.post(path, { json: { mappingId: owner.mappingId, id: target.approve } });
      expect([path, response.status]).toEqual([path, 404]);
    }
    const listed = await fetch(`${gateway.url}/api/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.personalToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    const tools = ((await listed.json()) as { result: { tools: Array<{ name: string }> } }).result.tools.map((t) => t.name);
    expect(tools).toContain('propose_action');
    expect(tools.filter((name) => /(^|_)(approve|reject|execute|undo)/.test(name))).toEqual([]);
    expect(await everything()).toBe(before);
  });

  it('a step the state does not allow is shown on the page with why, nothing changed', async () => {
    const page = await expectRefused(() => step(target.approve!, 'execute'), 409);
    expect(page).toContain('This proposal is proposed; it cannot be executed now. Nothing was changed.');
    expect(await expectRefused(() => step(target.approve!, 'dance' as Step), 400)).toContain('Choose Approve, Reject, Apply or Undo.');
    await expectRefused(() => person.post(pagePath(target.approve!), { csrf, step: 'approve', comment: 'x'.repeat(4001) }), 400);
    await expectRefused(() => step('not-a-proposal', 'approve'), 404);
  });

  it('applies a replayed execution once: two posts at once and another after success leave one set of note events and one execute step', async () => {
    const id = await proposal();
    expect((await step(id, 'approve')).status).toBe(303);
    const [first, second] = await Promise.all([step(id, 'execute'), step(id, 'execute')]);
    expect([first.status, second.status]).toEqual([303, 303]);
    const again = await step(id, 'execute');
    expect(again.status).toBe(303);
    expect(again.headers.get('location')).toBe(`${pagePath(id)}#state`);
    const steps = await gateway.db.query<{ step: string }>('SELECT step FROM action_proposal_steps WHERE proposal_id = $1 ORDER BY seq', [id]);
    expect(steps.map((s) => s.step)).toEqual(['propose', 'approve', 'execute']);
    const noteEvents = await gateway.db.query<{ kind: string; path: string }>('SELECT kind, path FROM provenance_events WHERE idempotency_key = $1 ORDER BY seq', [`proposal:${id}`]);
    expect(noteEvents.map((e) => e.kind).sort()).toEqual(['note.created', 'note.updated']);
    expect((await gateway.db.query<{ state: string }>('SELECT state FROM action_proposals WHERE id = $1', [id]))[0]!.state).toBe('executed');
    const executed = await gateway.db.query('SELECT 1 FROM provenance_events WHERE kind = $1 AND details->>\'proposalId\' = $2', ['proposal.executed', id]);
    expect(executed).toHaveLength(1);
  });
});
