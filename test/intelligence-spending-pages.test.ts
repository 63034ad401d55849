/**
 * The intelligence spending page (/account/runtime/intelligence) against a real gateway with the fake model: an
 * organization admin sees the month (budget, charged, reserved, left) and the latest metered requests with their
 * outcomes, a settled one and a billable failure; an account that administers no organization sees none of it; in
 * real Chromium, the page is reached from Product runtime and reads the same.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meteredCallerOf, ModelError, type MeteredRequest } from '../src/domains/models/index.ts';
import { startModelFake, modelEnvOf, type ModelFake } from './fakes/model/server.ts';
import { chromiumAvailable, launchChromium, signedInPage } from './support/chromium.ts';
import { pageBrowser, signInThroughForm } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createRuntimeChain, runtimeToken, type RuntimeChainSetup } from './support/runtime-gateway.ts';
import { newAccount, type TestAccount } from './support/oauth-flow.ts';

let fake: ModelFake;
let gateway: TestGateway;
let chain: RuntimeChainSetup;
let stranger: TestAccount;
/** An admin of the chain's organization who signs in with a password. */
let admin: TestAccount;

/** One metered request through the real runner, as an endpoint makes it: one chat call. */
async function meteredCall(work?: MeteredRequest<{ text: string }>['work']): Promise<unknown> {
  const principal = await gateway.services.runtimeCredentials.authenticate(await tokenOf());
  return gateway.services.models
    .runMetered<{ text: string }>({
      caller: meteredCallerOf(principal),
      kind: 'education-generate',
      key: randomUUID(),
      fingerprint: randomUUID(),
      requestId: `req-${randomUUID()}`,
      bound: { inputTokens: 1000, outputTokens: 500, images: 0 },
      signal: new AbortController().signal,
      work: work ?? (async (meter) => ({ text: (await meter.model.chat({ messages: [{ role: 'user', content: 'Plan a week' }], maxOutputTokens: 500 })).text })),
    })
    .catch((error: unknown) => error);
}

let token: string | undefined;
async function tokenOf(): Promise<string> {
  token ??= await runtimeToken(gateway, chain, 'intelligence.execute');
  return token;
}

beforeAll(async () => {
  fake = await startModelFake();
  gateway = await startTestGateway({ env: modelEnvOf(fake) });
  chain = await createRuntimeChain(gateway, 'spending', { scopes: ['intelligence.execute'] });
  await gateway.services.runtimeAdmin.setOrganizationSettings(chain.organization.slug, { intelligenceBudgetMicrodollarsMonthly: 2_000_000 });
  stranger = await newAccount(gateway, 'spending-stranger');
  admin = await newAccount(gateway, 'spending-admin');
  await gateway.services.runtimeAdmin.addOrganizationAdmin(chain.organization.slug, admin.email);
  fake.script({ kind: 'reply', text: 'A week of fractions.', usage: { inputTokens: 40, outputTokens: 10 } });
  expect(await meteredCall()).toMatchObject({ data: { text: 'A week of fractions.' }, receipt: { outcome: 'settled', costMicrodollars: 60 } });
  fake.script({ kind: 'reply', text: 'not what was asked', usage: { inputTokens: 30, outputTokens: 5 } });
  const failed = await meteredCall(async (meter) => {
    const completion = await meter.model.chat({ messages: [{ role: 'user', content: 'JSON please' }], maxOutputTokens: 500, json: true });
    throw new ModelError('model_output_invalid', 'not JSON', 'yes', completion.usage);
  });
  expect(failed).toMatchObject({ code: 'model_output_invalid' });
});

afterAll(async () => {
  await gateway?.stop();
  await fake?.close();
});

describe('the intelligence spending page', () => {
  it("shows an organization admin the month and the latest requests, a settled one and a billable failure", async () => {
    const web = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(web, admin.email, admin.password)).status).toBe(303);
    const response = await web.get('/account/runtime/intelligence');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(chain.organization.name);
    // 60 µ$ settled (40 in at 1, 10 out at 2) and 40 µ$ for the invalid output (30 in, 5 out).
    expect(page).toMatch(/data-field="charged">100 µ\$/);
    expect(page).toContain('2,000,000 µ$');
    expect(page).toMatch(/data-state="settled"[\s\S]*?data-field="charged">60</);
    expect(page).toMatch(/data-state="billable_failure"[\s\S]*?model_output_invalid/);
    expect(page).not.toContain(fake.apiKey);
  });

  it('shows an account that administers no organization nothing of anyone', async () => {
    const web = pageBrowser(gateway.baseUrl);
    expect((await signInThroughForm(web, stranger.email, stranger.password)).status).toBe(303);
    const page = await (await web.get('/account/runtime/intelligence')).text();
    expect(page).toContain('data-field="no-organization"');
    expect(page).not.toContain(chain.organization.name);
    expect(page).not.toContain('data-ledger=');
  });

  it('sends a visitor without a session to sign in', async () => {
    const response = await fetch(`${gateway.baseUrl}/account/runtime/intelligence`, { redirect: 'manual' });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/^\/signin/);
  });
});

describe.skipIf(!chromiumAvailable)('the intelligence spending page in a real browser', () => {
  it('is reached from Product runtime and lists the requests', async () => {
    const browser = await launchChromium();
    try {
      const page = await signedInPage(browser, gateway.baseUrl, admin.email, admin.password);
      await page.goto(`${gateway.baseUrl}/account/runtime`);
      await page.getByRole('link', { name: 'Intelligence spending' }).click();
      await page.waitForURL((url) => url.pathname === '/account/runtime/intelligence');
      expect(await page.getByRole('heading', { name: chain.organization.name }).isVisible()).toBe(true);
      expect(await page.locator('tr[data-ledger]').count()).toBe(2);
      expect(await page.locator('tr[data-state="billable_failure"] td[data-field="state"]').textContent()).toContain('model_output_invalid');
    } finally {
      await browser.close();
    }
  });
});
