/**
 * The published intelligence pages in Chromium against a real gateway: a customer of the product opens the list,
 * follows the example pack, picks 2024-03-01 in the date picker and reads the 2017 standards, then picks 2024-09-01
 * and reads the 2023 ones instead, the retracted calculator rule gone; the unsafe pack's markup stays text and runs
 * nothing. axe-core on every page. The same over plain HTTP, with the refusals: intelligence-pages.test.ts.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { UNSAFE, publishTestPacks } from './support/intelligence-pages.ts';

describe.skipIf(!chromiumAvailable)('published intelligence pages in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let customer: Page;

  beforeAll(async () => {
    gateway = await startTestGateway();
    const { customer: account } = await publishTestPacks(gateway);
    browser = await launchChromium();
    customer = await signedInPage(browser, gateway.baseUrl, account.email, account.password);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  /** The statements of the accepted assertions the page shows. */
  const statements = () => customer.locator('section[aria-labelledby=assertions-heading] li[data-assertion] > [data-field=statement]').allInnerTexts();

  it('changes the date and sees the answer change', async () => {
    await customer.goto(`${gateway.baseUrl}/account/intelligence`);
    await expectAccessible(customer);
    await customer.getByRole('link', { name: 'Riverton K-8 mathematics standards and fractions guidance', exact: true }).click();
    await customer.waitForURL((url) => url.pathname === '/account/intelligence/tutor/k8-math');

    await customer.getByLabel(/^As of/).fill('2024-03-01');
    await customer.getByRole('button', { name: 'Show', exact: true }).click();
    await customer.waitForURL((url) => url.searchParams.get('asOf') === '2024-03-01');
    const before = await statements();
    expect(before).toContain('Grade 3 students understand a fraction 1/b as one part of a whole partitioned into b equal parts.');
    expect(before).toContain('Four-function calculators are allowed on all grade 6 to 8 assessments.');
    expect(before.some((statement) => statement.includes('greater than 1'))).toBe(false);
    expect(await customer.locator('[data-source-version]').allInnerTexts()).toHaveLength(2);
    const citation = customer.getByRole('link', { name: 'Riverton State Mathematics Standards, Grades K-8' }).first();
    expect(await citation.getAttribute('rel')).toBe('noopener noreferrer');
    await expectAccessible(customer);

    await customer.getByLabel(/^As of/).fill('2024-09-01');
    await customer.getByRole('button', { name: 'Show', exact: true }).click();
    await customer.waitForURL((url) => url.searchParams.get('asOf') === '2024-09-01');
    const after = await statements();
    expect(after).toContain('Grade 3 students place fractions, including fractions greater than 1, on a number line.');
    expect(after).not.toContain('Grade 3 students understand a fraction 1/b as one part of a whole partitioned into b equal parts.');
    expect(after.some((statement) => statement.includes('calculators'))).toBe(false);
    expect(await customer.locator('[data-field=current]').first().innerText()).toBe('2023');

    // What changed between the two dates, asked with the from date.
    await customer.getByLabel(/^Since/).fill('2024-03-01');
    await customer.getByRole('button', { name: 'Show changes' }).click();
    await customer.waitForURL((url) => url.searchParams.get('from') === '2024-03-01');
    expect(await customer.locator('[data-changes=retracted] [data-field=statement]').allInnerTexts()).toEqual([
      'Four-function calculators are allowed on all grade 6 to 8 assessments.',
    ]);
    await expectAccessible(customer);
  });

  it('shows the markup of a pack as text and runs none of it', async () => {
    await customer.goto(`${gateway.baseUrl}/account/intelligence/tutor/unsafe?asOf=2024-02-01`);
    expect(await customer.locator('h1').innerText()).toBe(UNSAFE.title);
    expect(await customer.locator('li[data-assertion] [data-field=statement]').innerText()).toBe(UNSAFE.statement);
    expect(await customer.locator('[data-insight] [data-field=statement]').innerText()).toBe(UNSAFE.insight);
    expect(await customer.locator('main script, main img, main em, main b, main a[href^="javascript:"]').count()).toBe(0);
    expect(await customer.evaluate('window.ran')).toBeUndefined();
    await expectAccessible(customer);
  });
});
