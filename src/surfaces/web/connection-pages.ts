import { Hono, type Context } from 'hono';
import type { ConnectionsService, ProviderConnection, RemoteKind } from '../../domains/providers/index.ts';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { PROVIDER_NAMES, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the provider connection pages need. */
export interface ConnectionPagesDependencies extends AccountPageDependencies {
  connections: Pick<ConnectionsService, 'available' | 'start' | 'complete' | 'list' | 'disconnect'>;
}

/** Where the account's provider connections are listed, connected and disconnected. */
export const PROVIDERS_PAGE = '/account/providers';

const REMOTE_KINDS: readonly RemoteKind[] = ['drive', 'dropbox', 'github'];
const isRemoteKind = (value: string | undefined): value is RemoteKind => REMOTE_KINDS.includes(value as RemoteKind);

// Notices after a redirect are chosen by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  connected: 'The provider is connected. Map one of its folders or repositories on the Remote vaults page.',
  disconnected:
    'The connection is disconnected: kgate dropped its tokens and asked the provider to revoke the grant. Its remote vaults stop ' +
    'synchronizing and answer provider_disconnected. If the provider still lists kgate among your connected apps, remove it there.',
};

/** How the granted scopes read: what kgate may do with the provider's files. */
export function accessWords(connection: Pick<ProviderConnection, 'canRead' | 'canWrite'>): string {
  if (connection.canWrite) return 'read and write';
  return connection.canRead ? 'read only' : 'no file access';
}

