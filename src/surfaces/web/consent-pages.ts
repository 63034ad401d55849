import { Hono, type Context } from 'hono';
import { SCOPE_EXPLANATIONS, type AuthorizationRequest, type OAuthService } from '../../domains/oauth/index.ts';
import type { SessionsService } from '../../domains/sessions/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { page } from './errors.ts';
import { html, sendPage, sendRedirect, type SafeHtml } from './layout.ts';
import {
  currentSession,
  formBodyLimit,
  forbiddenFormPage,
  readForm,
  redirectToSignIn,
  sessionFormAllowed,
  type BaseUrl,
  type CurrentSession,
} from './session.ts';

/** What the consent pages need. */
export interface ConsentDependencies {
  baseUrl: BaseUrl;
  sessions: SessionsService;
  oauth: OAuthService;
}

/** The host of a client ID metadata document URL: the web address the client's metadata was fetched from. */
function documentHostOf(clientId: string): string {
  return URL.canParse(clientId) ? new URL(clientId).host : clientId;
}

function clientDescription(request: AuthorizationRequest): SafeHtml {
  const { client } = request;
  const name = client.name ?? 'An application without a name';
  if (client.kind === 'metadata_document') {
    return html`<p><strong>${name}</strong> <span class="muted">(the name the application gives itself)</span>,
      published at the verified web address <strong>${documentHostOf(client.clientId)}</strong>, wants to use your kgate vaults.</p>`;
  }
  return html`<p><strong>${name}</strong> <span class="muted">(the name the application gives itself; it registered itself
      with this server, so kgate cannot confirm who made it)</span> wants to use your kgate vaults.</p>`;
}

function consentPage(c: Context<HttpEnv>, request: AuthorizationRequest, current: CurrentSession): Response {
  const action = `/oauth/authorize${new URL(c.req.url).search}`;
  const scopes = request.scopes.map((scope) => html`<li><strong>${scope}</strong>: ${SCOPE_EXPLANATIONS[scope]}</li>`);
  return sendPage(c, {
    title: 'Allow access to your vaults?',
    signedIn: { email: current.session.email, csrf: current.csrf },
    body: html`${clientDescription(request)}
      <p>You are signed in as <strong>${current.session.email}</strong>. If you allow it, the application may:</p>
      <ul>${scopes}</ul>
      <p>After your choice you go back to <strong>${request.redirectHost}</strong>.</p>
      ${request.loopbackRedirect
        ? html`<p class="warning">This application receives the authorization on your own computer. Continue only if you
            started this connection yourself on this computer.</p>`
        : ''}
      <p class="muted">You can see and revoke connected applications at any time under
        <a href="/account/connections">Connected applications</a>.</p>
      <form method="post" action="${action}">
        <input type="hidden" name="csrf" value="${current.csrf}">
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny">Deny</button>
      </form>`,
  });
}

function requestErrorPage(c: Context<HttpEnv>, error: string, description: string): Response {
  return sendPage(
    c,
    {
      title: 'This authorization request cannot be used',
      body: html`<p class="error">${description}</p>
        <p>The application that sent you here made a mistake (<code>${error}</code>). Nothing was shared with it. Close
          this page and start the connection again from the application, or tell its makers.</p>`,
    },
    400,
  );
}

/**
 * `GET /oauth/authorize` (check the request, sign in, show the consent page) and `POST /oauth/authorize` (the
 * person's decision). Errors about the client or its redirect URI are shown here and never redirected; the
 * others go back to the verified redirect URI. The POST re-checks the whole request from its query string, which
 * the consent form carries unchanged.
 */
export function consentPages(deps: ConsentDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/oauth/authorize',
    page(async (c) => {
      const check = await deps.oauth.checkAuthorizationRequest(new URL(c.req.url).searchParams);
      if (check.kind === 'page_error') return requestErrorPage(c, check.error, check.description);
      if (check.kind === 'redirect_error') return sendRedirect(c, check.redirectTo, 302);
      const current = await currentSession(c, deps.baseUrl, deps.sessions);
      if (!current) return redirectToSignIn(c);
      return consentPage(c, check.request, current);
    }),
  );

  app.post(
    '/oauth/authorize',
    formBodyLimit,
    page(async (c) => {
      const form = await readForm(c);
      const current = await currentSession(c, deps.baseUrl, deps.sessions);
      // Signed out (or the session ended) while the page was open: sign in again, then see the consent page anew.
      if (!current) return redirectToSignIn(c);
      if (!sessionFormAllowed(c, deps.baseUrl, form, current)) return forbiddenFormPage(c, current);
      const check = await deps.oauth.checkAuthorizationRequest(new URL(c.req.url).searchParams);
      if (check.kind === 'page_error') return requestErrorPage(c, check.error, check.description);
      if (check.kind === 'redirect_error') return sendRedirect(c, check.redirectTo, 302);
      const decision = form.get('decision');
      if (decision === 'allow') return sendRedirect(c, await deps.oauth.approve(current.session.accountId, check.request));
      if (decision === 'deny') return sendRedirect(c, deps.oauth.deny(check.request));
      return sendPage(
        c,
        {
          title: 'Choose Allow or Deny',
          body: html`<p class="error">The form did not say whether you allow access. Go back and choose Allow or Deny.</p>`,
          signedIn: { email: current.session.email, csrf: current.csrf },
        },
        400,
      );
    }),
  );

  return app;
}
