import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { SessionsService } from '../../domains/sessions/index.ts';
import { isKgateError, type KgateError } from '../../kernel/errors.ts';
import { clientAddressOf } from '../http/client-address.ts';
import type { HttpEnv } from '../http/context.ts';
import { page } from './errors.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import {
  clearSessionCookie,
  currentSession,
  formBodyLimit,
  forbiddenFormPage,
  issueSignInCsrf,
  originAllowed,
  readForm,
  safeReturnTo,
  sessionFormAllowed,
  setSessionCookie,
  signInCsrfMatches,
  type BaseUrl,
} from './session.ts';

/** What the sign-in pages need. */
export interface SignInDependencies {
  baseUrl: BaseUrl;
  sessions: SessionsService;
  /** Reverse proxies whose X-Forwarded-For is believed (KGATE_TRUST_PROXY): who the client is, for the throttles. */
  trustedProxies: number;
}

/** A refused sign-in as the form shows it: status, message and the stable code (the error's reason, else its code). */
interface SignInFailure {
  status: ContentfulStatusCode;
  message: string;
}

// Shown for a wrong address and a wrong password alike (the domain does not say which either).
const FAILURE_MESSAGES: Partial<Record<string, SignInFailure>> = {
  unauthenticated: { status: 401, message: 'The e-mail or password is wrong.' },
  sign_in_account_locked: { status: 429, message: 'Too many failed sign-ins for this e-mail address. Wait a while, then try again.' },
  sign_in_address_locked: { status: 429, message: 'Too many failed sign-ins from your network address. Wait a while, then try again.' },
  account_inactive: { status: 403, message: 'This account is suspended. Contact the operator of this service.' },
};

/** The stable code of a refusal: the domain's `details.reason` where it gives one, else its error code. */
function failureCodeOf(error: KgateError): string {
  const reason = error.details?.reason;
  return typeof reason === 'string' ? reason : error.code;
}

function signInForm(
  c: Context<HttpEnv>,
  deps: SignInDependencies,
  view: { returnTo: string; email?: string; error?: string; code?: string },
  status: ContentfulStatusCode = 200,
): Response {
  const csrf = issueSignInCsrf(c, deps.baseUrl);
  const action = `/signin?${new URLSearchParams({ return_to: view.returnTo }).toString()}`;
  return sendPage(
    c,
    {
      title: 'Sign in',
      body: html`${view.error ? html`<p class="error" role="alert" data-code="${view.code ?? ''}">${view.error}</p>` : ''}
        <form method="post" action="${action}">
          <input type="hidden" name="csrf" value="${csrf}">
          <label for="email">Email</label>
          <input type="email" id="email" name="email" autocomplete="username" required value="${view.email ?? ''}">
          <label for="password">Password</label>
          <input type="password" id="password" name="password" autocomplete="current-password" required>
          <button type="submit">Sign in</button>
        </form>`,
    },
    status,
  );
}

/**
 * `GET/POST /signin` (e-mail and password; then back to `return_to` when it is a path on this site) and
 * `POST /signout` (ends the session and removes the cookie).
 */
export function signInPages(deps: SignInDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/signin',
    page(async (c) => {
      const returnTo = safeReturnTo(c.req.query('return_to'));
      // Someone already signed in has nothing to do here.
      if (await currentSession(c, deps.baseUrl, deps.sessions)) return sendRedirect(c, returnTo);
      return signInForm(c, deps, { returnTo });
    }),
  );

  app.post(
    '/signin',
    formBodyLimit,
    page(async (c) => {
      const form = await readForm(c);
      const returnTo = safeReturnTo(c.req.query('return_to') ?? form.get('return_to'));
      const email = form.get('email') ?? '';
      if (!originAllowed(c, deps.baseUrl) || !signInCsrfMatches(c, form)) {
        // Most often a form left open past its cookie: a fresh form lets the person simply try again.
        const error = 'This sign-in form has expired or was not sent from this site. Nothing was done; please sign in again.';
        return signInForm(c, deps, { returnTo, email, error, code: 'form_expired' }, 403);
      }
      try {
        const { token } = await deps.sessions.signIn(email, form.get('password') ?? '', clientAddressOf(c, deps.trustedProxies));
        setSessionCookie(c, deps.baseUrl, token);
        return sendRedirect(c, returnTo);
      } catch (error) {
        if (!isKgateError(error)) throw error;
        const code = failureCodeOf(error);
        const failure = FAILURE_MESSAGES[code];
        if (!failure) throw error;
        const retryAfter = error.details?.retryAfterSeconds;
        if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
        return signInForm(c, deps, { returnTo, email, error: failure.message, code }, failure.status);
      }
    }),
  );

  app.post(
    '/signout',
    formBodyLimit,
    page(async (c) => {
      const form = await readForm(c);
      const current = await currentSession(c, deps.baseUrl, deps.sessions);
      if (current) {
        if (!sessionFormAllowed(c, deps.baseUrl, form, current)) return forbiddenFormPage(c, current);
        await deps.sessions.signOut(current.token);
      }
      clearSessionCookie(c, deps.baseUrl);
      return sendRedirect(c, '/signin');
    }),
  );

  return app;
}
