import type { Context, Handler } from 'hono';
import type { SessionsService } from '../../domains/sessions/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { errorPage } from './errors.ts';
import type { SignedIn } from './layout.ts';
import { currentSession, forbiddenFormPage, readForm, redirectToSignIn, sessionFormAllowed, type BaseUrl, type CurrentSession } from './session.ts';

/** What every page of a signed-in account needs. */
export interface AccountPageDependencies {
  baseUrl: BaseUrl;
  sessions: SessionsService;
}

/** The page header's view of a session. */
export function signedInAs(current: CurrentSession): SignedIn {
  return { email: current.session.email, csrf: current.csrf };
}

/**
 * A page only a signed-in account sees: without a session the browser goes to the sign-in page and comes back.
 * Errors become error pages that keep the account navigation.
 */
export function accountPage(
  deps: AccountPageDependencies,
  handler: (c: Context<HttpEnv>, current: CurrentSession) => Promise<Response>,
): Handler<HttpEnv> {
  return async (c) => {
    let current: CurrentSession | undefined;
    try {
      current = await currentSession(c, deps.baseUrl, deps.sessions);
      if (!current) return redirectToSignIn(c);
      return await handler(c, current);
    } catch (error) {
      return errorPage(c, error, current && signedInAs(current));
    }
  };
}

/**
 * A state-changing form post of a signed-in account: it runs only with the session's CSRF token and no foreign
 * `Origin`; otherwise a 403 page, and nothing changes. Without a session, the sign-in page (which then returns to
 * `backTo`, a page, since a form post cannot be repeated by a redirect).
 */
export function accountForm(
  deps: AccountPageDependencies,
  backTo: string,
  handler: (c: Context<HttpEnv>, current: CurrentSession, form: URLSearchParams) => Promise<Response>,
): Handler<HttpEnv> {
  return async (c) => {
    let current: CurrentSession | undefined;
    try {
      const form = await readForm(c);
      current = await currentSession(c, deps.baseUrl, deps.sessions);
      if (!current) return redirectToSignIn(c, backTo);
      if (!sessionFormAllowed(c, deps.baseUrl, form, current)) return forbiddenFormPage(c, current);
      return await handler(c, current, form);
    } catch (error) {
      return errorPage(c, error, current && signedInAs(current));
    }
  };
}
