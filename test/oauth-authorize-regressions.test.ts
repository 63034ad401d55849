/**
 * Failures seen in other OAuth authorization servers, replayed against kgate's authorization endpoint, sign-in and
 * consent pages: PKCE downgrades, state, redirect URI tricks (and the registration of bad redirect URIs), unknown
 * clients, and forged or framed consent. Every test asserts the error and that nothing was issued or stored.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from './support/gateway.ts';
import { CookieJar, formWithButton, parseForms, submitForm } from './support/html-forms.ts';
import {
  authorizationUrl,
  authorizeCode,
  exchangeCode,
  newAccount,
  newClient,
  pkcePair,
  registerClient,
  signIn,
} from './support/oauth-flow.ts';
import { authorizeRequest, expectOAuthError, useRegressionGateway } from './support/oauth-regression-setup.ts';

describe('OAuth regressions', () => {
  const setup = useRegressionGateway();
  const { codeConsumed, countRows } = setup;
  let gateway: TestGateway;
  let base: string;
  beforeAll(() => {
    ({ gateway, base } = setup);
  });

  describe('PKCE downgrade at /oauth/authorize', () => {
    const verifier = 'v'.repeat(43);
    it.each([
      ['no code_challenge', { code_challenge: undefined, code_challenge_method: undefined }],
      ['code_challenge_method=plain', { code_challenge: verifier, code_challenge_method: 'plain' }],
      ['an unknown code_challenge_method', { code_challenge: pkcePair().challenge, code_challenge_method: 'S512' }],
      ['a challenge without code_challenge_method', { code_challenge: pkcePair().challenge, code_challenge_method: undefined }],
      ['a challenge that is not 43 base64url characters', { code_challenge: 'short', code_challenge_method: 'S256' }],
    ])('%s: an error redirect, and no code for a signed-in account', async (_label, params) => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const browser = await signIn(gateway, account);
      const url = authorizationUrl(gateway, client, { state: 'st-1', ...params });
      const response = await authorizeRequest(url, browser);
      expect(response.status).toBe(302);
      const location = new URL(response.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).toBe(client.redirectUri);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('state')).toBe('st-1');
      expect(location.searchParams.get('iss')).toBe(base);
      expect(location.searchParams.has('code')).toBe(false);
      expect(await countRows('SELECT count(*) AS n FROM oauth_codes WHERE client_id = $1', [client.clientId])).toBe(0);
      expect(await countRows('SELECT count(*) AS n FROM oauth_grants WHERE account_id = $1', [account.accountId])).toBe(0);
    });

    it('a consent form posted to a downgraded request (challenge method changed to plain) gets no code', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const browser = await signIn(gateway, account);
      const url = authorizationUrl(gateway, client, { code_challenge: pkcePair().challenge, state: 'st-2' });
      const consent = await browser.fetch(url);
      expect(consent.status).toBe(200);
      const chosen = formWithButton(await consent.text(), 'Allow');
      const tampered = new URL(chosen.form.action, url);
      tampered.searchParams.set('code_challenge_method', 'plain');
      const response = await submitForm(browser, url, { form: { ...chosen.form, action: tampered.href }, button: chosen.button });
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.has('code')).toBe(false);
      expect(await countRows('SELECT count(*) AS n FROM oauth_codes WHERE client_id = $1', [client.clientId])).toBe(0);
    });
  });

  describe('state', () => {
    it('is echoed character for character, reserved and non-ASCII characters included', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const state = 'a&b=c d+e/f?g#h%25i\u00e9\u{1F600}';
      const { location } = await authorizeCode(gateway, account, client, { scope: 'mcp:read', state });
      expect(location.searchParams.get('state')).toBe(state);
      expect(location.searchParams.getAll('state')).toHaveLength(1);
    });
  });

  describe('redirect URI tricks', () => {
    const registered = 'https://app.example.com/oauth/callback';
    const loopback = 'http://127.0.0.1:43123/callback';

    it.each([
      ['the host in another case', 'https://APP.example.com/oauth/callback'],
      ['the path in another case', 'https://app.example.com/OAuth/callback'],
      ['a trailing space', `${registered} `],
      ['a trailing tab', `${registered}\t`],
      ['a literal %20', `${registered}%20`],
      ['a CR LF', `${registered}\r\n`],
      ['a literal %0d%0a', `${registered}%0d%0a`],
      ['an extra path segment', `${registered}/extra`],
      ['a prefix of the registered path', 'https://app.example.com/oauth'],
      ['a dot segment', 'https://app.example.com/oauth/callback/../callback'],
      ['an added query', `${registered}?next=https://evil.example`],
      ['a different port', 'https://app.example.com:8443/oauth/callback'],
      ['another host (open redirect)', 'https://evil.example/oauth/callback'],
      ['a host that extends the registered one', 'https://app.example.com.evil.example/oauth/callback'],
      ['user info before another host', 'https://app.example.com@evil.example/oauth/callback'],
      ['a fragment', `${registered}#fragment`],
      ['http instead of https', 'http://app.example.com/oauth/callback'],
      // Spec 5: exact redirect matching, also for loopback redirect URIs (RFC 8252 s7.3 lets the port vary; kgate does not).
      ['a loopback URI on another port', 'http://127.0.0.1:43124/callback'],
      ['localhost for a registered 127.0.0.1', 'http://localhost:43123/callback'],
    ])('%s: an error page (400, no Location), never a redirect, even when signed in', async (_label, redirectUri) => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway, { redirect_uris: [registered, loopback] });
      const browser = await signIn(gateway, account);
      const url = authorizationUrl(gateway, client, { redirect_uri: redirectUri, code_challenge: pkcePair().challenge });
      const response = await authorizeRequest(url, browser);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const page = await response.text();
      expect(page).toContain('invalid_request');
      expect(page).not.toContain('evil.example');
      expect(await countRows('SELECT count(*) AS n FROM oauth_codes WHERE client_id = $1', [client.clientId])).toBe(0);

      // Control: the registered URIs themselves reach the consent page.
      for (const exact of [registered, loopback]) {
        const ok = await browser.fetch(authorizationUrl(gateway, client, { redirect_uri: exact, code_challenge: pkcePair().challenge }));
        expect(ok.status).toBe(200);
        expect(formWithButton(await ok.text(), 'Allow').button.text).toBe('Allow');
      }
    });

    it('a repeated redirect_uri (the registered one twice) is an error page, not a redirect', async () => {
      const client = await newClient(gateway, { redirect_uris: [registered] });
      const url = authorizationUrl(gateway, client, { redirect_uri: registered, code_challenge: pkcePair().challenge });
      url.searchParams.append('redirect_uri', registered);
      const response = await authorizeRequest(url);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
    });

    it.each([
      ['javascript:', 'javascript:alert(document.cookie)'],
      ['data:', 'data:text/html,<script>alert(1)</script>'],
      ['http to a non-loopback host', 'http://app.example.com/callback'],
      ['a fragment', 'https://app.example.com/callback#x'],
      ['user info', 'https://user:pass@app.example.com/callback'],
      ['a relative URI', '/callback'],
      ['whitespace', 'https://app.example.com/callback '],
      ['a control character', 'https://app.example.com/call\u0000back'],
      ['a single-word private-use scheme', 'myapp:/callback'],
    ])('registration of a redirect URI with %s is refused and stores nothing', async (_label, redirectUri) => {
      const before = await countRows('SELECT count(*) AS n FROM oauth_clients', []);
      const { status, body, headers } = await registerClient(gateway, { redirect_uris: [redirectUri] });
      expect({ status, error: body.error }).toEqual({ status: 400, error: 'invalid_redirect_uri' });
      expect(body.client_id).toBeUndefined();
      expect(headers.get('cache-control')).toBe('no-store');
      expect(await countRows('SELECT count(*) AS n FROM oauth_clients', [])).toBe(before);
    });

    it('registration with a client_secret or a confidential auth method is refused', async () => {
      for (const extra of [{ token_endpoint_auth_method: 'client_secret_basic' }, { client_secret: 'hunter2' }]) {
        const { status, body } = await registerClient(gateway, extra);
        expect({ status, error: body.error }).toEqual({ status: 400, error: 'invalid_client_metadata' });
      }
    });
  });

  describe('unknown clients', () => {
    it.each([
      ['an unknown client_id', 'kgc_unknown-client-id-aaaaaaaaaaaa'],
      ['an empty client_id', ''],
      // Not fetched: the production fetch refuses loopback and private addresses (SSRF).
      ['a client ID metadata document on a private address', 'https://127.0.0.1/client.json'],
      ['a client ID metadata document URL with a fragment', 'https://clients.example.com/app.json#x'],
    ])('%s: an error page without a redirect, and no client row', async (_label, clientId) => {
      const before = await countRows('SELECT count(*) AS n FROM oauth_clients', []);
      const url = authorizationUrl(gateway, { clientId, redirectUri: 'https://evil.example/callback' }, { code_challenge: pkcePair().challenge });
      const response = await authorizeRequest(url);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toMatch(/invalid_client|invalid_request/);
      expect(await countRows('SELECT count(*) AS n FROM oauth_clients', [])).toBe(before);
    });

    it('the token endpoint refuses an unknown client without touching the code', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      expectOAuthError(await exchangeCode(gateway, { ...client, clientId: 'kgc_nobody' }, code, verifier), 400, 'invalid_grant');
      expect(await codeConsumed(code)).toBe(false);
    });
  });

  describe('the consent form', () => {
    /** A signed-in browser on the consent page of a fresh client: the Allow form and where it was shown. */
    async function consentPage() {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const browser = await signIn(gateway, account);
      const url = authorizationUrl(gateway, client, { code_challenge: pkcePair().challenge, scope: 'mcp:read' });
      const page = await browser.fetch(url);
      expect(page.status).toBe(200);
      return { account, client, browser, url, page, allow: formWithButton(await page.text(), 'Allow') };
    }

    it('a forged consent post (no CSRF token, or a foreign Origin) is refused with 403 and issues nothing', async () => {
      const { account, client, browser, url, allow } = await consentPage();
      const action = new URL(allow.form.action, url);
      const forged = [
        // Another site cannot read the page, so it cannot know the CSRF field.
        { body: new URLSearchParams({ [allow.button.name ?? 'decision']: allow.button.value }).toString(), origin: base },
        // The right fields, sent from another origin.
        {
          body: new URLSearchParams([...allow.form.inputs.map((i): [string, string] => [i.name, i.value]), [allow.button.name ?? '', allow.button.value]]).toString(),
          origin: 'https://evil.example',
        },
      ];
      for (const { body, origin } of forged) {
        const response = await browser.fetch(action, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body });
        expect(response.status).toBe(403);
        expect(response.headers.get('location')).toBeNull();
      }
      expect(await countRows('SELECT count(*) AS n FROM oauth_grants WHERE account_id = $1', [account.accountId])).toBe(0);
      expect(await countRows('SELECT count(*) AS n FROM oauth_codes WHERE client_id = $1', [client.clientId])).toBe(0);
      // The genuine form still works.
      const genuine = await submitForm(browser, url, allow);
      expect(new URL(genuine.headers.get('location')!).searchParams.get('code')).toMatch(/^kgac_/);
    });

    it('a consent post from a signed-out browser goes to sign-in and issues nothing', async () => {
      const { client, url, allow } = await consentPage();
      const stranger = new CookieJar();
      const response = await submitForm(stranger, url, allow);
      expect(response.status).toBe(303);
      expect(new URL(response.headers.get('location')!, base).pathname).toBe('/signin');
      expect(await countRows('SELECT count(*) AS n FROM oauth_codes WHERE client_id = $1', [client.clientId])).toBe(0);
    });

    it('the consent page can be neither framed nor cached', async () => {
      const { page } = await consentPage();
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(page.headers.get('cache-control')).toBe('no-store');
    });

    it('revoking the connection while a code is outstanding: the code can no longer be exchanged', async () => {
      const account = await newAccount(gateway);
      const client = await newClient(gateway);
      const { code, verifier } = await authorizeCode(gateway, account, client, { scope: 'mcp:read' });
      await gateway.services.oauth.revokeConnection(account.accountId, client.clientId);
      expectOAuthError(await exchangeCode(gateway, client, code, verifier), 400, 'invalid_grant');
      expect(await countRows('SELECT count(*) AS n FROM oauth_tokens WHERE account_id = $1', [account.accountId])).toBe(0);
    });

    it.each([
      ['an absolute URL', 'https://evil.example/steal'],
      ['a scheme-relative URL', '//evil.example/steal'],
      ['a backslash path', '/\\evil.example/steal'],
      ['a javascript: URL', 'javascript:alert(1)'],
    ])('sign-in with return_to %s lands on this site, never elsewhere', async (_label, returnTo) => {
      const account = await newAccount(gateway);
      const browser = new CookieJar();
      const url = new URL(`${base}/signin?${new URLSearchParams({ return_to: returnTo }).toString()}`);
      const page = await browser.fetch(url);
      const html = await page.text();
      const form = parseForms(html).find((candidate) => candidate.inputs.some((input) => input.type === 'password'))!;
      const response = await submitForm(browser, url, { form, button: form.buttons[0]! }, { Email: account.email, Password: account.password });
      expect(response.status).toBe(303);
      const location = response.headers.get('location')!;
      expect(new URL(location, base).origin).toBe(new URL(base).origin);
      expect(location).not.toContain('evil.example');
    });
  });
});
