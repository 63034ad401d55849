/**
 * The proposals list over fetch: waiting proposals first, then approved ones, then the rest; each section paged with
 * the domain's cursor (a cursor the domain did not make is refused); a title holding markup is shown as text; a
 * viewer reads the proposals without the forms that take steps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_PROPOSAL_PAGE } from '../src/domains/proposals/index.ts';
import type { Actor } from '../src/kernel/principal.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { decodeHtml } from './support/html-forms.ts';
import { newAccount, type TestAccount } from './support/oauth-flow.ts';

describe('the proposals list', () => {
  let gateway: TestGateway;
  let owner: TestAccount;
  let agent: Actor;
  let person: PageBrowser;
  const listPath = () => `/workspace/vaults/${owner.mappingId}/proposals`;

  /** A script's proposal of one new note. */
  async function propose(title: string, path: string): Promise<string> {
    const { proposal } = await gateway.services.proposals.propose({ actor: agent, capability: 'direct', mappingId: owner.mappingId, kind: 'action', title, writes: [{ path, content: `# ${title}\n` }], deletions: [] });
    return proposal.id;
  }

  /** The proposal links of a page, in order, by section heading. */
  function sections(page: string): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const match of page.matchAll(/<section[^>]*><h2[^>]*>([^<]*)<\/h2>([\s\S]*?)<\/section>/g)) {
      out[decodeHtml(match[1]!)] = [...match[2]!.matchAll(/<th scope="row"><a href="[^"]*">([^<]*)<\/a>/g)].map((m) => decodeHtml(m[1]!));
    }
    return out;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await newAccount(gateway, 'lister');
    agent = (await gateway.services.tokens.authenticate(owner.personalToken)).actor;
    person = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(person, owner.email, owner.password)).status).toBe(303);
  });

  afterAll(() => gateway?.stop());

  it('shows waiting proposals first, then approved ones, then the rest, each paged with its own cursor', async () => {
    const session: Actor = { accountId: owner.accountId, credentialKind: 'session' };
    const rejected = await propose('Rejected one', 'Inbox/rejected.md');
    await gateway.services.proposals.reject(session, owner.mappingId, rejected, 'no');
    const approved = await propose('Approved one', 'Inbox/approved.md');
    await gateway.services.proposals.approve(session, owner.mappingId, approved);
    for (let i = 0; i < 52; i += 1) await propose(`Waiting ${String(i).padStart(2, '0')}`, `Inbox/waiting-${i}.md`);

    const first = await (await person.get(listPath())).text();
    const shown = sections(first);
    expect(Object.keys(shown)).toEqual(['Waiting for a person', 'Approved, not applied yet', 'Decided, applied or expired']);
    expect(shown['Waiting for a person']).toHaveLength(50);
    expect(shown['Waiting for a person']![0]).toBe('Waiting 51');
    expect(shown['Approved, not applied yet']).toEqual(['Approved one']);
    expect(shown['Decided, applied or expired']).toEqual(['Rejected one']);
    const more = decodeHtml(/<a href="([^"]*)" rel="next">More proposals<\/a>/.exec(first)![1]!);
    expect(more).toMatch(/\?pending=/);

    const second = sections(await (await person.get(more)).text());
    expect(second['Waiting for a person']).toEqual(['Waiting 01', 'Waiting 00']);
    expect(second['Approved, not applied yet']).toEqual(['Approved one']);

    const forged = await person.get(`${listPath()}?pending=${encodeURIComponent('not-a-cursor')}`);
    expect(forged.status).toBe(400);
    expect(MAX_PROPOSAL_PAGE).toBeGreaterThanOrEqual(50);
  });

  it('shows a title and a diff holding markup as text', async () => {
    const id = await propose('<img src=x onerror=alert(1)> tiles', "Inbox/Tom & Jerry's.md");
    const page = await (await person.get(`${listPath()}/${id}`)).text();
    expect(page).toContain('&lt;img src=x onerror=alert(1)&gt; tiles');
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('+# &lt;img src=x onerror=alert(1)&gt; tiles');
    expect(page).toContain('<code>Inbox/Tom &amp; Jerry&#39;s.md</code>');
  });

  it('lets a viewer read the proposals, without the forms that take steps', async () => {
    const id = await propose('For the viewer', 'Inbox/viewer.md');
    await gateway.services.accounts.setPlan(owner.accountId, 'team');
    const viewerAccount = await newAccount(gateway, 'list-viewer');
    const mapping = await gateway.services.vaults.resolveHostedMapping(owner.accountId, owner.mappingId, 'read');
    const { token } = await gateway.services.membership.invite(owner.accountId, mapping.workspaceId, 'viewer');
    await gateway.services.membership.acceptInvitation(viewerAccount.accountId, token);
    const viewer = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(viewer, viewerAccount.email, viewerAccount.password)).status).toBe(303);
    const list = await viewer.get(listPath());
    expect(list.status).toBe(200);
    expect(sections(await list.text())['Waiting for a person']![0]).toBe('For the viewer');
    const page = await (await viewer.get(`${listPath()}/${id}`)).text();
    expect(page).toContain('Your role in this workspace does not allow deciding proposals.');
    expect(page).not.toContain('name="step"');
    expect(hiddenField(page, 'csrf').length).toBeGreaterThan(20);
  });
});
