import { Hono, type Context } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { ContextScope } from '../../domains/scopes/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import type { KnowledgePageDependencies } from './knowledge-guard.ts';
import { knowledgeUrl, scopeDeleteUrl, scopeEditUrl, scopesUrl } from './knowledge-urls.ts';
import { hiddenInput, html, sendPage, sendRedirect, type SafeHtml } from './layout.ts';
import { NEW_SCOPE, definitionOf, fieldsOf, readScopeFields, scopeForm, type ScopeFields } from './scope-form.ts';
import { formBodyLimit } from './session.ts';
import { vaultNav, vaultOf, workspaceForm, workspacePage, type VaultView, type WorkspaceRequest } from './workspace-guard.ts';

/** The scopes a person sees on the page, and whether they manage them (owner or admin of the vault's workspace). */
interface ScopesView {
  scopes: ContextScope[];
  manages: boolean;
}

/** Every scope for a manager; for anyone else the scopes whose audience admits them (a manager's list refuses them). */
async function scopesFor(deps: KnowledgePageDependencies, request: WorkspaceRequest, mappingId: string): Promise<ScopesView> {
  try {
    return { scopes: await deps.scopes.listManaged(request.actor, mappingId), manages: true };
  } catch (error) {
    if (!isKgateError(error) || error.code !== 'forbidden') throw error;
    return { scopes: await deps.scopes.listUsable(request.actor, mappingId), manages: false };
  }
}

/** What a scope reads, in words. */
function readsWhat(scope: ContextScope): SafeHtml {
  const folders = scope.pathPrefixes.length === 0 ? html`every folder` : html`${scope.pathPrefixes.map((p, i) => html`${i > 0 ? ', ' : ''}<code>${p}</code>`)}`;
  const tags = scope.tags.length === 0 ? '' : html`; tags ${scope.tags.map((t, i) => html`${i > 0 ? ', ' : ''}<code>#${t}</code>`)}`;
  return html`${folders}${tags}`;
}

function audienceWords(scope: ContextScope): string {
  const who = scope.audience.minimumRole === 'viewer' ? 'every member' : scope.audience.minimumRole === 'owner' ? 'owners' : `${scope.audience.minimumRole}s and up`;
  return `${who}; ${scope.audience.agents ? 'agents too' : 'signed-in people only'}`;
}

function scopesTable(vault: VaultView, view: ScopesView): SafeHtml {
  if (view.scopes.length === 0) {
    return html`<p>${view.manages ? 'This vault has no context scope yet. Make one below.' : 'No context scope of this vault is open to you. Owners and admins make them.'}</p>`;
  }
  return html`<table>
    <caption class="muted">${view.manages ? 'Every scope of this vault' : 'The scopes you may use'}</caption>
    <thead><tr><th scope="col">Scope</th><th scope="col">Reads</th><th scope="col">Who may use it</th>${view.manages ? html`<th scope="col">Change</th>` : ''}</tr></thead>
    <tbody>${view.scopes.map(
      (s) => html`<tr id="scope-${s.id}">
        <th scope="row"><a href="${knowledgeUrl(vault.mappingId, s.id, 'decisions')}">${s.name}</a></th>
        <td>${readsWhat(s)}</td>
        <td>${audienceWords(s)}</td>
        ${view.manages ? html`<td><a href="${scopeEditUrl(vault.mappingId, s.id)}" aria-label="Edit ${s.name}">Edit</a></td>` : ''}
      </tr>`,
    )}</tbody></table>`;
}

