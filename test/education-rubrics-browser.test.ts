/**
 * The rubric drafts page in Chromium against a real gateway and the fake model: a product drafts a rubric and a
 * second version of it; its customer sees the latest version as a table of weighted criteria with descriptors by
 * level, every version with what changed in words, markup from the model as text, and marks a version reviewed. The
 * form's refusals in the browser: a stale form (the version was dismissed in another tab since) is a 409 page, and
 * a form posted from another site changes nothing. axe-core on the page.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modelEnvOf, startModelFake, type ModelFake } from './fakes/model/server.ts';
import { expectAccessible } from './support/axe.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { createRubricChain, draftRubric, modelRubric, rubricRequest, rubricState, type RubricChain } from './support/education-rubrics.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

const PAGE = '/account/products/rubrics';
const HOSTILE_TITLE = '<img src=x onerror="window.hacked=1"> Argument essay';

describe.skipIf(!chromiumAvailable)('the rubric drafts page in a real browser', () => {
  let fake: ModelFake;
  let gateway: TestGateway;
  let chain: RubricChain;
  let browser: Browser;
  let page: Page;
  let rubricId: string;
  let foreign: Server;

  beforeAll(async () => {
    fake = await startModelFake();
    gateway = await startTestGateway({ env: modelEnvOf(fake) });
    chain = await createRubricChain(gateway, 'rubric-page');
    fake.script({ kind: 'reply', text: JSON.stringify(modelRubric(HOSTILE_TITLE)) });
    const first = await draftRubric(gateway, chain.token, rubricRequest(), randomUUID());
    expect(first.status, JSON.stringify(first.body).slice(0, 400)).toBe(200);
    rubricId = (first.body.data as { rubricId: string }).rubricId;
    const revised = modelRubric('Argument essay');
    revised.criteria[0]!.weight = 30;
    revised.criteria[1]!.weight = 70;
    revised.criteria[1]!.descriptors[1]!.text = 'Cites two relevant facts, each with its source.';
    fake.script({ kind: 'reply', text: JSON.stringify(revised) });
    expect((await draftRubric(gateway, chain.token, rubricRequest({ rubricId }), randomUUID())).status).toBe(200);

    browser = await launchChromium();
    page = await signedInPage(browser, gateway.baseUrl, chain.customer.email, chain.customer.password);
    // Another site whose page posts the marking form to the gateway.
    foreign = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><form method="post" action="${gateway.baseUrl}${PAGE}/mark">
        <input type="hidden" name="rubric_id" value="${rubricId}"><input type="hidden" name="version" value="1">
        <input type="hidden" name="mark" value="dismissed"><input type="hidden" name="expected" value="none">
        <button type="submit">Win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (foreign ? foreign.close(() => resolve()) : resolve()));
    await gateway?.stop();
    await fake?.close();
  });

  it('shows the latest version by level, the versions in words, and the model\u2019s markup as text', async () => {
    await page.goto(`${gateway.baseUrl}${PAGE}`);
    const rubric = page.locator(`section[data-rubric="${rubricId}"]`);
    await expect.poll(() => rubric.getByRole('heading', { level: 3 }).innerText()).toBe('Argument essay');
    const table = rubric.locator('table.rubric').first();
    expect(await table.locator('thead th').allInnerTexts()).toEqual(['Criterion', 'Weight', 'Exceeds', 'Meets', 'Approaching', 'Standards']);
    expect(await table.locator('tr[data-criterion="Evidence"] [data-field=weight]').innerText()).toBe('70%');
    expect(await table.locator('tr[data-criterion="Evidence"] td[data-level="Meets"]').innerText()).toBe('Cites two relevant facts, each with its source.');
    const changes = await rubric.locator('li[data-version="2"] ul.changes li').allInnerTexts();
    expect(changes).toEqual([
      `Title changed from \u201c${HOSTILE_TITLE}\u201d to \u201cArgument essay\u201d.`,
      'Claim: weight changed from 40% to 30%.',
      'Evidence: weight changed from 60% to 70%.',
      'Evidence: reworded at Meets.',
    ]);
    // Version 1's title came from the model with markup: shown as text, never run.
    await rubric.locator('li[data-version="1"] summary').click();
    expect(await page.evaluate('typeof window.hacked')).toBe('undefined');
    expect(await page.locator('img[src=x]').count()).toBe(0);
    await expectAccessible(page);
  });

  it('marks a version reviewed, which changes nothing but the mark', async () => {
    await page.goto(`${gateway.baseUrl}${PAGE}`);
    const content = await gateway.db.query('SELECT content, ledger_id FROM education_rubric_versions ORDER BY version');
    await page.getByRole('button', { name: 'Mark reviewed: version 2' }).click();
    await page.waitForURL((url) => url.searchParams.get('notice') === 'reviewed');
    expect(await page.getByRole('status').innerText()).toContain('marked reviewed');
    expect(await page.locator('li[data-version="2"]').getAttribute('data-review')).toBe('reviewed');
    expect(await page.getByRole('button', { name: 'Mark reviewed: version 2' }).count()).toBe(0);
    const rows = await gateway.db.query<{ version: number; review: string | null; status: string }>('SELECT version, review, status FROM education_rubric_versions ORDER BY version');
    expect(rows).toEqual([{ version: 1, review: null, status: 'proposed' }, { version: 2, review: 'reviewed', status: 'proposed' }]);
    expect(await gateway.db.query('SELECT content, ledger_id FROM education_rubric_versions ORDER BY version')).toEqual(content);
    await expectAccessible(page);
  });

  it('refuses a stale form with a 409 page and a form from another site, changing nothing', async () => {
    const other = await page.context().newPage();
    await page.goto(`${gateway.baseUrl}${PAGE}`);
    await other.goto(`${gateway.baseUrl}${PAGE}`);
    await other.getByRole('button', { name: 'Dismiss: version 1' }).click();
    await other.waitForURL((url) => url.searchParams.get('notice') === 'dismissed');

    const before = await rubricState(gateway.db);
    const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(`${PAGE}/mark`)), page.getByRole('button', { name: 'Mark reviewed: version 1' }).click()]);
    expect(response.status()).toBe(409);
    expect(await page.locator('[role=alert][data-code=conflict]').innerText()).toContain('Nothing was changed.');
    expect(await rubricState(gateway.db)).toBe(before);
    await expectAccessible(page);

    const port = (foreign.address() as AddressInfo).port;
    await other.goto(`http://127.0.0.1:${port}/`);
    const [posted] = await Promise.all([other.waitForResponse((r) => r.url().includes(`${PAGE}/mark`)), other.getByRole('button', { name: 'Win a prize' }).click()]);
    // Without the session's CSRF token (and from a foreign origin) the form is refused, or sent to sign in.
    expect([403, 303]).toContain(posted.status());
    expect(await rubricState(gateway.db)).toBe(before);
    await other.close();
  });
});
