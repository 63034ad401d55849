/**
 * Debian's Chromium driven by playwright-core, for the page tests: where it is, whether this machine has it (CI sets
 * KGATE_REQUIRE_CHROMIUM, so a missing browser fails the run instead of skipping its tests), how it is launched,
 * and a page signed in through the real sign-in form.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Where Debian's chromium package puts the browser. */
export const CHROMIUM = '/usr/bin/chromium';

/** True when the browser is installed; false skips the page tests, unless KGATE_REQUIRE_CHROMIUM makes it an error. */
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.KGATE_REQUIRE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);

/** Launches headless Chromium as the page tests run it (no sandbox in the CI container, nothing fetched in the background). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
}

/** A new page of `browser`, 1100 by 800, signed in as `email` through the real sign-in form of the server at `baseUrl`. */
export async function signedInPage(browser: Browser, baseUrl: string, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  await page.goto(`${baseUrl}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname !== '/signin');
  return page;
}
