/**
 * The knowledge pages' bounds and escaping, as a browser fetches them: long lists come a page at a time with a
 * "more" link that follows the domain's cursor to the end, a cursor the service did not make is refused, and text
 * from notes is shown as text.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHtml } from './support/html-forms.ts';
import { pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { seedNotes } from './support/rest-transactions.ts';

const PASSWORD = 'a long pages password';
const callouts = (n: number) => Array.from({ length: n }, (_, i) => `> [!decision] Decision ${String(i).padStart(3, '0')}\n> Why ${i}.\n`).join('\n');
const tasks = (n: number) => Array.from({ length: n }, (_, i) => `- [ ] Task ${String(i).padStart(3, '0')} [owner:: Ana] 📅 2099-01-${String((i % 28) + 1).padStart(2, '0')}`).join('\n');
const HOSTILE = `---\ntype: decision\nstatus: proposed\nsubject: "<img src=x onerror=alert(1)>"\n---\n# <script>alert('title')</script>\n\n- [ ] <b onclick="x()">bold</b> [owner:: <i>me</i>] 📅 2000-01-01\n`;

describe('the knowledge pages, a page at a time', () => {
  let gateway: TestGateway;
  let mappingId: string;
  let scopeId: string;
  let browser: PageBrowser;

  /** Follows "more" links from `path`; returns each page's HTML. */
  async function allPages(path: string): Promise<string[]> {
    const pages: string[] = [];
    for (let next: string | undefined = path; next !== undefined; ) {
      const response = await browser.get(next);
      expect(response.status).toBe(200);
      const html = await response.text();
      pages.push(html);
      const more = /<a href="([^"]+)" rel="next">/.exec(html);
      next = more ? decodeHtml(more[1]!) : undefined;
      expect(pages.length).toBeLessThan(10);
    }
    return pages;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const email = `pages-${randomBytes(4).toString('hex')}@example.test`;
    const made = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    mappingId = made.mapping.id;
    await seedNotes(restClient(gateway, made.token), mappingId, { 'Many/Decisions.md': `# Many\n\n${callouts(55)}`, 'Many/Tasks.md': `# Tasks\n\n${tasks(105)}\n`, 'Many/A Hostile.md': HOSTILE });
    const scope = await gateway.services.scopes.create({ accountId: made.accountId, credentialKind: 'session' }, mappingId, {
      name: 'Many',
      pathPrefixes: ['Many'],
      tags: [],
      audience: { minimumRole: 'viewer', agents: false },
    });
    scopeId = scope.id;
    browser = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(browser, email, PASSWORD)).status).toBe(303);
  });

  afterAll(() => gateway?.stop());

  it('shows 50 decisions a page, and the "more" link leads through the rest, each once', async () => {
    const pages = await allPages(`/workspace/vaults/${mappingId}/scopes/${scopeId}/decisions`);
    // 55 callouts and the hostile note's decision.
    expect(pages.map((html) => (html.match(/<li class="record/g) ?? []).length)).toEqual([50, 6]);
    const titles = pages.flatMap((html) => [...html.matchAll(/<strong>(Decision \d{3})<\/strong>/g)].map((m) => m[1]));
    expect(new Set(titles).size).toBe(55);
    expect(pages[0]).toContain('There are more decisions than this page shows.');
    expect(pages[1]).not.toContain('There are more decisions');
  });

  it('shows 100 commitments a page, by owner, and the rest on the next', async () => {
    const pages = await allPages(`/workspace/vaults/${mappingId}/scopes/${scopeId}/commitments`);
    // 105 tasks and the hostile note's, each row with its evidence link.
    expect(pages.map((html) => (html.match(/#L\d+">/g) ?? []).length)).toEqual([100, 6]);
    expect(new Set(pages.flatMap((html) => html.match(/Task \d{3}/g) ?? [])).size).toBe(105);
    expect(pages[0]).toContain('Owners are grouped on each page; the next page may hold more of each.');
  });

  it('refuses a cursor the service did not make', async () => {
    const response = await browser.get(`/workspace/vaults/${mappingId}/scopes/${scopeId}/decisions?after=bm90LWEtY3Vyc29y`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('The cursor is not one this service returned.');
  });

  it('shows text from notes as text', async () => {
    const decisions = await (await browser.get(`/workspace/vaults/${mappingId}/scopes/${scopeId}/decisions?status=candidate`)).text();
    expect(decisions).toContain('&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;');
    expect(decisions).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(decisions).not.toMatch(/<script>alert|<img src=x/);
    const commitments = await (await browser.get(`/workspace/vaults/${mappingId}/scopes/${scopeId}/commitments`)).text();
    expect(commitments).toContain('&lt;b onclick=&quot;x()&quot;&gt;bold&lt;/b&gt;');
    expect(commitments).not.toMatch(/<b onclick|<i>me<\/i>/);
  });
});
