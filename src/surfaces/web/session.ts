import { randomBytes } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { SESSION_TTL_MS, type SessionsService, type WebSession } from '../../domains/sessions/index.ts';
import { constantTimeEqual } from '../../kernel/hashing.ts';
import type { HttpEnv } from '../http/context.ts';
import { html, sendPage, sendRedirect } from './layout.ts';

/** The public base URL, e.g. `https://kgate.example` (a function: with port 0 it is known only after binding). */
export type BaseUrl = () => string;

/** A signed-in request: the session, its secret (the cookie value) and its CSRF token. */
export interface CurrentSession {
  session: WebSession;
  token: string;
  csrf: string;
}

function isHttps(baseUrl: BaseUrl): boolean {
  return baseUrl().startsWith('https:');
}

/**
 * The session cookie's name. Under https the `__Host-` prefix makes the browser refuse the cookie unless it is
 * Secure, host-only and for Path=/, so a sibling subdomain cannot plant or shadow it. Plain http (local use)
 * cannot have Secure cookies, hence the bare name there.
 */
export function sessionCookieName(baseUrl: BaseUrl): string {
  return isHttps(baseUrl) ? '__Host-kgate_session' : 'kgate_session';
}

/**
 * Sets the session cookie: HttpOnly (no script reads it), SameSite=Lax (sent on the top-level navigation from an
 * OAuth client to /oauth/authorize, not on cross-site form posts), and it ends with the session.
 */
export function setSessionCookie(c: Context<HttpEnv>, baseUrl: BaseUrl, token: string): void {
  setCookie(c, sessionCookieName(baseUrl), token, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/',
    secure: isHttps(baseUrl),
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** Removes the session cookie from the browser. */
export function clearSessionCookie(c: Context<HttpEnv>, baseUrl: BaseUrl): void {
  setCookie(c, sessionCookieName(baseUrl), '', { httpOnly: true, sameSite: 'Lax', path: '/', secure: isHttps(baseUrl), maxAge: 0 });
}

/** The signed-in session of this request, or undefined. */
export async function currentSession(c: Context<HttpEnv>, baseUrl: BaseUrl, sessions: SessionsService): Promise<CurrentSession | undefined> {
  const token = getCookie(c, sessionCookieName(baseUrl));
  if (!token) return undefined;
  const session = await sessions.resolve(token);
  return session && { session, token, csrf: sessions.csrfTokenOf(token) };
}

/** The name of the sign-in form's double-submit cookie. */
export const SIGN_IN_COOKIE = 'kgate_signin';
// Long enough to type a password (and look one up), short enough that a stale form is not kept for long.
const SIGN_IN_FORM_TTL_SECONDS = 30 * 60;

/**
 * Issues the sign-in form's CSRF value (there is no session yet to bind one to): a random value in a short-lived
 * HttpOnly, SameSite=Strict cookie and the same value in the form. Another site can neither read the cookie nor
 * make the browser send it with a cross-site post, so it cannot build a matching pair (login CSRF).
 */
export function issueSignInCsrf(c: Context<HttpEnv>, baseUrl: BaseUrl): string {
  const value = randomBytes(32).toString('base64url');
  setCookie(c, SIGN_IN_COOKIE, value, {
    httpOnly: true,
    sameSite: 'Strict',
    path: '/signin',
    secure: isHttps(baseUrl),
    maxAge: SIGN_IN_FORM_TTL_SECONDS,
  });
  return value;
}

/** True when the sign-in form's field matches its cookie. */
export function signInCsrfMatches(c: Context<HttpEnv>, form: URLSearchParams): boolean {
  const cookie = getCookie(c, SIGN_IN_COOKIE) ?? '';
  const field = form.get('csrf') ?? '';
  return cookie.length >= 32 && constantTimeEqual(cookie, field);
}

/**
 * True when the request may come from our own pages: an `Origin` header, when the browser sends one, must be the
 * origin of the public base URL (or, before that is known, of the request itself).
 */
export function originAllowed(c: Context<HttpEnv>, baseUrl: BaseUrl): boolean {
  const origin = c.req.header('origin');
  if (origin === undefined) return true;
  const base = baseUrl();
  return origin === new URL(base === '' ? c.req.url : base).origin;
}

/** True when a signed-in form post carries the session's CSRF token and no foreign origin. */
export function sessionFormAllowed(c: Context<HttpEnv>, baseUrl: BaseUrl, form: URLSearchParams, current: CurrentSession): boolean {
  return originAllowed(c, baseUrl) && constantTimeEqual(form.get('csrf') ?? '', current.csrf);
}

/** The page for a refused form post: nothing was changed. */
export function forbiddenFormPage(c: Context<HttpEnv>, current?: CurrentSession): Response {
  return sendPage(
    c,
    {
      title: 'Request refused',
      body: html`<p class="error">This form could not be accepted: it has expired or was not sent from this site. Nothing was changed.</p>
        <p>Go back, reload the page and try again.</p>`,
      signedIn: current && { email: current.session.email, csrf: current.csrf },
    },
    403,
  );
}

// Forms here carry a few short fields; anything bigger is not ours.
const MAX_FORM_BYTES = 16 * 1024;

/** Bounds a form post's body; a larger one gets a 413 page. */
export const formBodyLimit: MiddlewareHandler<HttpEnv> = bodyLimit({
  maxSize: MAX_FORM_BYTES,
  onError: (context) => {
    // hono/body-limit types its context without our environment.
    const c = context as Context<HttpEnv>;
    c.header('Connection', 'close');
    return sendPage(c, { title: 'Form too large', body: html`<p class="error">The form is larger than this site accepts.</p>` }, 413);
  },
});

/** The fields of a URL-encoded form post (what browsers send); anything else reads as an empty form. */
export async function readForm(c: Context<HttpEnv>): Promise<URLSearchParams> {
  const type = c.req.header('content-type') ?? '';
  if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) return new URLSearchParams();
  return new URLSearchParams(await c.req.text());
}

/** The path and query of this request, as the sign-in page should return to it. */
export function pathWithQuery(c: Context<HttpEnv>): string {
  const url = new URL(c.req.url);
  return url.pathname + url.search;
}

/** Sends the browser to the sign-in page, to come back to this page afterwards. */
export function redirectToSignIn(c: Context<HttpEnv>, returnTo: string = pathWithQuery(c)): Response {
  return sendRedirect(c, `/signin?${new URLSearchParams({ return_to: returnTo }).toString()}`);
}

// A path that a browser could read as another origin: `//host`, `/\host`, or either hidden by tabs and newlines
// (which URL parsers drop). Our own return paths are percent-encoded, so anything but printable ASCII is refused.
const UNSAFE_RETURN = /[^\x20-\x7e]|\\|^\/\//;
const PROBE_ORIGIN = 'http://return-to.invalid';

/**
 * Where to go after sign-in: `returnTo` when it is a path on this site, else `/account`. Never an absolute or
 * scheme-relative URL, so the sign-in page cannot be used to send people elsewhere (an open redirect).
 */
export function safeReturnTo(returnTo: string | null | undefined): string {
  if (!returnTo || !returnTo.startsWith('/') || returnTo.length > 4096 || UNSAFE_RETURN.test(returnTo)) return '/account';
  try {
    const url = new URL(returnTo, PROBE_ORIGIN);
    if (url.origin !== PROBE_ORIGIN) return '/account';
    return url.pathname + url.search;
  } catch {
    return '/account';
  }
}
