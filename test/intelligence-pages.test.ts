/**
 * The published intelligence pages over plain HTTP against a real gateway: the list of the packs a person is entitled
 * to (as a customer, as the organization's admin, none), the example pack k8-math at two cutoffs (the 2017 standards
 * before the 2023 revision was reported, the 2023 ones after it, the retracted calculator rule gone), changes since a
 * date, search, paging with the cursor, a pinned version; the same 404 for an unentitled person and an unknown pack;
 * bad dates and a from after the cutoff shown by their field with 400; pack text rendered as text. In Chromium:
 * intelligence-pages-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { CLAUSES, UNSAFE, publishTestPacks, type IntelligenceAccounts } from './support/intelligence-pages.ts';
import type { TestAccount } from './support/oauth-flow.ts';

let gateway: TestGateway;
let accounts: IntelligenceAccounts;
const browsers = new Map<string, PageBrowser>();

const K8 = '/account/intelligence/tutor/k8-math';

async function as(account: TestAccount): Promise<PageBrowser> {
  const known = browsers.get(account.email);
  if (known) return known;
  const web = pageBrowser(gateway.baseUrl);
  expect((await signInThroughForm(web, account.email, account.password)).status).toBe(303);
  browsers.set(account.email, web);
  return web;
}

/** A page's status and markup. */
async function open(account: TestAccount, path: string): Promise<{ status: number; page: string }> {
  const response = await (await as(account)).get(path);
  return { status: response.status, page: await response.text() };
}

/** The markup of one section of a pack's page (sources, assertions, insights, changes, search). */
function sectionOf(page: string, id: string): string {
  const match = new RegExp(`<section aria-labelledby="${id}-heading">([\\s\\S]*?)</section>`).exec(page);
  if (!match) throw new Error(`no section ${id} in the page`);
  return match[1]!;
}

/** The values of `data-<name>="..."` in markup, in order. */
const dataOf = (markup: string, name: string) => [...markup.matchAll(new RegExp(`data-${name}="([^"]*)"`, 'g'))].map((m) => m[1]!);

/** The text of `<main>`, tags dropped, for the same-page comparisons. */
const mainOf = (page: string) => /<main>([\s\S]*)<\/main>/.exec(page)![1]!;

beforeAll(async () => {
  gateway = await startTestGateway();
  accounts = await publishTestPacks(gateway);
});

afterAll(() => gateway?.stop());

