import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../src/kernel/clock.ts';
import { expectAccessible } from './support/axe.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

// Debian's chromium, driven by playwright-core; CI sets KGATE_REQUIRE_CHROMIUM so that a missing browser fails.
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.KGATE_REQUIRE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);

describe.skipIf(!available)('the account page in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  const PASSWORD = 'a long browser password';
  const NEW_PASSWORD = 'the new browser password';
  let addressCounter = 0;
  // Moved forward instead of waiting out a lock.
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    // One trusted proxy: each browser context speaks from its own X-Forwarded-For address.
    gateway = await startTestGateway({ clock, env: { KGATE_TRUST_PROXY: '1' } });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  async function contextAt(): Promise<{ context: BrowserContext; page: Page }> {
    addressCounter += 1;
    const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': `198.51.100.${addressCounter}` } });
    return { context, page: await context.newPage() };
  }

  async function signIn(page: Page, email: string, password: string): Promise<void> {
    await page.goto(`${gateway.baseUrl}/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForLoadState();
  }

  const sessionRows = (accountId: string) =>
    gateway.db.query<{ id: string; revoked_at: Date | null }>('SELECT id, revoked_at FROM web_sessions WHERE account_id = $1 ORDER BY id', [accountId]);
  const passwordHash = async (accountId: string) =>
    (await gateway.db.query<{ password_hash: string }>('SELECT password_hash FROM accounts WHERE id = $1', [accountId]))[0]!.password_hash;

  it('a wrong current password changes nothing; a password change signs out the other browser and keeps this one', async () => {
    const email = `browser-account-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    const laptop = await contextAt();
    const phone = await contextAt();
    await signIn(laptop.page, email, PASSWORD);
    await signIn(phone.page, email, PASSWORD);

    const page = laptop.page;
    await page.goto(`${gateway.baseUrl}/account`);
    expect(await page.getByRole('heading', { name: 'Active sessions' }).isVisible()).toBe(true);
    expect(await page.getByRole('row').filter({ hasText: 'This session' }).count()).toBe(1);
    expect(await page.getByRole('button', { name: /^End the session started/ }).count()).toBe(1);
    await expectAccessible(page);

    const hash = await passwordHash(owner.accountId);
    const sessions = await sessionRows(owner.accountId);
    await page.getByLabel('Current password').fill('not the password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForLoadState();
    const alert = page.getByRole('alert');
    expect(await alert.textContent()).toContain('The current password is wrong. Nothing was changed.');
    expect(await alert.getAttribute('data-code')).toBe('wrong_current_password');
    await expectAccessible(page);
    expect(await passwordHash(owner.accountId)).toBe(hash);
    expect(await sessionRows(owner.accountId)).toEqual(sessions);

    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('New password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.waitForURL(/\/account\?notice=password_changed$/);
    expect(await page.getByRole('status').textContent()).toContain('Your password was changed.');
    expect(await page.getByRole('button', { name: /^End the session started/ }).count()).toBe(0);

    await phone.page.goto(`${gateway.baseUrl}/account`);
    expect(new URL(phone.page.url()).pathname).toBe('/signin');
    await signIn(phone.page, email, PASSWORD);
    expect(await phone.page.getByRole('alert').textContent()).toContain('The e-mail or password is wrong.');
    await signIn(phone.page, email, NEW_PASSWORD);
    expect(new URL(phone.page.url()).pathname).toBe('/account');

    // Sign out of every session: both browsers are signed out.
    await page.goto(`${gateway.baseUrl}/account`);
    await page.getByRole('button', { name: 'Sign out of every session' }).click();
    await page.waitForURL(/\/signin$/);
    for (const each of [page, phone.page]) {
      await each.goto(`${gateway.baseUrl}/account`);
      expect(new URL(each.url()).pathname).toBe('/signin');
    }
    expect((await sessionRows(owner.accountId)).every((row) => row.revoked_at !== null)).toBe(true);
    await laptop.context.close();
    await phone.context.close();
  });

  it('the throttles hold: a stranger locks the account, the owner from another address gets in a minute later at most', async () => {
    const email = `browser-throttle-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    const stranger = await contextAt();
    for (let i = 0; i < 5; i += 1) await signIn(stranger.page, email, `guess ${i}`);
    await signIn(stranger.page, email, PASSWORD);
    expect(await stranger.page.getByRole('alert').getAttribute('data-code')).toBe('sign_in_account_locked');
    await expectAccessible(stranger.page);

    const home = await contextAt();
    const response = home.page.waitForResponse((r) => r.request().method() === 'POST');
    await signIn(home.page, email, PASSWORD);
    const refused = await response;
    expect(refused.status()).toBe(429);
    expect(Number(await refused.headerValue('retry-after'))).toBeLessThanOrEqual(60);
    expect(await home.page.getByRole('alert').getAttribute('data-code')).toBe('sign_in_account_locked');
    expect(await sessionRows(owner.accountId)).toEqual([]);
    offsetMs += 61_000;
    await signIn(home.page, email, PASSWORD);
    expect(new URL(home.page.url()).pathname).toBe('/account');
    expect(await sessionRows(owner.accountId)).toHaveLength(1);
    await stranger.context.close();
    await home.context.close();
  });
});
