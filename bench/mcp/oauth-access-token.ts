/**
 * An OAuth access token (`kgat_…`) for the MCP benchmark, obtained the way an interactive MCP client and its user
 * obtain one (docs/oauth.md), with plain fetch against a running `kgate serve`:
 *
 * 1. `GET /.well-known/oauth-protected-resource/api/mcp`: the resource the token is for;
 * 2. `POST /oauth/register`: a public client with a loopback redirect URI (dynamic registration);
 * 3. `GET /signin`, then `POST /signin` with the form's CSRF value and its `kgate_signin` cookie: a session cookie;
 * 4. `GET /oauth/authorize` with PKCE S256 and the session: the consent page;
 * 5. `POST` of the consent form with its "Allow" button: a 303 to the redirect URI with the code;
 * 6. `POST /oauth/token` with the code and its verifier: the access token.
 *
 * Every step's status and answer are checked; a failure throws an error naming the step. Nothing here follows a
 * redirect: the redirect URI is never called (nothing listens there), its code is read from the Location header.
 */
import { createHash, randomBytes } from 'node:crypto';

/** The redirect URI the benchmark's client registers: loopback, so allowed over http; nothing listens on port 9. */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** What an MCP client following `scopes_supported` asks for; `get_note_content` needs only `mcp:read`. */
const SCOPE = 'mcp:read mcp:write';

/** The owner who approves the client. */
export interface OAuthOwner {
  email: string;
  password: string;
}

/** The outcome of the flow: the token, and what it was issued for. */
export interface OAuthAccessToken {
  accessToken: string;
  /** The MCP resource (audience) the server published and bound the token to, e.g. `http://localhost:PORT/api/mcp`. */
  resource: string;
  clientId: string;
  /** Granted scopes, as the token endpoint answered them. */
  scope: string;
}

class StepError extends Error {
  constructor(step: string, message: string) {
    super(`OAuth access token, step "${step}": ${message}`);
  }
}

/** The answer's body, after checking its status; throws naming the step otherwise. */
async function expectStatus(step: string, response: Response, status: number): Promise<string> {
  const body = await response.text();
  if (response.status !== status) {
    // A page says what went wrong in its error paragraph; the markup before it would hide that.
    const error = /<p class="error"[^>]*>([\s\S]*?)<\/p>/.exec(body)?.[1];
    throw new StepError(step, `expected HTTP ${status}, got ${response.status}: ${(error ?? body).slice(0, 500)}`);
  }
  return body;
}

function parseJson<T>(step: string, body: string): T {
  try {
    return JSON.parse(body) as T;
  } catch {
    throw new StepError(step, `the answer is not JSON: ${body.slice(0, 300)}`);
  }
}

/** The value of the cookie `name` a response sets; throws naming the step when it sets none. */
function setCookie(step: string, response: Response, name: string): string {
  const line = response.headers.getSetCookie().find((l) => l.startsWith(`${name}=`));
  const value = line?.slice(name.length + 1).split(';')[0];
  if (!value) throw new StepError(step, `no ${name} cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return value;
}

function location(step: string, response: Response): string {
  const target = response.headers.get('location');
  if (!target) throw new StepError(step, 'the redirect has no Location header');
  return target;
}

// Pages escape every value they print (src/surfaces/web/layout.ts); these are all the escapes it produces.
function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[name]!);
}

/** An attribute of one HTML tag, unescaped; undefined when the tag has none. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`).exec(tag);
  return match ? unescapeHtml(match[1]!) : undefined;
}

/** The value of the hidden input `name` in some markup; throws naming the step when it is missing. */
function hiddenField(step: string, markup: string, name: string): string {
  for (const tag of markup.match(/<input\b[^>]*>/g) ?? []) {
    if (attribute(tag, 'type') === 'hidden' && attribute(tag, 'name') === name) return attribute(tag, 'value') ?? '';
  }
  throw new StepError(step, `no hidden field "${name}" in the page`);
}

/**
 * The consent form: its action, its CSRF value and the name and value of its "Allow" button. Read from the page
 * rather than assumed, so that the benchmark posts what a person's browser would. The page has another form (the
 * header's sign-out), hence the search for the one that posts to `/oauth/authorize`.
 */
