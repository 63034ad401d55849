/**
 * The Product Runtime pages in Chromium against a real gateway, end to end: an organization admin defines a product on
 * /account/runtime; a customer installs it on /account/products, assigns a workspace and grants a vault for publishing;
 * the admin creates the installation's service principal and a client secret (shown once; opening the page again
 * shows only its last four characters); the product gets a token with that secret and publishes a note; a memory
 * candidate it proposes appears on /account/products/memory as escaped text and is accepted there, after which the
 * product reads it as shared memory. axe-core on every page; the secret never reaches the logs.
 */
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { newAccount, type TestAccount } from './support/oauth-flow.ts';
import { callRuntime, runtimeToken } from './support/runtime-gateway.ts';

describe.skipIf(!chromiumAvailable)('Product Runtime pages in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let admin: Page;
  let customer: Page;
  let adminAccount: TestAccount;
  let customerAccount: TestAccount;
  const suffix = randomUUID().slice(0, 8);
  const productName = `Tutor ${suffix}`;

  beforeAll(async () => {
    gateway = await startTestGateway();
    adminAccount = await newAccount(gateway, 'rt-browser-admin');
    customerAccount = await newAccount(gateway, 'rt-browser-customer');
    await gateway.services.runtimeAdmin.createOrganization({ slug: `acme-${suffix}`, name: 'Acme Learning', adminEmail: adminAccount.email });
    browser = await launchChromium();
    admin = await signedInPage(browser, gateway.baseUrl, adminAccount.email, adminAccount.password);
    customer = await signedInPage(browser, gateway.baseUrl, customerAccount.email, customerAccount.password);
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('defines, installs, grants, issues a secret once, publishes through the runtime and accepts shared memory', async () => {
    // The organization admin defines a product.
    await admin.goto(`${gateway.baseUrl}/account`);
    await admin.getByRole('link', { name: 'Product runtime' }).click();
    await admin.waitForURL((url) => url.pathname === '/account/runtime');
    expect(await admin.locator('[data-field=apiOperationsPerMonth]').innerText()).toBe('no cap');
    await expectAccessible(admin);
    const org = admin.locator('section.organization');
    await org.getByLabel('Slug').fill(`tutor-${suffix}`);
    await org.getByLabel('Name', { exact: true }).fill(productName);
    await org.getByLabel('Domain pack').selectOption('education');
    await org.getByRole('button', { name: 'Define product' }).click();
    await admin.waitForURL((url) => url.searchParams.get('notice') === 'created');
    const productUrl = admin.url().split('?')[0]!;
    await expectAccessible(admin);

    // The customer installs it, assigns their workspace and grants their vault for publishing.
    await customer.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'Products' }).click();
    await customer.waitForURL((url) => url.pathname === '/account/products');
    await expectAccessible(customer);
    await customer.getByRole('button', { name: `Install ${productName}` }).click();
    await customer.waitForURL((url) => url.searchParams.get('notice') === 'installed');
    await customer.getByRole('button', { name: `Assign the workspace to ${productName}` }).click();
    await customer.waitForURL((url) => url.searchParams.get('notice') === 'assigned');
    await customer.getByRole('radio', { name: /^Read and publish/ }).check();
    await customer.getByRole('button', { name: `Grant the vault to ${productName}` }).click();
    await customer.waitForURL((url) => url.searchParams.get('notice') === 'granted');
    expect(await customer.locator('tr[data-grant] [data-field=access]').innerText()).toBe('read and publish');
    await expectAccessible(customer);

    // The admin creates the installation's principal and a client secret: shown on the answer, and never again.
    await admin.goto(productUrl);
    await admin.getByRole('link', { name: `Principals and credentials of the installation of ${customerAccount.email}` }).click();
    await admin.waitForURL((url) => url.pathname.includes('/installations/'));
    const installationUrl = admin.url();
    await expectAccessible(admin);
    await admin.getByLabel('Name', { exact: true }).fill('Tutor backend');
    await admin.getByRole('checkbox', { name: /^notes\.publish/ }).check();
    await admin.getByRole('button', { name: 'Create principal' }).click();
    await admin.waitForURL((url) => url.searchParams.get('notice') === 'principal_created');
    await admin.getByRole('button', { name: 'Add a client secret to Tutor backend' }).click();
    await admin.waitForURL((url) => url.pathname.endsWith('/secrets'));
    const secret = await admin.locator('#new-secret').innerText();
    expect(secret).toMatch(/^kgcs_/);
    expect(await admin.locator('main').innerText()).toContain('it is shown this once and never again');
    const principalId = await admin.locator('[data-field=client-id]').innerText();
    await expectAccessible(admin);
    await admin.goto(installationUrl);
    const again = await admin.content();
    expect(again).not.toContain(secret);
    expect(again).toContain(secret.slice(-4));
    expect(await admin.locator('#new-secret').count()).toBe(0);

    // The product signs in with that secret and publishes a note into the granted vault.
    const token = await runtimeToken(gateway, { principalId, clientSecret: secret });
    const { workspaceId, vaultId } = await grantedVault(gateway, customerAccount);
    const publish = await callRuntime(gateway, token, 'POST', `/workspaces/${workspaceId}/vaults/${vaultId}/notes/publish`, {
      json: { path: 'lessons/week-1.md', content: '# Week 1\n', dryRun: false },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(publish.status, JSON.stringify(publish.body)).toBe(200);

    // It proposes shared memory; the customer sees it as text (never markup) and accepts it.
    const scope = await gateway.services.scopes.create({ accountId: customerAccount.accountId, credentialKind: 'session' }, customerAccount.mappingId, {
      name: 'Class',
      pathPrefixes: [],
      tags: [],
      audience: { minimumRole: 'viewer', agents: true },
    });
    const title = 'Class meets on <b>Tuesdays</b>';
    const body = '<script>window.ran = 1</script>\nThe class meets on Tuesdays.';
    const proposed = await callRuntime(gateway, token, 'POST', `/api/product/v1/scopes/${scope.id}/memory/candidates`, {
      json: { title, body, evidence: [{ path: 'lessons/week-1.md' }] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(200);
    await customer.goto(`${gateway.baseUrl}/account/products`);
    await customer.getByRole('link', { name: 'Shared memory' }).click();
    await customer.waitForURL((url) => url.pathname === '/account/products/memory');
    const item = customer.locator('li[data-candidate]');
    expect(await item.getByRole('heading').innerText()).toBe(title);
    expect(await item.locator('[data-field=body]').innerText()).toBe(body);
    expect(await item.locator('[data-field=product]').innerText()).toBe(productName);
    expect(await item.locator('[data-field=evidence]').innerText()).toBe('lessons/week-1.md');
    expect(await customer.locator('main').innerText()).toContain('A candidate is never trusted');
    expect(await customer.evaluate('window.ran')).toBeUndefined();
    expect(await customer.locator('main b, main script').count()).toBe(0);
    await expectAccessible(customer);
    const before = await callRuntime<{ entries: unknown[] }>(gateway, token, 'GET', `/api/product/v1/scopes/${scope.id}/memory`);
    expect(before.body.data.entries).toEqual([]);
    await item.getByRole('button', { name: `Accept ${title}` }).click();
    await customer.waitForURL((url) => url.pathname === '/account/products/memory/decide');
    expect(await customer.locator('main').innerText()).toContain('No candidate is waiting');
    expect(await customer.locator('li[data-candidate] [data-field=status]').innerText()).toBe('accepted');
    await expectAccessible(customer);
    const after = await callRuntime<{ entries: Array<{ title: string }> }>(gateway, token, 'GET', `/api/product/v1/scopes/${scope.id}/memory`);
    expect(after.body.data.entries.map((entry) => entry.title)).toEqual([title]);

    expect(gateway.logs.join('\n')).not.toContain(secret);
  });
});

/** The customer's only workspace and the vault behind their first mapping. */
async function grantedVault(gateway: TestGateway, account: TestAccount): Promise<{ workspaceId: string; vaultId: string }> {
  const found = (await gateway.services.vaults.listAccessibleMappings(account.accountId)).find(({ mapping }) => mapping.id === account.mappingId);
  return { workspaceId: found!.mapping.workspaceId, vaultId: found!.mapping.vaultId };
}
