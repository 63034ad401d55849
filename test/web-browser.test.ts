import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible } from './support/axe.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

// Debian's chromium, driven by playwright-core (no browser download). CI installs it and sets
// KGATE_REQUIRE_CHROMIUM, so there a missing browser fails instead of skipping.
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env.KGATE_REQUIRE_CHROMIUM) throw new Error(`${CHROMIUM} is missing: apt-get install chromium`);

/** A client's redirect target: a local server that records the query of each callback. */
async function startCallbackServer(): Promise<{ server: Server; url: string; next: () => Promise<URL> }> {
  const waiting: ((url: URL) => void)[] = [];
  const received: URL[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const waiter = waiting.shift();
    if (waiter) waiter(url);
    else received.push(url);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    url: `http://127.0.0.1:${port}/callback`,
    next: () => new Promise<URL>((resolve) => (received.length > 0 ? resolve(received.shift()!) : waiting.push(resolve))),
  };
}

async function callListVaults(base: string, token: string): Promise<Response> {
  return fetch(`${base}/api/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_vaults', arguments: {} } }),
  });
}

describe.skipIf(!available)('sign-in, consent and connected applications in a real browser', () => {
  let gateway: TestGateway;
  let browser: Browser;
  let callback: Awaited<ReturnType<typeof startCallbackServer>>;

  beforeAll(async () => {
    gateway = await startTestGateway();
    callback = await startCallbackServer();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => callback?.server.close(resolve));
    await gateway?.stop();
  });

  it('signs in, approves, sees the application, revokes it, and the token then fails', async () => {
    const email = `browser-${randomBytes(4).toString('hex')}@example.test`;
    const password = 'a long browser password';
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password });

    const registration = await fetch(`${gateway.baseUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Browser Test Agent', redirect_uris: [callback.url], grant_types: ['authorization_code', 'refresh_token'] }),
    });
    expect(registration.status).toBe(201);
    const clientId = ((await registration.json()) as { client_id: string }).client_id;

    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const authorize = new URL(`${gateway.baseUrl}/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callback.url,
      scope: 'mcp:read mcp:write offline_access',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${gateway.baseUrl}/api/mcp`,
    }).toString();

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(authorize.toString());
    // Not signed in: the sign-in page comes first.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();

    // The consent page names the client, explains the scopes and warns about the localhost redirect.
    await expect.poll(() => page.url()).toContain('/oauth/authorize');
    await expectAccessible(page);
    const consent = await page.locator('main').innerText();
    expect(consent).toContain('Browser Test Agent');
    expect(consent).toContain(new URL(callback.url).host);
    expect(consent).toMatch(/search and read/i);
    expect(consent).toMatch(/your own computer|this computer/i);
    const cookies = await context.cookies(gateway.baseUrl);
    const session = cookies.find((cookie) => cookie.name === 'kgate_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax' });

    const arrival = callback.next();
    await page.getByRole('button', { name: 'Allow' }).click();
    const redirected = await arrival;
    expect(redirected.searchParams.get('state')).toBe(state);
    expect(redirected.searchParams.get('iss')).toBe(gateway.baseUrl);
    const code = redirected.searchParams.get('code')!;

    const tokenResponse = await fetch(`${gateway.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id: clientId, redirect_uri: callback.url }),
    });
    expect(tokenResponse.status).toBe(200);
    const tokens = (await tokenResponse.json()) as { access_token: string; refresh_token: string };
    expect((await callListVaults(gateway.baseUrl, tokens.access_token)).status).toBe(200);

    // The application is listed under connected applications, with its scopes.
    await page.goto(`${gateway.baseUrl}/account/connections`);
    const listed = await page.locator('main').innerText();
    expect(listed).toContain('Browser Test Agent');
    expect(listed).toContain('mcp:write');
    const row = page.locator('tr', { hasText: 'Browser Test Agent' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(async () => page.locator('main').innerText()).not.toContain('Browser Test Agent');

    // Access and refresh fail at once; the personal access token keeps working.
    const afterRevoke = await callListVaults(gateway.baseUrl, tokens.access_token);
    expect(afterRevoke.status).toBe(401);
    const refresh = await fetch(`${gateway.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId }),
    });
    expect(refresh.status).toBe(400);
    expect(((await refresh.json()) as { error: string }).error).toBe('invalid_grant');
    expect((await callListVaults(gateway.baseUrl, owner.token)).status).toBe(200);
    await context.close();
  });
});
