import { Hono, type Context } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { SavedView, ViewRecord, ViewsService, ViewVersion, Watch } from '../../domains/views/index.ts';
import { roleAllows } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { scopeHeader, scopeOf, type KnowledgePageDependencies, type ScopeRequest } from './knowledge-guard.ts';
import { knowledgeUrl } from './knowledge-urls.ts';
import { CURSOR_PARAM, cursorOf, evidenceLink, knownTime, morePage } from './knowledge-view.ts';
import { hiddenInput, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { formBodyLimit } from './session.ts';
import { NEW_VIEW, definitionOfFields, readViewFields, viewFieldsOf, viewForm, type ViewFields } from './view-form.ts';
import { workspaceForm, workspacePage, type WorkspaceRequest } from './workspace-guard.ts';

/** What the saved-view and findings pages need beyond the knowledge pages'. */
export interface ViewPageDependencies extends KnowledgePageDependencies {
  views: ViewsService;
}

const SCOPE_PATH = '/workspace/vaults/:mappingId/scopes/:scopeId';

/** One view of a scope: its records (at a version), versions, edit, watch and delete forms. */
export function viewUrl(mappingId: string, scopeId: string, viewId: string, query: Readonly<Record<string, string | undefined>> = {}): string {
  const base = knowledgeUrl(mappingId, scopeId, 'views');
  const set = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== '');
  return `${base}/${encodeURIComponent(viewId)}${set.length === 0 ? '' : `?${new URLSearchParams(set).toString()}`}`;
}

/** A refusal the person can correct in the form (bad input, a taken name, an identical version, a full scope). */
const correctable = (error: unknown): error is KgateError => isKgateError(error) && (error.code === 'invalid_request' || error.code === 'conflict');

const scopeFrom = (deps: ViewPageDependencies, request: WorkspaceRequest, c: Context<HttpEnv>) => scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');

function refusedLine(error: KgateError | undefined): SafeHtml | string {
  return error ? html`<p class="error" role="alert">${error.message} Nothing was changed.</p>` : '';
}

function watchWords(watch: Watch): SafeHtml {
  const version = watch.pinnedVersion === null ? 'the latest version' : `version ${watch.pinnedVersion}`;
  const state = watch.overLimit ? html` <strong class="badge">over its limit: its last run matched too many records to compare</strong>` : '';
  return html`runs ${version}; last run ${showDate(watch.evaluatedAt)}; ${watch.counts.new} new finding${watch.counts.new === 1 ? '' : 's'}${state}`;
}

