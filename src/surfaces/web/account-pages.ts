import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { MIN_PASSWORD_LENGTH, type AccountsService } from '../../domains/accounts/index.ts';
import type { ConnectedApplication, OAuthService } from '../../domains/oauth/index.ts';
import type { SessionSummary } from '../../domains/sessions/index.ts';
import { isKgateError } from '../../kernel/errors.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { clientAddressOf } from '../http/client-address.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect, showDate } from './layout.ts';
import { clearSessionCookie, formBodyLimit, type CurrentSession } from './session.ts';

/** What the overview and connected-applications pages need. */
export interface AccountPagesDependencies extends AccountPageDependencies {
  accounts: AccountsService;
  oauth: OAuthService;
  /** Reverse proxies whose X-Forwarded-For is believed (KGATE_TRUST_PROXY): the client address of the throttles. */
  trustedProxies: number;
}

// Notices after a redirect are chosen from this list by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  revoked: 'The application was disconnected. Its access and refresh tokens no longer work.',
  unknown: 'That application was not connected (any more).',
  password_changed: 'Your password was changed. Every other session was signed out; this one stays signed in.',
  session_ended: 'The session was ended. The browser that held it is signed out.',
  session_unknown: 'That session had already ended. Nothing was changed.',
};

/** A refused form on the account page: what the person reads, and the stable code (data-code) tests and support use. */
interface FormError {
  message: string;
  code: string;
}

function formErrorOf(error: FormError | undefined) {
  return error ? html`<p class="error" role="alert" data-code="${error.code}">${error.message}</p>` : '';
}

function sessionRow(item: SessionSummary, current: CurrentSession) {
  const isThis = item.id === current.session.id;
  const action = isThis
    ? html`<strong>This session</strong>`
    : html`<form method="post" action="/account/sessions/end">
        <input type="hidden" name="csrf" value="${current.csrf}">
        <input type="hidden" name="session_id" value="${item.id}">
        <button type="submit" aria-label="End the session started ${item.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC">End</button>
      </form>`;
  return html`<tr${isThis ? html` aria-current="true"` : ''}>
    <td>${showDate(item.createdAt)}</td><td>${showDate(item.expiresAt)}</td><td>${showDate(item.lastSeenAt)}</td><td>${action}</td>
  </tr>`;
}

/** The account overview: links, the password form and the active sessions. */
async function overviewPage(
  c: Context<HttpEnv>,
  deps: AccountPagesDependencies,
  current: CurrentSession,
  error?: FormError,
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const account = await deps.accounts.getAccount(current.session.accountId);
  const { sessions, truncated } = await deps.sessions.listSessions(current.session.accountId);
  return sendPage(
    c,
    {
      title: 'Your account',
      signedIn: signedInAs(current),
      body: html`${noticeOf(c.req.query('notice'))}
        <p>Signed in as <strong>${account.email}</strong> (plan: ${account.plan}). This session ends
          ${showDate(current.session.expiresAt)}.</p>
        <ul>
          <li><a href="/account/connections">Connected applications</a>: AI applications you allowed to use your vaults
            over OAuth; disconnect them here.</li>
          <li><a href="/account/tokens">Access tokens</a>: personal tokens for the Developer REST API and MCP clients
            that cannot sign in.</li>
          <li><a href="/account/vaults">Vaults</a>: your vaults and whether AI applications may change their notes.</li>
          <li><a href="/account/products">Products</a>: products you installed, the workspaces and vaults they may use, and
            the <a href="/account/products/memory">shared memory</a> they propose.</li>
          <li><a href="/account/runtime">Product runtime</a>: for admins of a product organization, its products, brand and
            credentials.</li>
        </ul>
        <section aria-labelledby="password-heading">
          <h2 id="password-heading">Change your password</h2>
          ${formErrorOf(error)}
          <form method="post" action="/account/password">
            <input type="hidden" name="csrf" value="${current.csrf}">
            <label for="current_password">Current password</label>
            <input type="password" id="current_password" name="current_password" autocomplete="current-password" required>
            <label for="new_password">New password</label>
            <input type="password" id="new_password" name="new_password" autocomplete="new-password" required
              minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="new_password_rules">
            <p id="new_password_rules" class="muted">At least ${MIN_PASSWORD_LENGTH} characters. Changing it signs out
              every other session; your access tokens and connected applications keep working.</p>
            <label for="confirm_password">New password again</label>
            <input type="password" id="confirm_password" name="confirm_password" autocomplete="new-password" required
              minlength="${MIN_PASSWORD_LENGTH}">
            <button type="submit">Change password</button>
          </form>
        </section>
        <section aria-labelledby="sessions-heading">
          <h2 id="sessions-heading">Active sessions</h2>
          <p>Each browser where you signed in is a session. A session ends twelve hours after sign-in, or when you end it here.</p>
          <table>
            <caption class="muted">Your signed-in sessions, newest first${truncated ? ` (the newest ${sessions.length} of more)` : ''}</caption>
            <thead><tr><th scope="col">Started</th><th scope="col">Ends</th><th scope="col">Last used</th>
              <th scope="col"><span class="muted">Action</span></th></tr></thead>
            <tbody>${sessions.map((item) => sessionRow(item, current))}</tbody>
          </table>
          <form method="post" action="/account/sessions/end-all">
            <input type="hidden" name="csrf" value="${current.csrf}">
            <button type="submit">Sign out of every session</button>
          </form>
        </section>`,
    },
    status,
  );
}

