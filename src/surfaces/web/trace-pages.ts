import { Hono } from 'hono';
import type { ResolvedReference, TracesService, TraceSessionSummary } from '../../domains/traces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { scopeHeader, scopeOf, type KnowledgePageDependencies, type ScopeRequest } from './knowledge-guard.ts';
import { knowledgeUrl } from './knowledge-urls.ts';
import { CURSOR_PARAM, cursorOf, morePage } from './knowledge-view.ts';
import { html, sendPage, showDate, type SafeHtml } from './layout.ts';
import { workspacePage } from './workspace-guard.ts';
import { noteUrl, proposalUrl } from './workspace-urls.ts';

/** What the work session pages need beyond the knowledge pages'. */
export interface TracePageDependencies extends KnowledgePageDependencies {
  traces: TracesService;
}

/** Sessions, and steps of one session, per page. */
const PAGE = 50;

/** One session's page, with the cursor of a further page of its steps. */
function sessionUrl(scope: ScopeRequest, sessionId: string, after?: string): string {
  const base = `${knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'traces')}/${encodeURIComponent(sessionId)}`;
  return after === undefined ? base : `${base}?${new URLSearchParams({ [CURSOR_PARAM]: after }).toString()}`;
}

const GAP_WORDS: Readonly<Record<NonNullable<ResolvedReference['reason']>, string>> = {
  not_found: 'gap: not in this scope now',
  outside_scope: 'gap: outside this scope',
  stale: 'gap: changed since (stale)',
  unpublished: 'gap: not published here',
};

function referenceItem(scope: ScopeRequest, r: ResolvedReference): SafeHtml {
  const state =
    r.status === 'resolved'
      ? html`<strong class="badge confirmed">resolved</strong>`
      : r.status === 'unresolved'
        ? html`<strong class="badge">unresolved: not checked here</strong>`
        : html`<strong class="badge candidate">${GAP_WORDS[r.reason ?? 'not_found']}</strong>`;
  // Only what the reader may open now is linked: a gap names what was published and nothing more.
  const readable = r.status === 'resolved' || r.reason === 'stale';
  switch (r.kind) {
    case 'note':
      return html`<li>Note ${readable && r.path ? html`<a href="${noteUrl(scope.vault.mappingId, r.path)}">${r.path}</a>` : html`<code>${r.path ?? ''}</code>`} ${state}</li>`;
    case 'record':
      return html`<li>Record <code>${r.recordId ?? ''}</code>${readable && r.path ? html` (${r.recordKind} in <a href="${noteUrl(scope.vault.mappingId, r.path)}">${r.path}</a>)` : ''} ${state}</li>`;
    case 'proposal':
      return r.status === 'resolved' && r.proposalId
        ? html`<li>Proposal <a href="${proposalUrl(scope.vault.mappingId, r.proposalId)}">${r.label ?? r.proposalId}</a> (${r.proposalState}) ${state}</li>`
        : html`<li>Proposal <code>${r.proposalId ?? ''}</code> ${state}</li>`;
    case 'local':
      return html`<li>${r.label ?? 'Work elsewhere'} ${state}</li>`;
  }
}

function sessionRow(scope: ScopeRequest, s: TraceSessionSummary, you: string): SafeHtml {
  return html`<tr>
    <td><a href="${sessionUrl(scope, s.sessionId)}">${s.title}</a> <span class="muted"><code>${s.sessionId}</code></span></td>
    <td>${s.agent ?? html`<span class="muted">–</span>`}</td>
    <td>${s.stepCount}</td>
    <td>${showDate(s.publishedAt)}${s.publishedBy === you ? ' (you)' : ''}</td>
  </tr>`;
}

/**
 * A scope's work sessions (`/workspace/vaults/{mappingId}/scopes/{scopeId}/traces`), newest first, and one session
 * reconstructed now, every reference resolved under the person's authorization with its gaps named (docs/traces.md).
 * Read-only: sessions are published over the REST API.
 */
export function tracePages(deps: TracePageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId/traces',
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const page = await deps.traces.list(scope.authorized, { limit: PAGE, ...cursorOf(c.req.query(CURSOR_PARAM)) });
      const next = page.nextCursor ? knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'traces', { [CURSOR_PARAM]: page.nextCursor }) : undefined;
      const list =
        page.items.length === 0
          ? html`<p>No work session has been published into this scope.</p>`
          : html`<table><caption class="muted">Newest first</caption>
              <thead><tr><th scope="col">Session</th><th scope="col">Agent</th><th scope="col">Steps</th><th scope="col">Published</th></tr></thead>
              <tbody>${page.items.map((s) => sessionRow(scope, s, request.actor.accountId))}</tbody></table>`;
      return sendPage(c, {
        title: `Work sessions: ${scope.authorized.scope.name}`,
        signedIn: request.signedIn,
        body: html`${scopeHeader(scope, 'traces')}
          <p>Work sessions their owners published (POST /api/dev/traces/sessions). Each is shown as it resolves now, for you: what no longer resolves is a gap, never filled in.</p>
          ${list}${morePage(page.truncated, next, 'sessions')}`,
      });
    }),
  );

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId/traces/:sessionId',
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const sessionId = c.req.param('sessionId') ?? '';
      const trace = await deps.traces.reconstruct(scope.authorized, sessionId, { limit: PAGE, ...cursorOf(c.req.query(CURSOR_PARAM)) });
      const gaps = Object.values(trace.gaps).reduce((a, b) => a + b, 0);
      const s = trace.session;
      const next = trace.nextCursor ? sessionUrl(scope, sessionId, trace.nextCursor) : undefined;
      return sendPage(c, {
        title: s.title,
        signedIn: request.signedIn,
        body: html`${scopeHeader(scope, 'traces')}
          <h2>${s.title}</h2>
          <p class="muted">Session <code>${s.sessionId}</code>${s.agent ? ` by ${s.agent}` : ''}, published ${showDate(s.publishedAt)}; ${s.stepCount} steps.</p>
          <p${gaps > 0 ? html` class="warning"` : ''}>${gaps === 0 ? 'No gap on this page' : `${gaps} gaps on this page`}: ${trace.gaps.not_found} not in this scope now,
            ${trace.gaps.outside_scope} outside it, ${trace.gaps.stale} changed since, ${trace.gaps.unpublished} not published here; ${trace.unresolved} unresolved.
            A session without gaps shows only what was published and what you may read now.</p>
          <ol start="${trace.steps[0] ? trace.steps[0].index + 1 : 1}">${trace.steps.map(
            (step) => html`<li><p>${step.summary}${step.at ? html` <span class="muted">${showDate(new Date(step.at))}</span>` : ''}</p>
              ${step.references.length === 0 ? '' : html`<ul>${step.references.map((r) => referenceItem(scope, r))}</ul>`}</li>`,
          )}</ol>
          ${morePage(trace.truncated, next, 'steps')}`,
      });
    }),
  );

  return app;
}
