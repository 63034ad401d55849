import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, publicBaseUrl } from '../src/config.ts';
import { hiddenField, pageBrowser, setCookieLine, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

describe('sign-in, sessions and account pages', () => {
  let gateway: TestGateway;
  let origin: string;
  const PASSWORD = 'a long enough password';

  beforeAll(async () => {
    gateway = await startTestGateway();
    origin = new URL(publicBaseUrl(loadConfig({ PORT: '0' }), gateway.url)).origin;
  });
  afterAll(() => gateway.stop());

  async function newOwner(label: string) {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    return { ...owner, email };
  }

  async function signedInBrowser(label: string) {
    const owner = await newOwner(label);
    const browser = pageBrowser(gateway.url);
    const response = await signInThroughForm(browser, owner.email, PASSWORD);
    expect(response.status).toBe(303);
    return { owner, browser };
  }

  const csrfOf = async (browser: PageBrowser, path = '/account') => hiddenField(await (await browser.get(path)).text(), 'csrf');
  const sessionRows = async (accountId: string) =>
    gateway.db.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM web_sessions WHERE account_id = $1', [accountId]);
  const tokenCount = async (accountId: string) =>
    (await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM personal_access_tokens WHERE account_id = $1', [accountId]))[0]!.n;
  const whoami = (token: string) => fetch(`${gateway.url}/api/account`, { headers: { authorization: `Bearer ${token}` } });

  function expectPageHeaders(response: Response) {
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  }

  function expectAccessiblePage(body: string) {
    expect(body.startsWith('<!doctype html>')).toBe(true);
    expect(body).toContain('<html lang="en">');
    expect(body).toMatch(/<title>[^<]+<\/title>/);
    expect(body).toContain('<main>');
    expect(body.match(/<h1>/g)).toHaveLength(1);
    for (const [, id] of body.matchAll(/<input type="(?:text|email|password)" id="([^"]+)"/g)) {
      expect(body).toContain(`<label for="${id}">`);
    }
    // No inline script: every script element loads one of our own scripts (the workspace script; on pages of a signed-in
    // person the WebMCP polyfill and adapter too) from our own origin.
    const scripts = [...body.matchAll(/<script([^>]*)>([^<]*)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, inline] of scripts) {
      expect(attributes).toMatch(/^ src="\/assets\/(?:workspace|webmcp|webmcp-polyfill)-[0-9a-f]{12}\.js" defer$/);
      expect(inline).toBe('');
    }
  }

  it('shows an accessible sign-in form with a double-submit CSRF cookie', async () => {
    const browser = pageBrowser(gateway.url);
    const response = await browser.get('/signin');
    const body = await response.text();
    expect(response.status).toBe(200);
    expectPageHeaders(response);
    expectAccessiblePage(body);
    expect(body).toContain('<label for="email">Email</label>');
    expect(body).toContain('<label for="password">Password</label>');
    expect(body).toContain('<button type="submit">Sign in</button>');
    const cookie = setCookieLine(response, 'kgate_signin')!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Max-Age=\d+/);
    expect(browser.cookies.get('kgate_signin')).toBe(hiddenField(body, 'csrf'));
  });

  it('signs in: a session cookie with the right attributes, a session row, and the account page', async () => {
    const owner = await newOwner('signin');
    const browser = pageBrowser(gateway.url);
    const response = await signInThroughForm(browser, owner.email, PASSWORD);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/account');
    expectPageHeaders(response);
    const cookie = setCookieLine(response, 'kgate_session')!;
    expect(cookie).toMatch(/^kgate_session=kgs_[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=43200/);
    // Plain http (this test server): a Secure cookie would never come back.
    expect(cookie).not.toMatch(/Secure/);
    expect(await sessionRows(owner.accountId)).toHaveLength(1);

    const account = await browser.get('/account');
    const body = await account.text();
    expect(account.status).toBe(200);
    expectPageHeaders(account);
    expectAccessiblePage(body);
    expect(body).toContain(owner.email);
    for (const link of ['/account/connections', '/account/tokens', '/account/vaults']) expect(body).toContain(`href="${link}"`);
  });

  it('refuses a wrong password with 401, the same for an unknown address, and opens no session', async () => {
    const owner = await newOwner('wrong');
    const browser = pageBrowser(gateway.url);
    const wrong = await signInThroughForm(browser, owner.email, 'not the password');
    const unknown = await signInThroughForm(browser, `nobody-${owner.email}`, PASSWORD);
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expectPageHeaders(response);
      expect(setCookieLine(response, 'kgate_session')).toBeUndefined();
      expect(await response.text()).toContain('The e-mail or password is wrong.');
    }
    expect(await sessionRows(owner.accountId)).toEqual([]);
  });

  it('locks an address after five failures: 429 with Retry-After, even with the right password', async () => {
    const owner = await newOwner('locked');
    const browser = pageBrowser(gateway.url);
    for (let i = 0; i < 5; i += 1) expect((await signInThroughForm(browser, owner.email, `guess ${i}`)).status).toBe(401);
    const locked = await signInThroughForm(browser, owner.email, PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800);
    expect(await locked.text()).toContain('Too many failed sign-ins');
    expect(await sessionRows(owner.accountId)).toEqual([]);
  });

  it('refuses a sign-in without the CSRF pair or from another origin, opening no session', async () => {
    const owner = await newOwner('signin-csrf');
    const browser = pageBrowser(gateway.url);
    const csrf = hiddenField(await (await browser.get('/signin')).text(), 'csrf');
    const attempts = [
      browser.post('/signin', { email: owner.email, password: PASSWORD }),
      browser.post('/signin', { csrf: `${csrf}x`, email: owner.email, password: PASSWORD }),
      pageBrowser(gateway.url).post('/signin', { csrf, email: owner.email, password: PASSWORD }),
      browser.post('/signin', { csrf, email: owner.email, password: PASSWORD }, { origin: 'https://evil.example' }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBe(403);
      expect(setCookieLine(response, 'kgate_session')).toBeUndefined();
    }
    expect(await sessionRows(owner.accountId)).toEqual([]);
    // Each refusal shows a fresh form with a new pair; with that, and our own origin, sign-in works.
    const fresh = hiddenField(await (await browser.get('/signin')).text(), 'csrf');
    const sameOrigin = await browser.post('/signin', { csrf: fresh, email: owner.email, password: PASSWORD }, { origin });
    expect(sameOrigin.status).toBe(303);
  });

  it.each([
    ['//evil.example', '/account'],
    ['https://evil.example', '/account'],
    ['/\\evil.example', '/account'],
    ['/\t/evil.example', '/account'],
    ['javascript:alert(1)', '/account'],
    ['', '/account'],
    ['/account/tokens?tab=1', '/account/tokens?tab=1'],
  ])('after sign-in goes to %j only when it is a path here (-> %s)', async (returnTo, expected) => {
    const owner = await newOwner('return');
    const response = await signInThroughForm(pageBrowser(gateway.url), owner.email, PASSWORD, returnTo);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(expected);
  });

  it('sends visitors without a session to the sign-in page, and back afterwards', async () => {
    const browser = pageBrowser(gateway.url);
    for (const path of ['/account', '/account/connections', '/account/tokens', '/account/vaults']) {
      const response = await browser.get(path);
      expect(response.status).toBe(303);
      expectPageHeaders(response);
      expect(response.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(path)}`);
    }
    const forged = await browser.get('/account', { cookie: `kgate_session=kgs_${'A'.repeat(43)}` });
    expect(forged.status).toBe(303);
    const owner = await newOwner('back');
    const signedIn = await signInThroughForm(browser, owner.email, PASSWORD, '/account/vaults');
    expect(signedIn.headers.get('location')).toBe('/account/vaults');
    expect((await browser.get('/account/vaults')).status).toBe(200);
  });

  it('creates a token shown once that then works as a bearer; rotation and revocation work', async () => {
    const { owner, browser } = await signedInBrowser('tokens');
    const csrf = await csrfOf(browser, '/account/tokens');
    const created = await browser.post('/account/tokens', { csrf, name: 'laptop' });
    const page = await created.text();
    expect(created.status).toBe(200);
    expectPageHeaders(created);
    expectAccessiblePage(page);
    const token = /<code class="secret" id="new-token">(kgp_[0-9A-Za-z]{36})<\/code>/.exec(page)![1]!;
    expect(page.split(token)).toHaveLength(2);
    expect(page).toContain('cannot be shown again');
    expect((await whoami(token)).status).toBe(200);
    expect(await (await whoami(token)).json()).toMatchObject({ accountId: owner.accountId });

    const list = await (await browser.get('/account/tokens')).text();
    expect(list).not.toContain(token);
    expect(list).toContain(`kgp_…${token.slice(-4)}`);
    const tokenId = (await gateway.services.tokens.listTokens(owner.accountId)).find((t) => t.name === 'laptop')!.id;

    const rotated = await browser.post('/account/tokens/rotate', { csrf, token_id: tokenId });
    const rotatedPage = await rotated.text();
    expect(rotated.status).toBe(200);
    const next = /id="new-token">(kgp_[0-9A-Za-z]{36})</.exec(rotatedPage)![1]!;
    expect(next).not.toBe(token);
    expect((await whoami(token)).status).toBe(401);
    expect((await whoami(next)).status).toBe(200);

    const nextId = (await gateway.services.tokens.listTokens(owner.accountId)).find((t) => t.name === 'laptop' && !t.revokedAt)!.id;
    const revoked = await browser.post('/account/tokens/revoke', { csrf, token_id: nextId });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/account/tokens');
    expect((await whoami(next)).status).toBe(401);
  });

  it('refuses state changes without the CSRF token or from another origin, and changes nothing', async () => {
    const { owner, browser } = await signedInBrowser('csrf');
    const csrf = await csrfOf(browser);
    const before = await tokenCount(owner.accountId);
    const refused = [
      await browser.post('/account/tokens', { name: 'no csrf' }),
      await browser.post('/account/tokens', { csrf: csrf.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a')), name: 'wrong csrf' }),
      await browser.post('/account/tokens', { csrf, name: 'cross origin' }, { origin: 'https://evil.example' }),
      await browser.post('/account/tokens', { csrf, name: 'null origin' }, { origin: 'null' }),
      await browser.post('/account/tokens/revoke', { token_id: (await gateway.services.tokens.listTokens(owner.accountId))[0]!.id }),
      await browser.post('/account/vaults/mcp-note-changes', { mapping_id: owner.mapping.id, allow: 'off' }),
      await browser.post('/signout', { csrf: 'nope' }),
    ];
    for (const response of refused) {
      expect(response.status).toBe(403);
      expectPageHeaders(response);
      expect(await response.text()).toContain('Nothing was changed.');
    }
    expect(await tokenCount(owner.accountId)).toBe(before);
    expect((await gateway.services.tokens.listTokens(owner.accountId)).every((t) => t.revokedAt === null)).toBe(true);
    expect((await gateway.services.vaults.findMappingAsOperator(owner.mapping.id)).allowMcpNoteChanges).toBe(true);
    expect((await sessionRows(owner.accountId)).every((row) => row.revoked_at === null)).toBe(true);

    // The same request from our own origin goes through.
    const allowed = await browser.post('/account/tokens', { csrf, name: 'same origin' }, { origin });
    expect(allowed.status).toBe(200);
    expect(await tokenCount(owner.accountId)).toBe(before + 1);
  });

  it("flips the owner's hosted MCP note-change switch, and only the owner's", async () => {
    const { owner, browser } = await signedInBrowser('vaults');
    const page = await (await browser.get('/account/vaults')).text();
    expectAccessiblePage(page);
    expect(page).toContain('Allow hosted MCP note changes');
    expect(page).toContain('<th scope="row">Demo vault</th>');
    // The mapping id to copy into scripts and MCP configurations, in the vault's row.
    expect(page).toContain('<th scope="col">Mapping id</th>');
    expect(page).toMatch(new RegExp(`<th scope="row">Demo vault</th>\\s*<td><code>${owner.mapping.id}</code></td>`));
    const csrf = hiddenField(page, 'csrf');
    const off = await browser.post('/account/vaults/mcp-note-changes', { csrf, mapping_id: owner.mapping.id, allow: 'off' });
    expect(off.status).toBe(303);
    expect((await gateway.services.vaults.findMappingAsOperator(owner.mapping.id)).allowMcpNoteChanges).toBe(false);
    await browser.post('/account/vaults/mcp-note-changes', { csrf, mapping_id: owner.mapping.id, allow: 'on' });
    expect((await gateway.services.vaults.findMappingAsOperator(owner.mapping.id)).allowMcpNoteChanges).toBe(true);

    const other = await newOwner('other-vault');
    await gateway.services.vaults.setMcpNoteChanges(other.accountId, other.mapping.id, false);
    const foreign = await browser.post('/account/vaults/mcp-note-changes', { csrf, mapping_id: other.mapping.id, allow: 'on' });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).toContain('The mapping does not exist.');
    expect((await gateway.services.vaults.findMappingAsOperator(other.mapping.id)).allowMcpNoteChanges).toBe(false);
    expect((await browser.post('/account/vaults/mcp-note-changes', { csrf, mapping_id: 'junk', allow: 'on' })).status).toBe(404);
  });

  it('escapes every piece of dynamic text', async () => {
    const { browser } = await signedInBrowser('escape');
    const csrf = await csrfOf(browser);
    const name = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const page = await (await browser.post('/account/tokens', { csrf, name })).text();
    expect(page).not.toContain('<script>');
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    const list = await (await browser.get('/account/tokens')).text();
    expect(list).not.toContain('<script>');
    const failed = await signInThroughForm(pageBrowser(gateway.url), '"><script>x</script>@example.test', 'whatever');
    expect(await failed.text()).not.toContain('<script>x');
  });

  it('shows a friendly error page for a domain error, without internals', async () => {
    const { browser } = await signedInBrowser('errors');
    const csrf = await csrfOf(browser);
    const response = await browser.post('/account/tokens', { csrf, name: ' ' });
    const body = await response.text();
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expectPageHeaders(response);
    expect(body).toContain('A token name has 1 to 100 characters.');
    expect(body).not.toMatch(/at .*\.ts:\d+/);
  });

  it('signs out: the cookie is cleared and the session revoked', async () => {
    const { owner, browser } = await signedInBrowser('signout');
    const token = browser.cookies.get('kgate_session')!;
    const csrf = await csrfOf(browser);
    const response = await browser.post('/signout', { csrf });
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/signin');
    expect(setCookieLine(response, 'kgate_session')).toMatch(/Max-Age=0/);
    const rows = await sessionRows(owner.accountId);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.revoked_at).toBeInstanceOf(Date);
    // The old cookie value, replayed, opens nothing.
    expect((await browser.get('/account', { cookie: `kgate_session=${token}` })).status).toBe(303);
  });
});
