/**
 * An OAuth client's and a person's side of kgate's authorization server, for tests: accounts, client registration,
 * PKCE, the sign-in + consent walk that ends at the client's redirect URI, and the token and revocation requests.
 * The pages are driven through html-forms.ts, by labels and button texts; nothing here knows kgate's field names.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { TestGateway } from './gateway.ts';
import { CookieJar, formWithButton, parseForms, submitForm } from './html-forms.ts';

/** The public base URL the gateway publishes (issuer; the MCP resource is `${base}/api/mcp`). */
export function baseOf(gateway: Pick<TestGateway, 'services'>): string {
  return gateway.services.oauth.issuer();
}

// ---------------------------------------------------------------------------------------------------------------
// Sign-in and consent
// ---------------------------------------------------------------------------------------------------------------

/** What a person does on the pages. */
export interface BrowserAuthorization {
  email: string;
  password: string;
  /** The full /oauth/authorize URL the client built. */
  authorizationUrl: string | URL;
  decision: 'Allow' | 'Deny';
  /** A browser that may already be signed in; a fresh one by default. */
  jar?: CookieJar;
}

const isRedirect = (status: number) => status >= 300 && status < 400;

/**
 * Plays the browser from the authorization URL to the client's redirect URI: follows redirects on the gateway,
 * signs in when a password form appears, and presses Allow or Deny on the consent page. Returns the final
 * Location (the client's redirect_uri with code, state and iss, or with an error). Throws, with the page, when
 * the walk ends anywhere else (an error page, a refused form).
 */
export async function signInAndAuthorize(gateway: Pick<TestGateway, 'url' | 'services'>, options: BrowserAuthorization): Promise<URL> {
  const jar = options.jar ?? new CookieJar();
  const gatewayOrigins = new Set([new URL(gateway.url).origin, new URL(baseOf(gateway)).origin]);
  let url = new URL(options.authorizationUrl);
  let response = await jar.fetch(url);
  let signedIn = false;
  let decided = false;
  for (let step = 0; step < 20; step += 1) {
    if (isRedirect(response.status)) {
      const location = response.headers.get('location');
      if (!location) throw new Error(`HTTP ${response.status} without Location at ${url.href}`);
      const next = new URL(location, url);
      await response.body?.cancel();
      if (!gatewayOrigins.has(next.origin)) return next;
      url = next;
      response = await jar.fetch(url);
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`HTTP ${response.status} at ${url.href}:\n${html.slice(0, 2000)}`);
    const forms = parseForms(html);
    const signIn = forms.find((form) => form.inputs.some((input) => input.type === 'password'));
    if (signIn && !signedIn) {
      const button = signIn.buttons[0];
      if (!button) throw new Error(`The sign-in form has no submit button:\n${html.slice(0, 2000)}`);
      signedIn = true;
      response = await submitForm(jar, url, { form: signIn, button }, { Email: options.email, Password: options.password });
      continue;
    }
    if (!decided) {
      decided = true;
      response = await submitForm(jar, url, formWithButton(html, options.decision));
      continue;
    }
    throw new Error(`The walk did not reach the client's redirect URI; last page ${url.href}:\n${html.slice(0, 2000)}`);
  }
  throw new Error(`Too many steps from ${String(options.authorizationUrl)}`);
}

/** Signs a fresh browser in through the sign-in page; returns the browser (its jar holds the session cookie). */
export async function signIn(gateway: Pick<TestGateway, 'services'>, account: { email: string; password: string }): Promise<CookieJar> {
  const jar = new CookieJar();
  const url = new URL(`${baseOf(gateway)}/signin`);
  const page = await jar.fetch(url);
  const html = await page.text();
  const form = parseForms(html).find((candidate) => candidate.inputs.some((input) => input.type === 'password'));
  if (page.status !== 200 || !form || !form.buttons[0]) throw new Error(`No sign-in form at ${url.href} (HTTP ${page.status})`);
  const response = await submitForm(jar, url, { form, button: form.buttons[0] }, { Email: account.email, Password: account.password });
  await response.body?.cancel();
  if (!isRedirect(response.status)) throw new Error(`Sign-in failed with HTTP ${response.status}`);
  return jar;
}

// ---------------------------------------------------------------------------------------------------------------
// Client side: registration, PKCE, token requests
// ---------------------------------------------------------------------------------------------------------------

/** A loopback redirect URI on a port nothing listens on: the walk stops at its Location and never follows it. */
export function loopbackRedirectUri(path = '/callback'): string {
  return `http://127.0.0.1:${40_000 + (randomBytes(2).readUInt16BE() % 20_000)}${path}`;
}

/** RFC 7591 registration of a public client; returns the status and the parsed body. */
export async function registerClient(
  gateway: Pick<TestGateway, 'services'>,
  metadata: Record<string, unknown> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${baseOf(gateway)}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test client',
      redirect_uris: [loopbackRedirectUri()],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
      ...metadata,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, headers: response.headers };
}

/** A registered client: its id and its (first) redirect URI. Throws when registration fails. */
export async function newClient(gateway: Pick<TestGateway, 'services'>, metadata: Record<string, unknown> = {}): Promise<{ clientId: string; redirectUri: string }> {
  const { status, body } = await registerClient(gateway, metadata);
  if (status !== 201) throw new Error(`Registration failed with HTTP ${status}: ${JSON.stringify(body)}`);
  return { clientId: body.client_id as string, redirectUri: (body.redirect_uris as string[])[0]! };
}

