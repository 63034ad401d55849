import { Hono } from 'hono';
import type { AccountsService } from '../../domains/accounts/index.ts';
import type { ConnectedApplication, OAuthService } from '../../domains/oauth/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect, showDate } from './layout.ts';
import { formBodyLimit } from './session.ts';

/** What the overview and connected-applications pages need. */
export interface AccountPagesDependencies extends AccountPageDependencies {
  accounts: AccountsService;
  oauth: OAuthService;
}

// Notices after a redirect are chosen from this list by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  revoked: 'The application was disconnected. Its access and refresh tokens no longer work.',
  unknown: 'That application was not connected (any more).',
};

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

/** `/account` (overview) and `/account/connections` (applications connected over OAuth, with revocation). */
export function accountPages(deps: AccountPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/account',
    accountPage(deps, async (c, current) => {
      const account = await deps.accounts.getAccount(current.session.accountId);
      return sendPage(c, {
        title: 'Your account',
        signedIn: signedInAs(current),
        body: html`<p>Signed in as <strong>${account.email}</strong> (plan: ${account.plan}). This session ends
            ${showDate(current.session.expiresAt)}.</p>
          <ul>
            <li><a href="/account/connections">Connected applications</a>: AI applications you allowed to use your vaults
              over OAuth; disconnect them here.</li>
            <li><a href="/account/tokens">Access tokens</a>: personal tokens for the Developer REST API and MCP clients
              that cannot sign in.</li>
            <li><a href="/account/vaults">Vaults</a>: your vaults and whether AI applications may change their notes.</li>
          </ul>`,
      });
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