/** The scopes page, with the new-scope form (filled again, with its error, after a refused post). */
async function listPage(c: Context<HttpEnv>, deps: KnowledgePageDependencies, request: WorkspaceRequest, vault: VaultView, refused?: { error: KgateError; fields: ScopeFields }) {
  const view = await scopesFor(deps, request, vault.mappingId);
  const body = html`${vaultNav(vault.mappingId, 'knowledge')}
    <p>A <strong>context scope</strong> is a named part of this vault (folders, tags) through which people and agents read its
      knowledge: decisions, commitments, open questions and entities over time. Choose one to see what it holds.</p>
    ${scopesTable(vault, view)}
    ${view.manages
      ? html`<h2 id="new-scope">New scope</h2>
          ${refused ? html`<p class="error" role="alert">${refused.error.message} Nothing was changed.</p>` : ''}
          ${scopeForm(scopesUrl(vault.mappingId), request.current.csrf, refused?.fields ?? NEW_SCOPE, 'new', 'Create scope')}`
      : ''}`;
  return sendPage(c, { title: `Knowledge of ${vault.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

/** A scope's edit page, with its delete form (filled again, with its error, after a refused post). */
async function editPage(c: Context<HttpEnv>, deps: KnowledgePageDependencies, request: WorkspaceRequest, vault: VaultView, scopeId: string, refused?: { error: KgateError; fields: ScopeFields }) {
  const scope = (await deps.scopes.listManaged(request.actor, vault.mappingId)).find((s) => s.id === scopeId);
  if (!scope) throw new KgateError('not_found', 'No such context scope for this mapping.');
  const action = scopeEditUrl(vault.mappingId, scope.id);
  const body = html`${vaultNav(vault.mappingId, 'knowledge')}
    <p><a href="${scopesUrl(vault.mappingId)}">Back to the scopes</a> · <a href="${knowledgeUrl(vault.mappingId, scope.id, 'decisions')}">What this scope holds</a></p>
    ${refused ? html`<p class="error" role="alert">${refused.error.message} Nothing was changed.</p>` : ''}
    ${scopeForm(action, request.current.csrf, refused?.fields ?? fieldsOf(scope), 'edit', 'Save changes')}
    <h2>Delete this scope</h2>
    <p>Agents and scripts that name it get <q>not found</q> from then on. Notes and their knowledge stay as they are.</p>
    <form method="post" action="${scopeDeleteUrl(vault.mappingId, scope.id)}">${hiddenInput('csrf', request.current.csrf)}
      <button type="submit">Delete “${scope.name}”</button></form>`;
  return sendPage(c, { title: `Edit scope ${scope.name}`, signedIn: request.signedIn, body }, refused ? HTTP_STATUS[refused.error.code] : 200);
}

/** True for a refusal the person can correct in the form (bad input, a taken name, too many scopes). */
const correctable = (error: unknown): error is KgateError => isKgateError(error) && (error.code === 'invalid_request' || error.code === 'conflict');

/**
 * `/workspace/vaults/{mappingId}/scopes`: a vault's context scopes. Owners and admins create, change and delete them
 * here (CSRF-checked forms; a refused form is shown again with why, and nothing changes); other members see the
 * scopes they may use. Each scope leads to its knowledge pages.
 */
export function scopePages(deps: KnowledgePageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/scopes',
    workspacePage(deps, async (c, request) => listPage(c, deps, request, await vaultOf(request.call, c.req.param('mappingId') ?? ''))),
  );

  app.post(
    '/workspace/vaults/:mappingId/scopes',
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const vault = await vaultOf(request.call, c.req.param('mappingId') ?? '');
      const fields = readScopeFields(form);
      try {
        const scope = await deps.scopes.create(request.actor, vault.mappingId, definitionOf(fields));
        return sendRedirect(c, `${scopesUrl(vault.mappingId)}#scope-${scope.id}`);
      } catch (error) {
        if (!correctable(error)) throw error;
        return listPage(c, deps, request, vault, { error, fields });
      }
    }),
  );

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId/edit',
    workspacePage(deps, async (c, request) => editPage(c, deps, request, await vaultOf(request.call, c.req.param('mappingId') ?? ''), c.req.param('scopeId') ?? '')),
  );

  app.post(
    '/workspace/vaults/:mappingId/scopes/:scopeId/edit',
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const vault = await vaultOf(request.call, c.req.param('mappingId') ?? '');
      const scopeId = c.req.param('scopeId') ?? '';
      const fields = readScopeFields(form);
      try {
        await deps.scopes.update(request.actor, vault.mappingId, scopeId, definitionOf(fields));
        return sendRedirect(c, `${scopesUrl(vault.mappingId)}#scope-${scopeId}`);
      } catch (error) {
        if (!correctable(error)) throw error;
        return editPage(c, deps, request, vault, scopeId, { error, fields });
      }
    }),
  );

  app.post(
    '/workspace/vaults/:mappingId/scopes/:scopeId/delete',
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request) => {
      const vault = await vaultOf(request.call, c.req.param('mappingId') ?? '');
      await deps.scopes.remove(request.actor, vault.mappingId, c.req.param('scopeId') ?? '');
      return sendRedirect(c, scopesUrl(vault.mappingId));
    }),
  );

  return app;
}
