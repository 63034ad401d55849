import { Hono } from 'hono';
import type { Commitment, Question } from '../../domains/knowledge/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { scopeHeader, scopeOf, type KnowledgePageDependencies, type ScopeRequest } from './knowledge-guard.ts';
import { knowledgeUrl } from './knowledge-urls.ts';
import { CURSOR_PARAM, cursorOf, evidenceLink, knownTime, morePage, noteDate } from './knowledge-view.ts';
import { html, sendPage, type SafeHtml } from './layout.ts';
import { workspacePage } from './workspace-guard.ts';

/** Commitments per page: grouped by owner on the page, so a page is large enough for groups to mean something. */
const COMMITMENTS_PAGE = 100;
/** Questions per page. */
const QUESTIONS_PAGE = 50;

/** The commitments of a page by owner (owners by name, those without one last), each soonest due first as read. */
export function byOwner(commitments: readonly Commitment[]): Array<{ owner: string | null; items: Commitment[] }> {
  const groups = new Map<string | null, Commitment[]>();
  for (const c of commitments) groups.set(c.owner, [...(groups.get(c.owner) ?? []), c]);
  return [...groups]
    .map(([owner, items]) => ({ owner, items }))
    .sort((a, b) => (a.owner === null ? 1 : b.owner === null ? -1 : a.owner.localeCompare(b.owner, 'en')));
}

/** True for an open commitment whose due date is before `today` (YYYY-MM-DD, UTC). */
export function isOverdue(commitment: Commitment, today: string): boolean {
  return !commitment.closed && commitment.due !== null && commitment.due < today;
}

function commitmentRow(scope: ScopeRequest, c: Commitment, today: string): SafeHtml {
  const overdue = isOverdue(c, today);
  return html`<tr${overdue ? html` class="overdue"` : ''}>
    <td>${noteDate(c.due)}${overdue ? html` <strong class="badge overdue">overdue</strong>` : ''}</td>
    <td>${c.text}</td>
    <td>${c.closed ? 'done' : 'open'}</td>
    <td>${knownTime(c.knownFrom)}</td>
    <td>${evidenceLink(scope.vault.mappingId, c.evidence)}</td>
  </tr>`;
}

function questionItem(scope: ScopeRequest, q: Question): SafeHtml {
  return html`<li class="record">
    <p><strong>${q.text}</strong>${q.answered ? html` <span class="badge">answered</span>` : ''}</p>
    <p class="muted">Asked in ${evidenceLink(scope.vault.mappingId, q.evidence)} · known since ${knownTime(q.knownFrom)}</p>
  </li>`;
}

/**
 * A scope's commitments (open follow-ups: tasks with their owners and due dates, grouped by owner, soonest due
 * first, overdue ones marked; closed ones on request) and its questions (open ones; answered ones on request).
 */
export function knowledgePages(deps: KnowledgePageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId/commitments',
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const { mappingId } = scope.vault;
      const s = scope.authorized.scope;
      const includeClosed = c.req.query('closed') === '1';
      const owner = (c.req.query('owner') ?? '').trim();
      const page = await deps.knowledge.commitments(scope.authorized.slice, {
        limit: COMMITMENTS_PAGE,
        includeClosed,
        ...(owner === '' ? {} : { owner }),
        ...cursorOf(c.req.query(CURSOR_PARAM)),
      });
      const today = new Date().toISOString().slice(0, 10);
      const url = (query: { closed?: boolean; owner?: string; after?: string }) =>
        knowledgeUrl(mappingId, s.id, 'commitments', { closed: query.closed ? '1' : undefined, owner: query.owner, [CURSOR_PARAM]: query.after });
      const toggles = html`<p>${includeClosed
        ? html`Showing open and done commitments. <a href="${url({ owner })}">Show open ones only</a>`
        : html`Showing open commitments. <a href="${url({ closed: true, owner })}">Include done ones</a>`}${owner === ''
        ? ''
        : html` · Owner: <strong>${owner}</strong> <a href="${url({ closed: includeClosed })}">All owners</a>`}</p>`;
      const groups = byOwner(page.items).map(
        (group, i) => html`<section aria-labelledby="owner-${i}">
          <h2 id="owner-${i}">${group.owner ?? 'No owner'}</h2>
          ${group.owner !== null && owner === '' ? html`<p><a href="${url({ closed: includeClosed, owner: group.owner })}">Only ${group.owner}'s commitments</a></p>` : ''}
          <table>
            <caption class="muted">Soonest due first; without a due date last</caption>
            <thead><tr><th scope="col">Due</th><th scope="col">Commitment</th><th scope="col">State</th><th scope="col">Known since</th><th scope="col">Evidence</th></tr></thead>
            <tbody>${group.items.map((item) => commitmentRow(scope, item, today))}</tbody>
          </table>
        </section>`,
      );
      const next = page.nextCursor ? url({ closed: includeClosed, owner, after: page.nextCursor }) : undefined;
      return sendPage(c, {
        title: `Commitments: ${s.name}`,
        signedIn: request.signedIn,
        body: html`${scopeHeader(scope, 'commitments')}${toggles}
          ${page.items.length === 0 ? html`<p>No ${includeClosed ? '' : 'open '}commitment in this scope.</p>` : groups}
          ${morePage(page.truncated, next, 'commitments')}
          ${page.truncated ? html`<p class="muted">Owners are grouped on each page; the next page may hold more of each.</p>` : ''}`,
      });
    }),
  );

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId/questions',
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const { mappingId } = scope.vault;
      const s = scope.authorized.scope;
      const includeAnswered = c.req.query('answered') === '1';
      const page = await deps.knowledge.questions(scope.authorized.slice, { limit: QUESTIONS_PAGE, includeAnswered, ...cursorOf(c.req.query(CURSOR_PARAM)) });
      const url = (answered: boolean, after?: string) => knowledgeUrl(mappingId, s.id, 'questions', { answered: answered ? '1' : undefined, [CURSOR_PARAM]: after });
      const next = page.nextCursor ? url(includeAnswered, page.nextCursor) : undefined;
      return sendPage(c, {
        title: `Open questions: ${s.name}`,
        signedIn: request.signedIn,
        body: html`${scopeHeader(scope, 'questions')}
          <p>${includeAnswered ? html`Showing open and answered questions. <a href="${url(false)}">Show open ones only</a>` : html`Showing open questions. <a href="${url(true)}">Include answered ones</a>`}</p>
          ${page.items.length === 0 ? html`<p>No ${includeAnswered ? '' : 'open '}question in this scope.</p>` : html`<ul class="records">${page.items.map((q) => questionItem(scope, q))}</ul>`}
          ${morePage(page.truncated, next, 'questions')}`,
      });
    }),
  );

  return app;
}
