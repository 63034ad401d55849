import { Hono, type Context } from 'hono';
import type { IssuedToken, TokenInfo, TokensService } from '../../domains/tokens/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the access-token pages need. */
export interface TokenPagesDependencies extends AccountPageDependencies {
  tokens: TokensService;
}

function stateOf(token: TokenInfo, now: Date): string {
  if (token.revokedAt) return 'revoked';
  if (token.expiresAt && token.expiresAt <= now) return 'expired';
  return 'active';
}

function tokenRow(token: TokenInfo, csrf: string, now: Date): SafeHtml {
  const state = stateOf(token, now);
  const action = (path: string, label: string) => html`<form method="post" action="${path}">
      <input type="hidden" name="csrf" value="${csrf}">
      <input type="hidden" name="token_id" value="${token.id}">
      <button type="submit" aria-label="${label} ${token.name}">${label}</button>
    </form>`;
  return html`<tr>
    <td>${token.name}</td>
    <td><code>${token.display}</code></td>
    <td>${showDate(token.createdAt)}</td>
    <td>${showDate(token.lastUsedAt)}</td>
    <td>${state}</td>
    <td>${state === 'active' ? [action('/account/tokens/rotate', 'Rotate'), ' ', action('/account/tokens/revoke', 'Revoke')] : ''}</td>
  </tr>`;
}

/** The token list and the create form; `issued` shows a new secret, the one time it exists outside its owner. */
async function tokensPage(
  c: Context<HttpEnv>,
  deps: TokenPagesDependencies,
  current: CurrentSession,
  issued?: { token: IssuedToken; verb: string },
): Promise<Response> {
  const tokens = await deps.tokens.listTokens(current.session.accountId);
  const now = new Date();
  const fresh = issued
    ? html`<section class="notice" aria-labelledby="new-token-heading">
        <h2 id="new-token-heading">Token “${issued.token.info.name}” ${issued.verb}</h2>
        <p><strong>Copy it now: it cannot be shown again.</strong> Only its last four characters are kept, so if you lose it,
          rotate or revoke it and create another.</p>
        <code class="secret" id="new-token">${issued.token.token}</code>
        <p class="muted">Send it as <code>Authorization: Bearer &lt;token&gt;</code>. For an MCP client on your computer, put it
          in the <code>SERVICE_MCP_TOKEN</code> environment variable rather than in a configuration file.</p>
      </section>`
    : '';
  const table =
    tokens.length === 0
      ? html`<p>You have no access tokens.</p>`
      : html`<table>
          <caption class="muted">Your personal access tokens, newest first</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Created</th><th scope="col">Last used</th>
            <th scope="col">State</th><th scope="col"><span class="muted">Actions</span></th></tr></thead>
          <tbody>${tokens.map((token) => tokenRow(token, current.csrf, now))}</tbody>
        </table>`;
  return sendPage(c, {
    title: 'Access tokens',
    signedIn: signedInAs(current),
    body: html`${fresh}
      <p>A personal access token lets a script or an MCP client act as you, through the Developer REST API and hosted MCP.
        Rotating replaces its secret (the old one stops working at once); revoking ends it.</p>
      ${table}
      <h2>Create a token</h2>
      <form method="post" action="/account/tokens">
        <input type="hidden" name="csrf" value="${current.csrf}">
        <label for="token-name">Name</label>
        <input type="text" id="token-name" name="name" required maxlength="100" placeholder="e.g. laptop, CI">
        <button type="submit">Create token</button>
      </form>`,
  });
}

/**
 * `/account/tokens`: personal access tokens listed (never their secrets), created and rotated (the new secret
 * shown once, on the response page, which is never cached) and revoked.
 */
export function tokenPages(deps: TokenPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/account/tokens',
    accountPage(deps, (c, current) => tokensPage(c, deps, current)),
  );

  app.post(
    '/account/tokens',
    formBodyLimit,
    accountForm(deps, '/account/tokens', async (c, current, form) => {
      const token = await deps.tokens.issueToken({ accountId: current.session.accountId, name: form.get('name') ?? '' });
      return tokensPage(c, deps, current, { token, verb: 'created' });
    }),
  );

  app.post(
    '/account/tokens/rotate',
    formBodyLimit,
    accountForm(deps, '/account/tokens', async (c, current, form) => {
      const token = await deps.tokens.rotateToken(current.session.accountId, form.get('token_id') ?? '');
      return tokensPage(c, deps, current, { token, verb: 'rotated' });
    }),
  );

  app.post(
    '/account/tokens/revoke',
    formBodyLimit,
    accountForm(deps, '/account/tokens', async (c, current, form) => {
      await deps.tokens.revokeToken(current.session.accountId, form.get('token_id') ?? '');
      return sendRedirect(c, '/account/tokens');
    }),
  );

  return app;
}
