import { Hono, type Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ConnectionsService, RemoteMappingsService, SyncService } from '../../domains/providers/index.ts';
import type { Mapping, VaultsService } from '../../domains/vaults/index.ts';
import { roleAllows, type WorkspacesService } from '../../domains/workspaces/index.ts';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { PROVIDERS_PAGE } from './connection-pages.ts';
import { accountForm, accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import { EMPTY_FORM, createFormValues, createMappingForm, createRequestOf, type CreateFormError, type CreateFormValues } from './remote-mapping-form.ts';
import { REMOTE_VAULTS_PAGE, SWITCHES, remoteMappingSection, type SwitchName } from './remote-mapping-view.ts';
import { formBodyLimit, type CurrentSession } from './session.ts';

/** What the remote vaults page needs. */
export interface RemoteMappingPagesDependencies extends AccountPageDependencies {
  vaults: Pick<VaultsService, 'listOwnedMappings' | 'setMcpNoteChanges' | 'setOwnerSwitches'>;
  workspaces: Pick<WorkspacesService, 'listWorkspaces'>;
  connections: Pick<ConnectionsService, 'list'>;
  remoteMappings: RemoteMappingsService;
  sync: Pick<SyncService, 'report' | 'requestSync' | 'syncNow'>;
}

// Notices after a redirect are chosen by key, so no text from the URL ever reaches the page.
const NOTICES: Readonly<Record<string, string>> = {
  created: 'The remote vault was created; its first synchronization starts within seconds. Press Sync now to run it at once.',
  switched: 'The switch was changed.',
  synced: 'Synchronized: the copy holds what the provider holds now.',
  sync_more: 'Synchronized part of it; the rest follows in the background within seconds.',
  sync_failed: 'The synchronization failed; the last error below says why. It is retried later by itself.',
  sync_running: 'A synchronization of this vault is already running; reload the page in a moment to see where it stands.',
};

function noticeOf(key: string | undefined) {
  const text = key === undefined ? undefined : NOTICES[key];
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

/** The account's own remote mapping; `not_found` for anyone else's, a hosted one, or an unknown id. */
async function ownRemoteMapping(deps: RemoteMappingPagesDependencies, accountId: string, mappingId: string): Promise<Mapping> {
  const mapping = (await deps.vaults.listOwnedMappings(accountId)).find((m) => m.id === mappingId && m.provider !== 'hosted');
  if (!mapping) throw new KgateError('not_found', 'The remote vault does not exist.');
  return mapping;
}

async function remoteVaultsPage(
  c: Context<HttpEnv>,
  deps: RemoteMappingPagesDependencies,
  current: CurrentSession,
  form: { values: CreateFormValues; error?: CreateFormError } = { values: EMPTY_FORM },
  status: ContentfulStatusCode = 200,
): Promise<Response> {
  const accountId = current.session.accountId;
  const [mappings, connections, workspaces] = await Promise.all([
    deps.vaults.listOwnedMappings(accountId),
    deps.connections.list(accountId),
    deps.workspaces.listWorkspaces(accountId),
  ]);
  const remote = mappings.filter((m) => m.provider !== 'hosted');
  const sections = await Promise.all(
    remote.map(async (m) => remoteMappingSection(m, connections.find((x) => x.id === m.connection?.id), await deps.sync.report(m.id), current.csrf)),
  );
  const manageable = workspaces.filter((w) => roleAllows(w.role, 'vault.manage'));
  return sendPage(
    c,
    {
      title: 'Remote vaults',
      signedIn: signedInAs(current),
      body: html`${noticeOf(c.req.query('notice'))}
        <p>A remote vault maps a folder of Google Drive or Dropbox, or a folder of a GitHub repository, through one of your
          <a href="${PROVIDERS_PAGE}">provider connections</a>. The provider stays where your notes live: kgate keeps a
          synchronized copy for search and knowledge, and reads notes live from the provider.</p>
        <section aria-labelledby="remote-list-heading">
          <h2 id="remote-list-heading">Your remote vaults</h2>
          ${remote.length === 0 ? html`<p>You have no remote vaults yet.</p>` : sections}
        </section>
        <section aria-labelledby="remote-create-heading">
          <h2 id="remote-create-heading">Map a remote folder</h2>
          ${createMappingForm({ workspaces: manageable, connections, csrf: current.csrf, ...form })}
        </section>`,
    },
    status,
  );
}

/**
 * `/account/vaults/remote`: the owner's remote vaults (provider, remote root, connection, the three switches, the
 * sync state with the last error and the files kept without a copy, "Sync now") and the form that maps a remote
 * folder. Every form is CSRF-checked; each acts only on the signed-in account's own mappings and connections.
 */
export function remoteMappingPages(deps: RemoteMappingPagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    REMOTE_VAULTS_PAGE,
    accountPage(deps, (c, current) => remoteVaultsPage(c, deps, current)),
  );

  app.post(
    REMOTE_VAULTS_PAGE,
    formBodyLimit,
    accountForm(deps, REMOTE_VAULTS_PAGE, async (c, current, form) => {
      const values = createFormValues(form);
      let mapping: Mapping;
      try {
        mapping = await deps.remoteMappings.create(current.session.accountId, createRequestOf(values));
      } catch (error) {
        if (!isKgateError(error) || error.code === 'internal') throw error;
        // Shown again as written, with the reason; the status is the code's everywhere.
        return remoteVaultsPage(c, deps, current, { values, error: { message: error.message, code: error.code } }, HTTP_STATUS[error.code]);
      }
      return sendRedirect(c, `${REMOTE_VAULTS_PAGE}?notice=created#mapping-${mapping.id}`);
    }),
  );

  app.post(
    `${REMOTE_VAULTS_PAGE}/switch`,
    formBodyLimit,
    accountForm(deps, REMOTE_VAULTS_PAGE, async (c, current, form) => {
      const name = form.get('switch') as SwitchName | null;
      const value = form.get('value');
      if (name === null || !SWITCHES.includes(name) || (value !== 'on' && value !== 'off')) {
        throw new KgateError('invalid_request', 'The form did not say which switch to turn on or off.');
      }
      const accountId = current.session.accountId;
      const mapping = await ownRemoteMapping(deps, accountId, form.get('mapping_id') ?? '');
      const on = value === 'on';
      if (name === 'allow_mcp_note_changes') await deps.vaults.setMcpNoteChanges(accountId, mapping.id, on);
      else await deps.vaults.setOwnerSwitches(accountId, mapping.id, name === 'pull_only' ? { pullOnly: on } : { deviceEncrypted: on });
      // What the copy may hold changed: the next sync step removes it, or fetches what it left out, at once.
      if (name === 'device_encrypted') await deps.sync.requestSync(mapping.id);
      return sendRedirect(c, `${REMOTE_VAULTS_PAGE}?notice=switched#mapping-${mapping.id}`);
    }),
  );

  app.post(
    `${REMOTE_VAULTS_PAGE}/sync`,
    formBodyLimit,
    accountForm(deps, REMOTE_VAULTS_PAGE, async (c, current, form) => {
      const mapping = await ownRemoteMapping(deps, current.session.accountId, form.get('mapping_id') ?? '');
      await deps.sync.requestSync(mapping.id);
      const outcome = await deps.sync.syncNow(mapping.id, { maxSteps: 5 });
      const notice = !outcome?.ran ? 'sync_running' : outcome.caughtUp ? 'synced' : outcome.error ? 'sync_failed' : 'sync_more';
      return sendRedirect(c, `${REMOTE_VAULTS_PAGE}?notice=${notice}#mapping-${mapping.id}`);
    }),
  );

  return app;
}
