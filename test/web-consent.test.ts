import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, publicBaseUrl } from '../src/config.ts';
import { hiddenField, pageBrowser, signInThroughForm, type PageBrowser } from './support/browser.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

describe('the OAuth consent page and connected applications', () => {
  let gateway: TestGateway;
  let base: string;
  const PASSWORD = 'a long enough password';
  const REDIRECT = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    gateway = await startTestGateway();
    base = publicBaseUrl(loadConfig({ PORT: '0' }), gateway.url);
  });
  afterAll(() => gateway.stop());

  async function newOwner(label: string) {
    const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
    const owner = await gateway.services.onboarding.bootstrapOwner({ email, password: PASSWORD });
    return { ...owner, email };
  }

  async function registerClient(name: string, redirectUri = REDIRECT): Promise<string> {
    const registered = await gateway.services.oauth.registerClient({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    });
    return registered.client_id as string;
  }

  function authorizePath(clientId: string, extra: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'state-123',
      scope: 'mcp:read offline_access',
      resource: `${base}/api/mcp`,
      ...extra,
    });
    return { path: `/oauth/authorize?${params.toString()}`, verifier };
  }

  async function signedIn(label: string): Promise<{ browser: PageBrowser; owner: Awaited<ReturnType<typeof newOwner>> }> {
    const owner = await newOwner(label);
    const browser = pageBrowser(gateway.url);
    expect((await signInThroughForm(browser, owner.email, PASSWORD)).status).toBe(303);
    return { browser, owner };
  }

  const grantRows = async (accountId: string) =>
    gateway.db.query<{ revoked_at: Date | null }>('SELECT revoked_at FROM oauth_grants WHERE account_id = $1', [accountId]);

  it('sends a visitor without a session to sign in, then back to the same request', async () => {
    const clientId = await registerClient('Round Trip');
    const { path } = authorizePath(clientId);
    const browser = pageBrowser(gateway.url);
    const first = await browser.get(path);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe(`/signin?return_to=${encodeURIComponent(path)}`);
    const owner = await newOwner('roundtrip');
    const signIn = await signInThroughForm(browser, owner.email, PASSWORD, path);
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get('location')).toBe(path);
    expect((await browser.get(path)).status).toBe(200);
  });

  it('explains the request: the client as its own claim, scopes, the redirect host, a loopback warning, the account', async () => {
    const clientId = await registerClient('Notes <b>Helper</b>');
    const { browser, owner } = await signedIn('consent');
    const response = await browser.get(authorizePath(clientId).path);
    const page = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).not.toContain('form-action');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(page).toContain('Notes &lt;b&gt;Helper&lt;/b&gt;');
    expect(page).not.toContain('<b>Helper');
    expect(page).toContain('the name the application gives itself');
    expect(page).toContain('See the vaults you can reach');
    expect(page).toContain('Stay connected when you are away');
    expect(page).not.toContain('Propose changes to notes');
    expect(page).toContain('127.0.0.1:9');
    expect(page).toContain('This application receives the authorization on your own computer.');
    expect(page).toContain(owner.email);
    expect(page).toContain('>Allow</button>');
    expect(page).toContain('>Deny</button>');
    expect(page.match(/<h1>/g)).toHaveLength(1);
  });

  it('Allow redirects with a code that the token endpoint exchanges; Deny with access_denied', async () => {
    const clientId = await registerClient('Exchanger');
    const { browser, owner } = await signedIn('allow');
    const { path, verifier } = authorizePath(clientId);
    const csrf = hiddenField(await (await browser.get(path)).text(), 'csrf');
    const allowed = await browser.post(path, { csrf, decision: 'allow' });
    expect(allowed.status).toBe(303);
    const callback = new URL(allowed.headers.get('location')!);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT);
    expect(callback.searchParams.get('state')).toBe('state-123');
    const code = callback.searchParams.get('code')!;
    const tokens = await gateway.services.oauth.exchange({ grantType: 'authorization_code', code, redirectUri: REDIRECT, clientId, codeVerifier: verifier });
    expect(tokens.scope.split(' ')).toContain('mcp:read');
    expect(tokens.refresh_token).toBeDefined();
    expect(await grantRows(owner.accountId)).toHaveLength(1);

    const denied = await browser.post(path, { csrf, decision: 'deny' });
    expect(denied.status).toBe(303);
    const refusal = new URL(denied.headers.get('location')!);
    expect(refusal.searchParams.get('error')).toBe('access_denied');
    expect(refusal.searchParams.get('state')).toBe('state-123');
    expect(await grantRows(owner.accountId)).toHaveLength(1);
  });

  it('refuses a consent post without the CSRF token or from another origin, and grants nothing', async () => {
    const clientId = await registerClient('Forger');
    const { browser, owner } = await signedIn('forged');
    const { path } = authorizePath(clientId);
    const csrf = hiddenField(await (await browser.get(path)).text(), 'csrf');
    for (const response of [
      await browser.post(path, { decision: 'allow' }),
      await browser.post(path, { csrf: 'x'.repeat(64), decision: 'allow' }),
      await browser.post(path, { csrf, decision: 'allow' }, { origin: 'https://evil.example' }),
    ]) {
      expect(response.status).toBe(403);
      expect(response.headers.get('location')).toBeNull();
    }
    expect(await grantRows(owner.accountId)).toEqual([]);
    // Without a session at all: to the sign-in page, nothing granted.
    const anonymous = await pageBrowser(gateway.url).post(path, { csrf, decision: 'allow' });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toMatch(/^\/signin\?return_to=/);
    expect(await grantRows(owner.accountId)).toEqual([]);
  });

  it('shows errors about the client or redirect URI on a page, and sends other errors to the client', async () => {
    const clientId = await registerClient('Errors');
    const { browser } = await signedIn('errors');
    for (const path of [
      authorizePath('kgc_unknown').path,
      authorizePath(clientId, { redirect_uri: 'https://evil.example/cb' }).path,
    ]) {
      const response = await browser.get(path);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('This authorization request cannot be used');
    }
    const noPkce = await browser.get(authorizePath(clientId, { code_challenge_method: 'plain' }).path);
    expect(noPkce.status).toBe(302);
    const location = new URL(noPkce.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });

  it('lists connected applications and revokes one (only with the CSRF token)', async () => {
    const clientId = await registerClient('Connected <i>App</i>');
    const { browser, owner } = await signedIn('connections');
    const { path, verifier } = authorizePath(clientId);
    const csrf = hiddenField(await (await browser.get(path)).text(), 'csrf');
    const code = new URL((await browser.post(path, { csrf, decision: 'allow' })).headers.get('location')!).searchParams.get('code')!;
    await gateway.services.oauth.exchange({ grantType: 'authorization_code', code, redirectUri: REDIRECT, clientId, codeVerifier: verifier });
    const list = await (await browser.get('/account/connections')).text();
    expect(list).toContain('Connected &lt;i&gt;App&lt;/i&gt;');
    expect(list).toContain('mcp:read');
    expect(list).toContain('<th scope="col">Application</th>');

    const forged = await browser.post('/account/connections/revoke', { client_id: clientId });
    expect(forged.status).toBe(403);
    expect((await grantRows(owner.accountId)).every((row) => row.revoked_at === null)).toBe(true);

    const revoked = await browser.post('/account/connections/revoke', { csrf, client_id: clientId });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get('location')).toBe('/account/connections?notice=revoked');
    expect((await grantRows(owner.accountId)).every((row) => row.revoked_at !== null)).toBe(true);
    const after = await (await browser.get('/account/connections?notice=revoked')).text();
    expect(after).toContain('The application was disconnected.');
    expect(after).toContain('No applications are connected.');
  });
});