describe('published intelligence pages', () => {
  it('lists the packs a person is entitled to, with how, and their versions newest first; none explains how packs are published', async () => {
    const { page, status } = await open(accounts.customer, '/account/intelligence');
    expect(status).toBe(200);
    expect(dataOf(page, 'pack')).toEqual(['tutor/clauses', 'tutor/k8-math', 'tutor/unsafe']);
    const k8 = /<li data-pack="tutor\/k8-math">([\s\S]*?)<\/li>/.exec(page)![1]!;
    expect(k8).toContain('Riverton K-8 mathematics standards and fractions guidance');
    expect(k8).toContain(`href="${K8}"`);
    expect(k8).toContain('<dd data-field="entitled-as">customer (installed)</dd>');
    expect(dataOf(k8, 'version')).toEqual(['2', '1']);
    expect(k8).toMatch(/data-version="2">[\s\S]*?an admin of the organization[\s\S]*?<td>2<\/td><td>12<\/td><td>2<\/td>/);
    expect(k8).toMatch(/data-version="1">[\s\S]*?the operator[\s\S]*?<td>2<\/td><td>12<\/td><td>0<\/td>/);

    const admin = await open(accounts.admin, '/account/intelligence');
    expect(admin.page).toContain('<dd data-field="entitled-as">admin of the organization</dd>');
    expect(admin.page).not.toContain('customer (installed)');

    const none = await open(accounts.stranger, '/account/intelligence');
    expect(none.status).toBe(200);
    expect(dataOf(none.page, 'pack')).toEqual([]);
    expect(none.page).toContain('data-field="no-packs"');
    expect(none.page).toContain('<code>kgate packs publish DIR</code>');
    expect(none.page).toContain('docs/packs.md');

    const signedOut = await pageBrowser(gateway.baseUrl).get(K8);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toMatch(/^\/signin/);
  });

  it('answers the pack at 2024-03-01 with the 2017 standards and not the 2023 ones', async () => {
    const { page, status } = await open(accounts.customer, `${K8}?asOf=2024-03-01`);
    expect(status).toBe(200);
    expect(page).toContain('id="asOf" name="asOf" value="2024-03-01"');
    expect(page).toContain('<dd data-field="version">2, published');

    const sources = sectionOf(page, 'sources');
    expect(dataOf(sources, 'source')).toEqual(['state-math-standards', 'fractions-guidance']);
    expect(dataOf(sources, 'source-version')).toEqual(['2017', '2024']);
    expect(sources).toContain('<a href="https://standards.riverton.example/mathematics/k-8" rel="noopener noreferrer">Riverton State Mathematics Standards, Grades K-8</a>');
    expect(sources).toMatch(/Version <strong>2017<\/strong> \(current\):\s+published <time datetime="2017-06-01">2017-06-01<\/time>, reported <time datetime="2024-01-15">2024-01-15<\/time>, extraction 1/);

    const assertions = sectionOf(page, 'assertions');
    expect(dataOf(assertions, 'assertion')).toEqual([
      'unit-fractions-g3',
      'number-line-g3',
      'compare-fractions-g3',
      'equivalent-fractions-g4',
      'ratio-language-g6',
      'calculators-g6-8',
      'length-models-first',
      'explain-before-rule',
    ]);
    expect(assertions).toContain('8 accepted assertions available.');
    expect(assertions).toContain('<blockquote data-field="quote">3.NF.1 Understand a fraction 1/b as the quantity formed by one part when a whole is partitioned into b equal parts.</blockquote>');
    expect(assertions).toContain('version <span data-field="source-version">2017</span>');
    expect(assertions).toContain('<span data-field="lines">line 7</span>');
    expect(page).not.toContain('2023');

    expect(dataOf(sectionOf(page, 'insights'), 'insight')).toEqual(['number-line-strand']);
    expect(sectionOf(page, 'insights')).toContain('1 insight available.');
  });

  it('answers it at 2024-09-01 with the 2023 standards, without what they superseded nor the calculators rule retracted on 2024-08-20', async () => {
    const { page, status } = await open(accounts.customer, `${K8}?asOf=2024-09-01`);
    expect(status).toBe(200);
    const sources = sectionOf(page, 'sources');
    expect(dataOf(sources, 'source-version')).toEqual(['2017', '2023', '2024']);
    expect(sources).toContain('current version <span data-field="current">2023</span>');
    expect(sources).toMatch(/Version <strong>2023<\/strong> \(current\):[\s\S]*?extraction 2/);

    const assertions = sectionOf(page, 'assertions');
    expect(dataOf(assertions, 'assertion')).toEqual([
      'equivalent-fractions-g4',
      'unit-fractions-g3-2023',
      'number-line-g3-2023',
      'compare-fractions-g3-2023',
      'ratio-language-g6-2023',
      'length-models-first',
      'explain-before-rule',
    ]);
    expect(assertions).toContain('supersedes <code>unit-fractions-g3</code>');
    expect(dataOf(sectionOf(page, 'insights'), 'insight')).toEqual(['fractions-above-one']);
    expect(page).not.toContain('calculators');

    // Version 1 has no insights; the version selector says which is shown.
    const first = await open(accounts.customer, `${K8}?asOf=2024-09-01&version=1`);
    expect(first.status).toBe(200);
    expect(first.page).toContain('<option value="1" selected>Version 1, published');
    expect(first.page).toContain('<dd data-field="version">1, published');
    expect(sectionOf(first.page, 'insights')).toContain('No insight was available on');
  });

  it('shows the changes since a date and ranked search results, both at the cutoff', async () => {
    const { page, status } = await open(accounts.customer, `${K8}?asOf=2024-09-01&from=2024-03-01&q=calculators`);
    expect(status).toBe(200);
    const changes = sectionOf(page, 'changes');
    expect(changes).toContain('value="2024-03-01"');
    const added = changes.slice(changes.indexOf('data-changes="added"'), changes.indexOf('data-changes="superseded"'));
    expect(new Set(dataOf(added, 'assertion'))).toEqual(new Set(['unit-fractions-g3-2023', 'number-line-g3-2023', 'compare-fractions-g3-2023', 'ratio-language-g6-2023']));
    expect(changes).toMatch(/data-changes="superseded">[\s\S]*?data-assertion="unit-fractions-g3"[\s\S]*?superseded on <time datetime="2024-08-20">2024-08-20<\/time> by <code>unit-fractions-g3-2023<\/code>/);
    expect(changes).toMatch(/data-changes="retracted"><li data-assertion="calculators-g6-8">[\s\S]*?retracted on <time datetime="2024-08-20">/);
    // No calculator rule is available on 2024-09-01 to find.
    expect(sectionOf(page, 'search')).toContain('No accepted assertion available on');

    const before = await open(accounts.customer, `${K8}?asOf=2024-03-01&q=calculators%20assessments`);
    const results = sectionOf(before.page, 'search');
    expect(dataOf(results, 'assertion')[0]).toBe('calculators-g6-8');
    expect(results).toContain('data-field="score"');
    // The cutoff form keeps the question, so a new date answers it again.
    expect(sectionOf(before.page, 'search')).toContain('id="q" name="q" value="calculators assessments"');
    expect(before.page).toContain('<input type="hidden" name="q" value="calculators assessments">');
  });

  it('pages the assertions with the cursor; a cursor of another cutoff is refused in its section', async () => {
    const path = '/account/intelligence/tutor/clauses';
    const first = await open(accounts.customer, `${path}?asOf=2024-02-01`);
    const firstPage = sectionOf(first.page, 'assertions');
    expect(firstPage).toContain(`${CLAUSES} accepted assertions available.`);
    expect(dataOf(firstPage, 'assertion')).toHaveLength(50);
    const more = /<a href="([^"]+)">More assertions<\/a>/.exec(firstPage)![1]!.replaceAll('&amp;', '&');
    expect(new URL(more, gateway.baseUrl).searchParams.get('asOf')).toBe('2024-02-01');
    const second = await open(accounts.customer, more);
    expect(second.status).toBe(200);
    const secondPage = sectionOf(second.page, 'assertions');
    expect(dataOf(secondPage, 'assertion')).toEqual(Array.from({ length: CLAUSES - 50 }, (_, i) => `clause-${51 + i}`));
    expect(secondPage).not.toContain('More assertions');
    expect(secondPage).toContain('First assertions');

    const cursor = new URL(more, gateway.baseUrl).searchParams.get('cursor')!;
    const other = await open(accounts.customer, `${path}?asOf=2024-03-01&cursor=${encodeURIComponent(cursor)}`);
    expect(other.status).toBe(400);
    expect(sectionOf(other.page, 'assertions')).toMatch(/role="alert" data-code="invalid_request" data-field="cursor">The cursor belongs to another asOf cutoff/);
    expect(dataOf(sectionOf(other.page, 'sources'), 'source')).toEqual(['clauses']);
  });

  it('answers an unentitled person, an unknown product and an unknown pack with the same 404; a version the pack lacks is 404', async () => {
    const refused = [
      await open(accounts.stranger, `${K8}?asOf=2024-09-01`),
      await open(accounts.stranger, `${K8}?asOf=not-a-date`),
      await open(accounts.customer, '/account/intelligence/nope/k8-math'),
      await open(accounts.customer, '/account/intelligence/tutor/nope'),
      await open(accounts.admin, '/account/intelligence/nope/k8-math?asOf=2024-09-01'),
    ];
    for (const { status, page } of refused) {
      expect(status).toBe(404);
      expect(mainOf(page)).toBe(mainOf(refused[0]!.page));
      expect(page).not.toContain('Riverton');
    }
    expect(refused[0]!.page).toContain('No such pack.');

    const missing = await open(accounts.customer, `${K8}?version=7`);
    expect(missing.status).toBe(404);
    expect(missing.page).toContain('This pack has no version 7.');
  });

  it('shows a bad date, a bad version and a from after the cutoff by their field with 400, not a crash', async () => {
    for (const asOf of ['2024-13-01', '2023-02-29', 'yesterday', '<script>x</script>']) {
      const { status, page } = await open(accounts.customer, `${K8}?asOf=${encodeURIComponent(asOf)}`);
      expect(status, asOf).toBe(400);
      expect(page).toMatch(/id="asOf" name="asOf" value="[^"]*" required aria-invalid="true" aria-describedby="asOf-error">/);
      expect(page).toContain('role="alert" id="asOf-error" data-code="invalid_request" data-field="asOf">The cutoff date');
      expect(page).toContain('write it as YYYY-MM-DD');
      expect(page).not.toContain('<section');
      expect(page).not.toContain('<script>x');
    }

    const version = await open(accounts.customer, `${K8}?asOf=2024-09-01&version=latest`);
    expect(version.status).toBe(400);
    expect(version.page).toContain('data-field="version">“latest” is not a version of the pack');

    const after = await open(accounts.customer, `${K8}?asOf=2024-03-01&from=2024-09-01`);
    expect(after.status).toBe(400);
    const changes = sectionOf(after.page, 'changes');
    expect(changes).toContain('id="from-error" data-code="invalid_request" data-field="from">The from date 2024-09-01 is after the cutoff 2024-03-01');
    expect(changes).toContain('aria-invalid="true" aria-describedby="from-error"');
    // The rest of the page still answers at the cutoff.
    expect(dataOf(sectionOf(after.page, 'assertions'), 'assertion')).toContain('unit-fractions-g3');

    const badFrom = await open(accounts.customer, `${K8}?asOf=2024-03-01&from=2024-3-1`);
    expect(badFrom.status).toBe(400);
    expect(sectionOf(badFrom.page, 'changes')).toContain('The from date “2024-3-1” is not a date');

    const question = await open(accounts.customer, `${K8}?asOf=2024-03-01&q=${'x'.repeat(501)}`);
    expect(question.status).toBe(400);
    expect(sectionOf(question.page, 'search')).toContain('data-field="question"');
  });

  it('renders pack text as text: markup in titles, statements, quotes and insights is escaped, a javascript: citation is no link', async () => {
    const { page, status } = await open(accounts.customer, '/account/intelligence/tutor/unsafe?asOf=2024-02-01&q=fractions');
    expect(status).toBe(200);
    const main = mainOf(page);
    expect(main).not.toMatch(/<script|<img|<em>|<b>|href="javascript:/i);
    for (const text of Object.values(UNSAFE)) expect(main).not.toContain(text);
    expect(page).toContain('<title>Unsafe &lt;em&gt;pack&lt;/em&gt; · kgate</title>');
    expect(main).toContain('<p data-field="statement">&lt;script&gt;window.ran = 1&lt;/script&gt;Fractions &amp; &quot;equal parts&quot;</p>');
    expect(main).toContain('<blockquote data-field="quote">&lt;b&gt;Clause&lt;/b&gt; one</blockquote>');
    expect(main).toContain('&lt;/li&gt;&lt;/ul&gt;&lt;script&gt;window.ran = 2&lt;/script&gt;');
    expect(main).toContain('&lt;img src=x onerror=&quot;window.ran = 1&quot;&gt;Standards <span class="muted">(javascript:window.ran=3)</span>');
    expect(dataOf(sectionOf(page, 'search'), 'assertion')).toEqual(['unsafe-assertion']);

    const list = await open(accounts.customer, '/account/intelligence');
    expect(list.page).toContain('Unsafe &lt;em&gt;pack&lt;/em&gt;');
    expect(mainOf(list.page)).not.toContain('<em>');
  });
});
