import { Hono, type Context } from 'hono';
import { isKgateError, type KgateError } from '../../kernel/errors.ts';
import { REVIEW_STATES, type Finding, type FindingState } from '../../domains/views/index.ts';
import { roleAllows } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { scopeHeader, scopeOf, type ScopeRequest } from './knowledge-guard.ts';
import { knowledgeUrl } from './knowledge-urls.ts';
import { CURSOR_PARAM, cursorOf, evidenceLink, morePage } from './knowledge-view.ts';
import { hiddenInput, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { formBodyLimit } from './session.ts';
import { viewLink, type ViewPageDependencies } from './view-pages.ts';
import { workspaceForm, workspacePage, type WorkspaceRequest } from './workspace-guard.ts';

/** Findings per page. */
const FINDINGS_PAGE = 50;

/** The list's filters: which review states each shows (the default: what still needs a person). */
const FILTERS: ReadonlyArray<{ key: string; label: string; states: readonly FindingState[] }> = [
  { key: '', label: 'To review', states: ['new', 'acknowledged'] },
  { key: 'new', label: 'New', states: ['new'] },
  { key: 'acknowledged', label: 'Acknowledged', states: ['acknowledged'] },
  { key: 'dismissed', label: 'Dismissed', states: ['dismissed'] },
  { key: 'resolved', label: 'Resolved', states: ['resolved'] },
  { key: 'all', label: 'All', states: ['new', 'acknowledged', 'dismissed', 'resolved'] },
];

const CHANGE_WORDS: Readonly<Record<Finding['change'], string>> = {
  matched: 'began to match',
  changed: 'changed while matching',
  unmatched: 'stopped matching (or is gone)',
};
const ACTION_WORDS: Readonly<Record<(typeof REVIEW_STATES)[number], string>> = { acknowledged: 'Acknowledge', dismissed: 'Dismiss', resolved: 'Resolve' };

const findingsUrl = (mappingId: string, scopeId: string, query: Readonly<Record<string, string | undefined>> = {}) => knowledgeUrl(mappingId, scopeId, 'findings', query);

/** Where a finding's review form posts. */
export function findingReviewUrl(mappingId: string, scopeId: string, findingId: string): string {
  return `${findingsUrl(mappingId, scopeId)}/${encodeURIComponent(findingId)}/review`;
}

function findingItem(scope: ScopeRequest, finding: Finding, csrf: string, canReview: boolean, filter: string): SafeHtml {
  const { mappingId } = scope.vault;
  const scopeId = scope.authorized.scope.id;
  const r = finding.record;
  const label = `“${r.title}” (${finding.state})`;
  return html`<li class="record" id="f-${finding.id}">
    <p><strong>${r.title}</strong> ${CHANGE_WORDS[finding.change]} ${viewLink(mappingId, scopeId, { id: finding.viewId, name: finding.viewName })}
      <span class="muted">(version ${finding.viewVersion})</span> · <strong class="badge">${finding.state}</strong></p>
    <p class="muted">${r.kind}${r.status ? ` · ${r.status === 'candidate' ? 'candidate — not confirmed' : r.status}` : ''}${r.owner ? ` · owner ${r.owner}` : ''}${r.due ? ` · due ${r.due}` : ''} · found ${showDate(new Date(finding.foundAt))}${finding.stateChangedAt ? html` · reviewed ${showDate(new Date(finding.stateChangedAt))}` : ''}</p>
    <p>Evidence: ${evidenceLink(mappingId, r.evidence)}</p>
    ${canReview
      ? html`<form method="post" action="${findingReviewUrl(mappingId, scopeId, finding.id)}" class="review">
          ${hiddenInput('csrf', csrf)}${hiddenInput('seen', finding.state)}${hiddenInput('filter', filter)}
          ${REVIEW_STATES.filter((s) => s !== finding.state).map((s) => html`<button type="submit" name="state" value="${s}" aria-label="${ACTION_WORDS[s]} ${label}">${ACTION_WORDS[s]}</button> `)}
        </form>`
      : ''}
  </li>`;
}

/** The findings page (with an error of a review just refused, if any). */
async function findingsPage(c: Context<HttpEnv>, deps: ViewPageDependencies, request: WorkspaceRequest, scope: ScopeRequest, filterKey: string, error?: KgateError) {
  const { mappingId } = scope.vault;
  const s = scope.authorized.scope;
  const filter = FILTERS.find((f) => f.key === filterKey) ?? FILTERS[0]!;
  const [page, watches] = await Promise.all([
    deps.views.findings(scope.authorized, { states: filter.states, limit: FINDINGS_PAGE, ...cursorOf(c.req.query(CURSOR_PARAM)) }),
    deps.views.watches(scope.authorized),
  ]);
  const canReview = roleAllows(scope.authorized.role, 'vault.write');
  const tabs = html`<nav aria-label="Which findings" class="tabs"><ul>${FILTERS.map(
    (f) => html`<li><a href="${findingsUrl(mappingId, s.id, { state: f.key })}"${f === filter ? html` aria-current="page"` : ''}>${f.label}</a></li>`,
  )}</ul></nav>`;
  const limits = watches.filter((w) => w.overLimit || w.droppedFindings > 0);
  const next = page.nextCursor ? findingsUrl(mappingId, s.id, { state: filter.key, [CURSOR_PARAM]: page.nextCursor }) : undefined;
  const body = html`${scopeHeader(scope, 'findings')}
    ${error ? html`<p class="error" role="alert">${error.message} Nothing was changed.</p>` : ''}
    <p>Each <strong>watch</strong> runs a <a href="${knowledgeUrl(mappingId, s.id, 'views')}">saved view</a> again when a change touches this
      scope; what changed is a finding. Only people review findings, here: agents read them with <code>get_watch_findings</code> but cannot change them.</p>
    ${watches.length === 0 ? html`<p class="muted">Nobody watches a view of this scope yet.</p>` : ''}
    ${limits.map(
      (w) => html`<p class="warning">The watch of “${w.viewName}” ${w.overLimit ? 'matched too many records at its last run to compare, so it recorded nothing. ' : ''}${w.droppedFindings > 0 ? `${w.droppedFindings} findings were not recorded: it held as many as it keeps. Dismiss or resolve some.` : ''}</p>`,
    )}
    ${tabs}
    ${page.items.length === 0 ? html`<p>No finding of this kind in this scope.</p>` : html`<ul class="records">${page.items.map((f) => findingItem(scope, f, request.current.csrf, canReview, filter.key))}</ul>`}
    ${canReview ? '' : html`<p class="muted">Your role in this workspace does not allow reviewing findings.</p>`}
    ${morePage(page.truncated, next, 'findings')}`;
  return sendPage(c, { title: `Findings: ${s.name}`, signedIn: request.signedIn, body }, error ? HTTP_STATUS[error.code] : 200);
}

/**
 * A scope's findings (`/workspace/vaults/{mappingId}/scopes/{scopeId}/findings`): what its watches found, with
 * evidence linked to the lines of the note, and the forms in which a person acknowledges, dismisses or resolves one
 * (CSRF-checked form posts; the domain also refuses every credential but a web session), and stops a watch.
 */
export function findingPages(deps: ViewPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const FINDINGS = '/workspace/vaults/:mappingId/scopes/:scopeId/findings';
  const scopeFrom = (c: Context<HttpEnv>, request: WorkspaceRequest) => scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');

  app.get(FINDINGS, workspacePage(deps, async (c, request) => findingsPage(c, deps, request, await scopeFrom(c, request), c.req.query('state') ?? '')));

  app.post(
    `${FINDINGS}/:findingId/review`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeFrom(c, request);
      const filter = form.get('filter') ?? '';
      const findingId = c.req.param('findingId') ?? '';
      try {
        await deps.views.reviewFinding(request.actor, scope.authorized, { findingId, state: form.get('state'), seen: form.get('seen') });
        return sendRedirect(c, `${findingsUrl(scope.vault.mappingId, scope.authorized.scope.id, { state: filter })}#f-${findingId}`);
      } catch (error) {
        // A stale or incomplete form is shown again with why; a refusal of the person (role, scope) is an error page.
        if (!isKgateError(error) || (error.code !== 'invalid_request' && error.code !== 'conflict')) throw error;
        return findingsPage(c, deps, request, scope, filter, error);
      }
    }),
  );

  app.post(
    `${FINDINGS}/watches/:watchId/delete`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request) => {
      const scope = await scopeFrom(c, request);
      await deps.views.removeWatch(request.actor, scope.authorized, c.req.param('watchId') ?? '');
      return sendRedirect(c, knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'views'));
    }),
  );

  return app;
}