function noticeOf(key: string | undefined): SafeHtml | '' {
  const text = key === undefined ? undefined : NOTICES[key];
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

function connectionRow(connection: ProviderConnection, csrf: string): SafeHtml {
  const provider = PROVIDER_NAMES[connection.provider] ?? connection.provider;
  const active = connection.status === 'active';
  return html`<tr data-connection="${connection.id}">
    <th scope="row">${provider}</th>
    <td>${connection.providerAccountName}</td>
    <td data-field="status">${active ? 'Connected' : 'Disconnected'}</td>
    <td data-field="access">${active ? accessWords(connection) : '–'}</td>
    <td>${showDate(connection.createdAt)}</td>
    <td data-field="last-error">${connection.lastError ?? 'none'}</td>
    <td>${active
      ? html`<form method="post" action="${PROVIDERS_PAGE}/disconnect">
          <input type="hidden" name="csrf" value="${csrf}">
          <input type="hidden" name="connection_id" value="${connection.id}">
          <button type="submit" aria-label="Disconnect ${provider} (${connection.providerAccountName})">Disconnect</button>
        </form>`
      : ''}</td>
  </tr>`;
}

function connectForm(kind: RemoteKind, csrf: string): SafeHtml {
  const provider = PROVIDER_NAMES[kind] ?? kind;
  return html`<form method="post" action="${PROVIDERS_PAGE}/connect">
    <input type="hidden" name="csrf" value="${csrf}">
    <input type="hidden" name="kind" value="${kind}">
    <fieldset>
      <legend>What kgate may do in ${provider}</legend>
      <input type="radio" id="access-${kind}-read" name="access" value="read" checked>
      <label class="inline" for="access-${kind}-read">Read only: kgate copies your notes and reads them</label><br>
      <input type="radio" id="access-${kind}-write" name="access" value="write">
      <label class="inline" for="access-${kind}-write">Read and write: AI applications may also change notes, in each vault where you allow it</label>
    </fieldset>
    <button type="submit">Connect ${provider}</button>
  </form>`;
}

async function providersPage(c: Context<HttpEnv>, deps: ConnectionPagesDependencies, current: CurrentSession): Promise<Response> {
  const connections = await deps.connections.list(current.session.accountId);
  const available = deps.connections.available();
  const table =
    connections.length === 0
      ? html`<p>You have connected no provider.</p>`
      : html`<table>
          <caption class="muted">Your provider connections (kgate never shows their tokens)</caption>
          <thead><tr><th scope="col">Provider</th><th scope="col">Account there</th><th scope="col">Status</th>
            <th scope="col">Access</th><th scope="col">Connected</th><th scope="col">Last error</th>
            <th scope="col"><span class="muted">Action</span></th></tr></thead>
          <tbody>${connections.map((connection) => connectionRow(connection, current.csrf))}</tbody>
        </table>`;
  const connect =
    available.length === 0
      ? html`<p data-field="unconfigured">No provider is configured on this server, so none can be connected. The operator sets up
          Google Drive, Dropbox or GitHub (an OAuth application each, and a key that seals their tokens) as
          <code>docs/providers.md</code> describes.</p>`
      : html`<p>The provider asks you to sign in and to allow kgate; it then sends you back here. Connecting the same
          provider account again renews the connection (and its access) without changing your remote vaults.</p>
          ${available.map((kind) => connectForm(kind, current.csrf))}`;
  return sendPage(c, {
    title: 'Provider connections',
    signedIn: signedInAs(current),
    body: html`${noticeOf(c.req.query('notice'))}
      <p>A connection lets kgate reach your notes in Google Drive, Dropbox or GitHub for the
        <a href="/account/vaults/remote">remote vaults</a> you map from it. Its tokens are stored encrypted and never shown.</p>
      ${table}
      <section aria-labelledby="connect-heading">
        <h2 id="connect-heading">Connect a provider</h2>
        ${connect}
      </section>`,
  });
}

/** The page of an authorization that did not complete: what happened, and that nothing was connected. */
function callbackFailedPage(c: Context<HttpEnv>, current: CurrentSession, kind: RemoteKind, error: KgateError): Response {
  const provider = PROVIDER_NAMES[kind] ?? kind;
  const declined = error.code === 'forbidden';
  return sendPage(
    c,
    {
      title: `${provider} was not connected`,
      signedIn: signedInAs(current),
      body: html`<p class="error" role="alert" data-code="${declined ? 'access_denied' : error.code}">${error.message} Nothing was connected.</p>
        <p>${declined ? 'To connect it after all, start again and allow kgate on the provider’s page.' : 'Start again from the Provider connections page; each start is good for one answer, for ten minutes.'}</p>
        <p><a href="${PROVIDERS_PAGE}">Back to provider connections</a></p>`,
    },
    HTTP_STATUS[error.code],
  );
}

/**
 * `/account/providers`: the account's connections to Google Drive, Dropbox and GitHub (never a token), a Connect
 * form per configured provider that sends the browser to the provider's consent page, and Disconnect; and the
 * provider's redirect back, `/account/connections/{kind}/callback` (the path registered with each provider;
 * docs/providers.md), which completes the authorization for the signed-in account (the state check is the domain's).
 */
export function connectionPages(deps: ConnectionPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    PROVIDERS_PAGE,
    accountPage(deps, (c, current) => providersPage(c, deps, current)),
  );

  app.post(
    `${PROVIDERS_PAGE}/connect`,
    formBodyLimit,
    accountForm(deps, PROVIDERS_PAGE, async (c, current, form) => {
      const kind = form.get('kind') ?? undefined;
      const access = form.get('access');
      if (!isRemoteKind(kind) || (access !== 'read' && access !== 'write')) {
        throw new KgateError('invalid_request', 'Choose a provider and whether kgate may only read or also write.');
      }
      const { authorizationUrl } = await deps.connections.start(current.session.accountId, kind, { write: access === 'write' });
      return sendRedirect(c, authorizationUrl);
    }),
  );

  app.get(
    '/account/connections/:kind/callback',
    accountPage(deps, async (c, current) => {
      const kind = c.req.param('kind');
      if (!isRemoteKind(kind)) throw new KgateError('not_found', 'There is no such provider.');
      const query = (name: string) => c.req.query(name) ?? undefined;
      try {
        await deps.connections.complete(current.session.accountId, kind, { state: query('state'), code: query('code'), error: query('error') });
      } catch (error) {
        if (isKgateError(error) && error.code !== 'internal') return callbackFailedPage(c, current, kind, error);
        throw error;
      }
      return sendRedirect(c, `${PROVIDERS_PAGE}?notice=connected`);
    }),
  );

  app.post(
    `${PROVIDERS_PAGE}/disconnect`,
    formBodyLimit,
    accountForm(deps, PROVIDERS_PAGE, async (c, current, form) => {
      await deps.connections.disconnect(current.session.accountId, form.get('connection_id') ?? '');
      return sendRedirect(c, `${PROVIDERS_PAGE}?notice=disconnected`);
    }),
  );

  return app;
}