/** A PKCE pair (RFC 7636 S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An /oauth/authorize URL; `params` replace or (with undefined) remove the defaults. */
export function authorizationUrl(
  gateway: Pick<TestGateway, 'services'>,
  client: { clientId: string; redirectUri: string },
  params: Readonly<Record<string, string | undefined>> & { code_challenge?: string | undefined },
): URL {
  const base = baseOf(gateway);
  const url = new URL(`${base}/oauth/authorize`);
  const all: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    code_challenge_method: 'S256',
    state: randomBytes(8).toString('hex'),
    resource: `${base}/api/mcp`,
    ...params,
  };
  for (const [key, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(key, value);
  return url;
}

/** A raw token or revocation request: the status, the headers and the parsed JSON (or null). */
export interface FormResponse {
  status: number;
  headers: Headers;
  body: Record<string, any> | null; // eslint-disable-line @typescript-eslint/no-explicit-any -- token responses and RFC 6749 errors
}

/** POSTs a form (or any body) to a gateway endpoint. */
export async function postForm(
  gateway: Pick<TestGateway, 'services'>,
  path: string,
  form: URLSearchParams | Record<string, string> | string,
  headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' },
): Promise<FormResponse> {
  const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  const response = await fetch(`${baseOf(gateway)}${path}`, { method: 'POST', headers, body });
  const text = await response.text();
  let parsed: FormResponse['body'] = null;
  try {
    parsed = text ? (JSON.parse(text) as FormResponse['body']) : null;
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A token request at /oauth/token. */
export function tokenRequest(gateway: Pick<TestGateway, 'services'>, form: Record<string, string> | URLSearchParams | string, headers?: Record<string, string>) {
  return postForm(gateway, '/oauth/token', form, headers);
}

/** An account that can sign in, with its hosted mapping and a personal access token. */
export interface TestAccount {
  email: string;
  password: string;
  accountId: string;
  mappingId: string;
  personalToken: string;
}

/** Creates an account with a password through onboarding. */
export async function newAccount(gateway: Pick<TestGateway, 'services'>, label = 'oauth'): Promise<TestAccount> {
  const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const result = await gateway.services.onboarding.bootstrapOwner({ email, password });
  return { email, password, accountId: result.accountId, mappingId: result.mapping.id, personalToken: result.token };
}

/** The result of a complete authorization: the client, the code's inputs and the token response. */
export interface Connected {
  clientId: string;
  redirectUri: string;
  verifier: string;
  tokens: { access_token: string; refresh_token?: string; scope: string; expires_in: number; token_type: string };
}

/** Walks the browser to a code (Allow) for a fresh PKCE pair; returns the code and the verifier. */
export async function authorizeCode(
  gateway: Pick<TestGateway, 'url' | 'services'>,
  account: Pick<TestAccount, 'email' | 'password'>,
  client: { clientId: string; redirectUri: string },
  params: Readonly<Record<string, string | undefined>> = {},
): Promise<{ code: string; verifier: string; location: URL }> {
  const { verifier, challenge } = pkcePair();
  const url = authorizationUrl(gateway, client, { code_challenge: challenge, ...params });
  const location = await signInAndAuthorize(gateway, { email: account.email, password: account.password, authorizationUrl: url, decision: 'Allow' });
  const code = location.searchParams.get('code');
  if (!code) throw new Error(`No code at ${location.href}`);
  return { code, verifier, location };
}

/** The authorization_code token request of a code. */
export function exchangeCode(
  gateway: Pick<TestGateway, 'services'>,
  client: { clientId: string; redirectUri: string },
  code: string,
  verifier: string,
  extra: Record<string, string> = {},
): Promise<FormResponse> {
  return tokenRequest(gateway, {
    grant_type: 'authorization_code',
    client_id: client.clientId,
    code,
    redirect_uri: client.redirectUri,
    code_verifier: verifier,
    resource: `${baseOf(gateway)}/api/mcp`,
    ...extra,
  });
}

/** The refresh_token token request. */
export function refresh(gateway: Pick<TestGateway, 'services'>, clientId: string, refreshToken: string, extra: Record<string, string> = {}): Promise<FormResponse> {
  return tokenRequest(gateway, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken, ...extra });
}

/** Registers a client, signs in, allows, and exchanges the code: an OAuth connection ready to use. */
export async function connect(
  gateway: Pick<TestGateway, 'url' | 'services'>,
  account: Pick<TestAccount, 'email' | 'password'>,
  options: { scope?: string; client?: { clientId: string; redirectUri: string } } = {},
): Promise<Connected> {
  const client = options.client ?? (await newClient(gateway));
  const { code, verifier } = await authorizeCode(gateway, account, client, { scope: options.scope ?? 'mcp:read mcp:write offline_access' });
  const response = await exchangeCode(gateway, client, code, verifier);
  if (response.status !== 200) throw new Error(`Token exchange failed with HTTP ${response.status}: ${JSON.stringify(response.body)}`);
  return { ...client, verifier, tokens: response.body as Connected['tokens'] };
}

