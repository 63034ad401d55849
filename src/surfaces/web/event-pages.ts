import { Hono } from 'hono';
import type { HttpEnv } from '../http/context.ts';
import { listEvents } from '../operations/event-operations.ts';
import { html, sendPage, showDate, type SafeHtml } from './layout.ts';
import { vaultNav, vaultOf, workspacePage, type VaultView, type WorkspaceDependencies } from './workspace-guard.ts';
import { eventsUrl, noteUrl, proposalUrl } from './workspace-urls.ts';
import { filePageUrl } from './file-urls.ts';

/** Events per page. */
const EVENTS_PAGE = 50;

interface EventView {
  seq: number;
  kind: string;
  path: string | null;
  beforeRevision: string | null;
  afterRevision: string | null;
  credentialKind: string;
  client: string | null;
  details: Record<string, unknown>;
  createdAt: string;
  diff?: string | null;
}

/** What people call each kind of event. */
const KIND_NAMES: Readonly<Record<string, string>> = {
  'note.created': 'created',
  'note.updated': 'changed',
  'note.deleted': 'moved to the trash',
  'note.restored': 'restored',
  'note.moved': 'moved',
  'file.created': 'added a file',
  'file.updated': 'replaced a file',
  'file.deleted': 'moved a file to the trash',
  'file.restored': 'restored a file',
  'proposal.created': 'proposed',
  'proposal.approved': 'approved a proposal',
  'proposal.rejected': 'rejected a proposal',
  'proposal.expired': 'proposal expired',
  'proposal.executed': 'applied a proposal',
  'proposal.failed': 'proposal failed to apply',
  'proposal.undone': 'undid a proposal',
  'proposal.undo-failed': 'undo of a proposal refused',
};

/** Who acted, as people read it: the kind of credential and the client it named. */
const CREDENTIAL_NAMES: Readonly<Record<string, string>> = {
  personal_access_token: 'access token',
  oauth: 'connected application',
  session: 'you, in the workspace',
  operator: 'the server operator',
  service_principal: 'a product installation',
};

const shortRevision = (revision: string | null) => (revision ? revision.slice(7, 19) : '–');

/** The note or file an event is about: a link to it while it exists, its path in code once it went to the trash. */
function subjectOf(vault: VaultView, kind: string, path: string, newPath: string | undefined): SafeHtml {
  if (kind === 'note.deleted' || kind === 'file.deleted') return html`<code>${path}</code>`;
  // Canvases and attachments have their own pages (file-pages.ts), not the note view.
  if (kind.startsWith('file.')) return html`<a href="${filePageUrl(vault.mappingId, path)}">${path}</a>`;
  return html`<a href="${noteUrl(vault.mappingId, newPath ?? path)}">${path}</a>`;
}

function eventRow(vault: VaultView, event: EventView): SafeHtml {
  const newPath = typeof event.details.newPath === 'string' ? event.details.newPath : undefined;
  const proposalId = typeof event.details.proposalId === 'string' ? event.details.proposalId : undefined;
  const title = typeof event.details.title === 'string' ? event.details.title : 'the proposal';
  // A proposal's steps name no note: the row links to the proposal, where its notes and diffs are.
  const note = proposalId && event.path === null ? html`<a href="${proposalUrl(vault.mappingId, proposalId)}">${title}</a>` : event.path === null ? '' : subjectOf(vault, event.kind, event.path, newPath);
  return html`<tr>
    <td>${showDate(new Date(event.createdAt))}</td>
    <td>${CREDENTIAL_NAMES[event.credentialKind] ?? event.credentialKind}${event.client ? html`<br><span class="muted">${event.client}</span>` : ''}</td>
    <td>${KIND_NAMES[event.kind] ?? event.kind}</td>
    <td>${note}${newPath ? html` → <code>${newPath}</code>` : ''}</td>
    <td><code>${shortRevision(event.beforeRevision)}</code> → <code>${shortRevision(event.afterRevision)}</code></td>
  </tr>
  ${event.diff
    ? html`<tr class="diff-row"><td colspan="5"><details><summary>What changed in ${event.path ?? 'the note'}</summary>
        <pre class="diff" tabindex="0">${event.diff}</pre>${event.details.diffTruncated === true ? html`<p class="muted">The diff is cut at 64 KB.</p>` : ''}</details></td></tr>`
    : ''}`;
}

/** `/workspace/vaults/{mappingId}/events`: what was done to the vault, newest first, by whom and through what. */
export function eventPages(deps: WorkspaceDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/events',
    workspacePage(deps, async (c, { call, signedIn }) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const before = Number(c.req.query('before'));
      const page = await call<{ events: EventView[]; nextBefore?: number | null; truncated: boolean }>(listEvents, {
        mappingId: vault.mappingId,
        order: 'desc',
        limit: EVENTS_PAGE,
        diffs: true,
        ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
      });
      const older = page.truncated && page.nextBefore ? html`<p><a href="${eventsUrl(vault.mappingId)}?before=${page.nextBefore}" rel="next">Older events</a></p>` : '';
      const table =
        page.events.length === 0
          ? html`<p>Nothing has happened in this vault yet.</p>`
          : html`<table>
              <caption class="muted">Newest first</caption>
              <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Note</th><th scope="col">Revision</th></tr></thead>
              <tbody>${page.events.map((event) => eventRow(vault, event))}</tbody>
            </table>`;
      return sendPage(c, { title: `Events of ${vault.name}`, signedIn, body: html`${vaultNav(vault.mappingId, 'events')}${table}${older}` });
    }),
  );

  return app;
}