function noticeOf(key: string | undefined) {
  const text = key === undefined ? undefined : NOTICES[key];
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

function connectionRow(app: ConnectedApplication, csrf: string) {
  const hosts = app.redirectHosts.join(', ');
  return html`<tr>
    <td><strong>${app.clientName ?? 'Unnamed application'}</strong>
      <br><span class="muted">${app.kind === 'metadata_document' ? `published at ${app.clientId}` : `returns to ${hosts}`}</span></td>
    <td>${app.scopes.join(', ')}</td>
    <td>${showDate(app.grantedAt)}${app.activeGrants > 1 ? html`<br><span class="muted">${app.activeGrants} approvals</span>` : ''}</td>
    <td>${showDate(app.lastUsedAt)}</td>
    <td><form method="post" action="/account/connections/revoke">
      <input type="hidden" name="csrf" value="${csrf}">
      <input type="hidden" name="client_id" value="${app.clientId}">
      <button type="submit" aria-label="Revoke ${app.clientName ?? 'unnamed application'}">Revoke</button>
    </form></td>
  </tr>`;
}

/**
 * `/account` (overview, password change, active sessions; docs/security.md) and `/account/connections`
 * (applications connected over OAuth, with revocation).
 */
export function accountPages(deps: AccountPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/account',
    accountPage(deps, (c, current) => overviewPage(c, deps, current)),
  );

  app.post(
    '/account/password',
    formBodyLimit,
    accountForm(deps, '/account', async (c, current, form) => {
      const newPassword = form.get('new_password') ?? '';
      if (newPassword !== (form.get('confirm_password') ?? '')) {
        const error = { message: 'The new password and its confirmation differ. Nothing was changed.', code: 'password_confirmation_mismatch' };
        return overviewPage(c, deps, current, error, 400);
      }
      try {
        await deps.sessions.changePassword({
          session: current.session,
          currentPassword: form.get('current_password') ?? '',
          newPassword,
          clientAddress: clientAddressOf(c, deps.trustedProxies),
        });
      } catch (error) {
        if (!isKgateError(error) || !['forbidden', 'invalid_request', 'rate_limited'].includes(error.code)) throw error;
        const reason = error.details?.reason;
        const retryAfter = error.details?.retryAfterSeconds;
        if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
        const code = typeof reason === 'string' ? reason : error.code;
        const status = HTTP_STATUS[error.code];
        return overviewPage(c, deps, current, { message: `${error.message} Nothing was changed.`, code }, status);
      }
      return sendRedirect(c, '/account?notice=password_changed');
    }),
  );

  app.post(
    '/account/sessions/end',
    formBodyLimit,
    accountForm(deps, '/account', async (c, current, form) => {
      const sessionId = form.get('session_id') ?? '';
      const ended = await deps.sessions.endSession(current.session.accountId, sessionId);
      if (ended && sessionId === current.session.id) {
        clearSessionCookie(c, deps.baseUrl);
        return sendRedirect(c, '/signin');
      }
      return sendRedirect(c, `/account?notice=${ended ? 'session_ended' : 'session_unknown'}`);
    }),
  );

  app.post(
    '/account/sessions/end-all',
    formBodyLimit,
    accountForm(deps, '/account', async (c, current) => {
      await deps.sessions.signOutEverywhere(current.session.accountId);
      clearSessionCookie(c, deps.baseUrl);
      return sendRedirect(c, '/signin');
    }),
  );

  app.get(
    '/account/connections',
    accountPage(deps, async (c, current) => {
      const connections = await deps.oauth.listConnections(current.session.accountId);
      const table =
        connections.length === 0
          ? html`<p>No applications are connected.</p>`
          : html`<table>
              <caption class="muted">Applications with access to your vaults</caption>
              <thead><tr><th scope="col">Application</th><th scope="col">Access</th><th scope="col">Granted</th>
                <th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead>
              <tbody>${connections.map((item) => connectionRow(item, current.csrf))}</tbody>
            </table>`;
      return sendPage(c, {
        title: 'Connected applications',
        signedIn: signedInAs(current),
        body: html`${noticeOf(c.req.query('notice'))}
          <p>Revoking an application ends its access at once, on every device it was approved on. Your access tokens
            are not affected.</p>
          ${table}`,
      });
    }),
  );

  app.post(
    '/account/connections/revoke',
    formBodyLimit,
    accountForm(deps, '/account/connections', async (c, current, form) => {
      const revoked = await deps.oauth.revokeConnection(current.session.accountId, form.get('client_id') ?? '');
      return sendRedirect(c, `/account/connections?notice=${revoked ? 'revoked' : 'unknown'}`);
    }),
  );

  return app;
}