/** The scope's views page: the views, their watches, and (for those who manage) the new-view form. */
async function listPage(c: Context<HttpEnv>, deps: ViewPageDependencies, request: WorkspaceRequest, scope: ScopeRequest, refused?: { error: KgateError; fields: ViewFields }) {
  const { mappingId } = scope.vault;
  const s = scope.authorized.scope;
  const [views, watches] = await Promise.all([deps.views.list(scope.authorized), deps.views.watches(scope.authorized)]);
  const manages = roleAllows(scope.authorized.role, 'vault.write');
  const list =
    views.length === 0
      ? html`<p>This scope has no saved view yet.${manages ? ' Make one below.' : ''}</p>`
      : html`<table><caption class="muted">By name</caption>
          <thead><tr><th scope="col">View</th><th scope="col">Latest version</th><th scope="col">Saved</th><th scope="col">Watched</th></tr></thead>
          <tbody>${views.map((v) => {
            const watching = watches.filter((w) => w.viewId === v.id);
            return html`<tr id="view-${v.id}"><th scope="row"><a href="${viewUrl(mappingId, s.id, v.id)}">${v.name}</a></th><td>${v.latestVersion}</td><td>${showDate(v.updatedAt)}</td>
              <td>${watching.length === 0 ? html`<span class="muted">no</span>` : html`${watching.map((w, i) => html`${i > 0 ? html`<br>` : ''}${watchWords(w)}`)}`}</td></tr>`;
          })}</tbody></table>`;
  const body = html`${scopeHeader(scope, 'views')}
    <p>A <strong>saved view</strong> is a named question over this scope's knowledge (which records, which statuses, which
      owner or dates). Agents ask it by name with <code>query_saved_knowledge_view</code>; every edit is a new version, and
      an earlier version stays as it was. A <strong>watch</strong> runs a view again whenever a change touches this scope and
      records what changed as <a href="${knowledgeUrl(mappingId, s.id, 'findings')}">findings</a> for people to review.</p>
    ${list}
    ${manages
      ? html`<h2 id="new-view">New view</h2>${refusedLine(refused?.error)}
          ${viewForm(knowledgeUrl(mappingId, s.id, 'views'), request.current.csrf, refused?.fields ?? NEW_VIEW, 'new', 'Save view')}`
      : html`<p class="muted">Your role in this workspace does not allow managing saved views.</p>`}`;
  return sendPage(c, { title: `Saved views: ${s.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

function recordItem(mappingId: string, record: ViewRecord): SafeHtml {
  const facts = [
    record.status ? (record.status === 'candidate' ? 'candidate — not confirmed' : record.status) : undefined,
    record.owner ? `owner ${record.owner}` : undefined,
    record.due ? `due ${record.due}` : undefined,
    record.kind === 'assertion' ? `= ${JSON.stringify(record.value)}` : undefined,
  ].filter((f): f is string => f !== undefined);
  return html`<li class="record${record.status === 'candidate' ? ' candidate' : ''}">
    <p><strong>${record.title}</strong> <span class="muted">${record.kind}${facts.length > 0 ? ` · ${facts.join(' · ')}` : ''}</span></p>
    <p class="muted">Evidence: ${evidenceLink(mappingId, record.evidence)} · known since ${knownTime(record.knownFrom)}</p>
  </li>`;
}

function definitionWords(version: ViewVersion): string {
  const d = version.definition;
  const parts = [
    `${d.kinds.join(', ')}`,
    `statuses ${d.statuses.join(', ')}`,
    d.text ? `text “${d.text}”` : '',
    d.owner ? `owner ${d.owner}` : '',
    d.dueAfter ? `due from ${d.dueAfter}` : '',
    d.dueBefore ? `due by ${d.dueBefore}` : '',
    d.entityType ? `entity type ${d.entityType}` : '',
    d.relationTypes ? `relations ${d.relationTypes.join(', ')}` : '',
    `by ${d.sort}`,
    `${d.limit} a page`,
  ];
  return parts.filter((p) => p !== '').join('; ');
}

/** One view's page: its records at a version, its versions, and the forms of those who manage it. */
async function viewPage(c: Context<HttpEnv>, deps: ViewPageDependencies, request: WorkspaceRequest, scope: ScopeRequest, viewId: string, refused?: { error: KgateError; fields?: ViewFields }) {
  const { mappingId } = scope.vault;
  const s = scope.authorized.scope;
  const asked = c.req.query('version');
  const pinned = asked !== undefined && /^\d{1,6}$/.test(asked) ? Number(asked) : undefined;
  if (asked !== undefined && pinned === undefined) throw new KgateError('not_found', 'The view has no such version.');
  const { view, versions } = await deps.views.versions(scope.authorized, viewId);
  const result = await deps.views.query(scope.authorized, { viewId: view.id, ...(pinned !== undefined ? { version: pinned } : {}), ...cursorOf(c.req.query(CURSOR_PARAM)) });
  const manages = roleAllows(scope.authorized.role, 'vault.write');
  const watches = (await deps.views.watches(scope.authorized)).filter((w) => w.viewId === view.id);
  const latest = versions[0]!;
  const next = result.page.nextCursor ? viewUrl(mappingId, s.id, view.id, { version: asked, [CURSOR_PARAM]: result.page.nextCursor }) : undefined;
  const body = html`${scopeHeader(scope, 'views')}
    <p><a href="${knowledgeUrl(mappingId, s.id, 'views')}">All saved views</a></p>
    ${refusedLine(refused?.error)}
    <p>Version <strong>${result.version.version}</strong> of ${view.latestVersion}${result.version.version === view.latestVersion ? ' (the latest)' : ''}: ${definitionWords(result.version)}.</p>
    ${result.page.items.length === 0 ? html`<p>No record of this scope matches this view now.</p>` : html`<ul class="records">${result.page.items.map((r) => recordItem(mappingId, r))}</ul>`}
    ${morePage(result.page.truncated, next, 'records')}
    <h2>Versions</h2>
    <ol reversed>${versions.map(
      (v) => html`<li><a href="${viewUrl(mappingId, s.id, view.id, { version: String(v.version) })}"${v.version === result.version.version ? html` aria-current="page"` : ''}>Version ${v.version}: ${v.name}</a> <span class="muted">saved ${showDate(v.createdAt)}</span></li>`,
    )}</ol>
    <h2>Watches</h2>
    ${watches.length === 0
      ? html`<p>Nobody watches this view.</p>`
      : html`<ul>${watches.map(
          (w) => html`<li>${watchWords(w)}${manages
            ? html` <form method="post" action="${knowledgeUrl(mappingId, s.id, 'findings')}/watches/${w.id}/delete" class="inline">${hiddenInput('csrf', request.current.csrf)}<button type="submit">Stop this watch</button></form>`
            : ''}</li>`,
        )}</ul>`}
    ${manages
      ? html`<form method="post" action="${viewUrl(mappingId, s.id, view.id)}/watch">${hiddenInput('csrf', request.current.csrf)}
          <label for="watch-version">Watch</label>
          <select id="watch-version" name="version"><option value="">the latest version, whichever it is</option>${versions.map((v) => html`<option value="${String(v.version)}">version ${v.version} only</option>`)}</select>
          <button type="submit">Watch this view</button></form>
        <h2 id="edit">Save a new version</h2>
        ${viewForm(viewUrl(mappingId, s.id, view.id), request.current.csrf, refused?.fields ?? viewFieldsOf(latest), 'edit', 'Save as a new version')}
        <h2>Delete this view</h2>
        <p>Its versions, watches and findings go with it; agents that name it get <q>not found</q>.</p>
        <form method="post" action="${viewUrl(mappingId, s.id, view.id)}/delete">${hiddenInput('csrf', request.current.csrf)}<button type="submit">Delete “${view.name}”</button></form>`
      : html`<p class="muted">Your role in this workspace does not allow managing saved views.</p>`}`;
  return sendPage(c, { title: `${result.version.name}: ${s.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

/**
 * A scope's saved views (`/workspace/vaults/{mappingId}/scopes/{scopeId}/views`): the list, one view run at its
 * latest or a chosen version, and, for members whose role writes the vault, CSRF-checked forms that save a view,
 * save a new version, watch one and delete one. A refused form comes back as written with why; nothing changes.
 */
export function viewPages(deps: ViewPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const VIEWS = `${SCOPE_PATH}/views`;

  app.get(VIEWS, workspacePage(deps, async (c, request) => listPage(c, deps, request, await scopeFrom(deps, request, c))));

  app.post(
    VIEWS,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeFrom(deps, request, c);
      const fields = readViewFields(form);
      try {
        const made = await deps.views.create(request.actor, scope.authorized, { name: fields.name, definition: definitionOfFields(fields) });
        return sendRedirect(c, viewUrl(scope.vault.mappingId, scope.authorized.scope.id, made.view.id));
      } catch (error) {
        if (!correctable(error)) throw error;
        return listPage(c, deps, request, scope, { error, fields });
      }
    }),
  );

  app.get(`${VIEWS}/:viewId`, workspacePage(deps, async (c, request) => viewPage(c, deps, request, await scopeFrom(deps, request, c), c.req.param('viewId') ?? '')));

  app.post(
    `${VIEWS}/:viewId`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeFrom(deps, request, c);
      const viewId = c.req.param('viewId') ?? '';
      const fields = readViewFields(form);
      try {
        const made = await deps.views.revise(request.actor, scope.authorized, viewId, { name: fields.name, definition: definitionOfFields(fields) });
        return sendRedirect(c, viewUrl(scope.vault.mappingId, scope.authorized.scope.id, made.view.id));
      } catch (error) {
        if (!correctable(error)) throw error;
        return viewPage(c, deps, request, scope, viewId, { error, fields });
      }
    }),
  );

  app.post(
    `${VIEWS}/:viewId/watch`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeFrom(deps, request, c);
      const viewId = c.req.param('viewId') ?? '';
      const version = form.get('version') ?? '';
      try {
        if (version !== '' && !/^\d{1,6}$/.test(version)) throw new KgateError('invalid_request', 'Choose the version to watch from the list.');
        await deps.views.createWatch(request.actor, scope.authorized, { viewId, version: version === '' ? null : Number(version) });
        return sendRedirect(c, viewUrl(scope.vault.mappingId, scope.authorized.scope.id, viewId));
      } catch (error) {
        if (!correctable(error)) throw error;
        return viewPage(c, deps, request, scope, viewId, { error });
      }
    }),
  );

  app.post(
    `${VIEWS}/:viewId/delete`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request) => {
      const scope = await scopeFrom(deps, request, c);
      await deps.views.remove(request.actor, scope.authorized, c.req.param('viewId') ?? '');
      return sendRedirect(c, knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'views'));
    }),
  );

  return app;
}

/** A view's name as the findings page links it. */
export function viewLink(mappingId: string, scopeId: string, view: Pick<SavedView, 'id' | 'name'>): SafeHtml {
  return html`<a href="${viewUrl(mappingId, scopeId, view.id)}">${view.name}</a>`;
}