function consentForm(step: string, page: string): { action: string; fields: Record<string, string> } {
  for (const [form, open] of page.matchAll(/(<form\b[^>]*>)[\s\S]*?<\/form>/g)) {
    const action = attribute(open!, 'action');
    if (!action?.startsWith('/oauth/authorize')) continue;
    const allow = [...form.matchAll(/(<button\b[^>]*>)([\s\S]*?)<\/button>/g)].find(([, , text]) => text!.trim() === 'Allow');
    const name = allow && attribute(allow[1]!, 'name');
    const value = allow && attribute(allow[1]!, 'value');
    if (!name || value === undefined) throw new StepError(step, 'the consent form has no named "Allow" button');
    return { action, fields: { csrf: hiddenField(step, form, 'csrf'), [name]: value } };
  }
  throw new StepError(step, `no consent form posting to /oauth/authorize in the page: ${page.slice(0, 500)}`);
}

/** Posts a URL-encoded form, as a browser does (with `cookie`, if given), without following a redirect. */
function postForm(target: string | URL, fields: Record<string, string>, cookie?: string): Promise<Response> {
  return fetch(target, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie === undefined ? {} : { cookie }) },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Runs the authorization code flow with PKCE against the server at `url` (the address the benchmark connects to)
 * and signs in as `owner`, who approves a newly registered client; resolves with the access token.
 *
 * Requests go to `url` (127.0.0.1), while the `resource` parameter is the one the server publishes: its public base
 * URL is `http://localhost:PORT` unless KGATE_BASE_URL is set, and a token is bound to exactly that audience.
 * Taking it from the metadata, as an MCP client does, keeps the two apart without configuring either. No request
 * sends an Origin header (fetch in Node sends none), so the pages' Origin checks pass as for a same-site form.
 */
export async function oauthAccessToken(url: string, owner: OAuthOwner): Promise<OAuthAccessToken> {
  let step = 'protected-resource metadata';
  const metadata = parseJson<{ resource?: unknown }>(step, await expectStatus(step, await fetch(`${url}/.well-known/oauth-protected-resource/api/mcp`), 200));
  if (typeof metadata.resource !== 'string') throw new StepError(step, 'no resource in the metadata');
  const resource = metadata.resource;

  step = 'register';
  const registration = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: 'kgate bench', grant_types: ['authorization_code'] }),
  });
  const client = parseJson<{ client_id?: unknown }>(step, await expectStatus(step, registration, 201));
  if (typeof client.client_id !== 'string') throw new StepError(step, 'no client_id in the answer');
  const clientId = client.client_id;

  step = 'sign-in form';
  const signInPage = await fetch(`${url}/signin`, { redirect: 'manual' });
  const signInCsrf = hiddenField(step, await expectStatus(step, signInPage, 200), 'csrf');
  const signInCookie = setCookie(step, signInPage, 'kgate_signin');

  step = 'sign in';
  const signIn = await postForm(`${url}/signin`, { csrf: signInCsrf, email: owner.email, password: owner.password }, `kgate_signin=${signInCookie}`);
  await expectStatus(step, signIn, 303);
  const session = `kgate_session=${setCookie(step, signIn, 'kgate_session')}`;

  step = 'authorize';
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    scope: SCOPE,
    state,
    resource,
  });
  const consentPage = await fetch(`${url}/oauth/authorize?${query.toString()}`, { redirect: 'manual', headers: { cookie: session } });
  const consent = consentForm(step, await expectStatus(step, consentPage, 200));

  step = 'allow';
  const decision = await postForm(new URL(consent.action, url), consent.fields, session);
  await expectStatus(step, decision, 303);
  const callback = new URL(location(step, decision));
  if (`${callback.origin}${callback.pathname}` !== REDIRECT_URI) throw new StepError(step, `redirected to ${callback.href}, not the redirect URI`);
  const code = callback.searchParams.get('code');
  if (callback.searchParams.get('state') !== state || !code) throw new StepError(step, `no code or a wrong state in ${callback.href}`);

  step = 'token';
  const tokenAnswer = await postForm(`${url}/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    resource,
  });
  const tokens = parseJson<{ access_token?: unknown; token_type?: unknown; scope?: unknown }>(step, await expectStatus(step, tokenAnswer, 200));
  if (typeof tokens.access_token !== 'string' || !tokens.access_token.startsWith('kgat_') || tokens.token_type !== 'Bearer') {
    throw new StepError(step, `not a kgate access token: ${JSON.stringify({ ...tokens, access_token: typeof tokens.access_token })}`);
  }
  const scope = typeof tokens.scope === 'string' ? tokens.scope : '';
  if (!scope.split(' ').includes('mcp:read')) throw new StepError(step, `the token lacks mcp:read (scope "${scope}")`);
  return { accessToken: tokens.access_token, resource, clientId, scope };
}
