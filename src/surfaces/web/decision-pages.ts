import { Hono, type Context } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import { MAX_KNOWLEDGE_LIMIT, type Decision } from '../../domains/knowledge/index.ts';
import { roleAllows } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { quickReviewForm, readReviewForm, reviewForm, reviewHistoryTable, statusBadge } from './decision-review.ts';
import { scopeHeader, scopeOf, type KnowledgePageDependencies, type ScopeRequest } from './knowledge-guard.ts';
import { decisionUrl, knowledgeUrl } from './knowledge-urls.ts';
import { CURSOR_PARAM, cursorOf, evidenceLink, knownTime, morePage, noteDate, pointInTime } from './knowledge-view.ts';
import { html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { formBodyLimit } from './session.ts';
import { workspaceForm, workspacePage, type WorkspaceRequest } from './workspace-guard.ts';

/** Decisions per page of the list. */
const DECISIONS_PAGE = 50;
const ALL: ReadonlyArray<Decision['status']> = ['confirmed', 'superseded', 'rejected', 'candidate'];

/** The list's filters: which statuses each shows (the default is the domain's: all but rejected). */
const FILTERS: ReadonlyArray<{ key: string; label: string; statuses?: ReadonlyArray<Decision['status']> }> = [
  { key: '', label: 'Current and candidates' },
  { key: 'candidate', label: 'Candidates', statuses: ['candidate'] },
  { key: 'confirmed', label: 'Confirmed', statuses: ['confirmed'] },
  { key: 'superseded', label: 'Superseded', statuses: ['superseded'] },
  { key: 'rejected', label: 'Rejected', statuses: ['rejected'] },
  { key: 'all', label: 'All', statuses: ALL },
];

const DECISION_PATH = '/workspace/vaults/:mappingId/scopes/:scopeId/decisions';

/** What a decision's review says, in a line: who decided and when, or that nobody has; `titles` names other decisions. */
function reviewLine(mappingId: string, scopeId: string, decision: Decision, titles: ReadonlyMap<string, string>): SafeHtml {
  const review = decision.review;
  if (!review) return html`<p class="muted">No person has confirmed it. The note says “${decision.statusInNote}”, which is not a decision of the team.</p>`;
  const verdict = review.verdict === 'confirmed' ? 'Confirmed' : review.verdict === 'rejected' ? 'Rejected' : 'Superseded';
  const by = review.supersededBy
    ? html`, in favour of <a href="${decisionUrl(mappingId, scopeId, review.supersededBy)}">${titles.get(review.supersededBy) ?? 'another decision'}</a>`
    : '';
  return html`<p>${verdict} by a person on ${showDate(new Date(review.reviewedAt))}${by}${review.comment ? html`: “${review.comment}”` : '.'}</p>`;
}

function validity(decision: Decision): SafeHtml {
  return html`valid from ${noteDate(decision.validFrom)} until ${decision.validUntil === null ? html`<span class="muted">open end</span>` : pointInTime(decision.validUntil)}`;
}

function decisionItem(scope: ScopeRequest, decision: Decision, csrf: string, canReview: boolean, titles: ReadonlyMap<string, string>): SafeHtml {
  const { mappingId } = scope.vault;
  const scopeId = scope.authorized.scope.id;
  return html`<li class="record${decision.candidate ? ' candidate' : ''}" id="d-${decision.id}">
    <p><a href="${decisionUrl(mappingId, scopeId, decision.id)}"><strong>${decision.title}</strong></a> ${statusBadge(decision)}</p>
    <p class="muted">${decision.subject ? html`${decision.subject} · ` : ''}${validity(decision)} · known since ${knownTime(decision.knownFrom)}</p>
    <p>Evidence: ${evidenceLink(mappingId, decision.evidence)}</p>
    ${reviewLine(mappingId, scopeId, decision, titles)}
    ${decision.candidate && canReview ? quickReviewForm(mappingId, scopeId, decision, csrf) : ''}
  </li>`;
}

/** The decision page's body, with an error of a review just refused, if any. */
async function decisionBody(deps: KnowledgePageDependencies, request: WorkspaceRequest, scope: ScopeRequest, decision: Decision, error?: string): Promise<SafeHtml> {
  const { slice, scope: s, mapping, role } = scope.authorized;
  const { mappingId } = scope.vault;
  const [evidence, history, others, members] = await Promise.all([
    deps.knowledge.decisionEvidence(slice, decision.id),
    deps.knowledge.reviewHistory(slice, decision.id),
    deps.knowledge.decisions(slice, { statuses: ['confirmed', 'candidate', 'superseded'], limit: MAX_KNOWLEDGE_LIMIT }),
    deps.membership.listMembers(request.actor.accountId, mapping.workspaceId),
  ]);
  const names = new Map(members.map((m) => [m.accountId, m.email]));
  const titles = new Map(others.items.map((d) => [d.id, d.title]));
  const canReview = roleAllows(role, 'vault.write');
  return html`${scopeHeader(scope, 'decisions')}
    ${error ? html`<p class="error" role="alert">${error} Nothing was changed.</p>` : ''}
    <p>${statusBadge(decision)} <span class="muted">The note says “${decision.statusInNote}”.</span></p>
    <dl>
      <dt>Subject</dt><dd>${decision.subject ?? html`<span class="muted">–</span>`}</dd>
      <dt>Decided</dt><dd>${noteDate(decision.decided)}</dd>
      <dt>Validity</dt><dd>${validity(decision)}</dd>
      <dt>Supersedes (as written)</dt><dd>${decision.supersedes.length === 0 ? html`<span class="muted">–</span>` : decision.supersedes.join(', ')}</dd>
      <dt>Known since</dt><dd>${knownTime(decision.knownFrom)}</dd>
      <dt>Evidence</dt><dd>${evidenceLink(mappingId, decision.evidence)}</dd>
    </dl>
    ${reviewLine(mappingId, s.id, decision, titles)}
    <h2>Source</h2>
    <pre class="outline" tabindex="0">${evidence.source.text}</pre>
    ${evidence.source.truncated ? html`<p class="muted">The source block is cut here; the note has all of it.</p>` : ''}
    ${evidence.citations.length === 0
      ? ''
      : html`<h3>Cited</h3><ul>${evidence.citations.map((c) => html`<li>“${c.target}”: ${evidenceLink(mappingId, c.source)}</li>`)}</ul>`}
    ${evidence.withheld > 0 ? html`<p class="muted">${evidence.withheld} links of the block lead outside this scope or to notes that are gone; they are not followed.</p>` : ''}
    <h2 id="review">Review</h2>
    ${canReview
      ? html`<p>Only a person confirms a decision: what you choose here is what agents are told the team decided. It holds until the note changes the decision.</p>
          ${reviewForm(mappingId, s.id, decision, others.items, others.truncated, request.current.csrf)}`
      : html`<p class="muted">Your role in this workspace does not allow reviewing decisions.</p>`}
    <h2>Review history</h2>
    ${reviewHistoryTable(mappingId, s.id, history, names, titles)}`;
}

/** One decision of the scope, whatever its status; `not_found` when the scope has none of that id. */
async function oneDecision(deps: KnowledgePageDependencies, scope: ScopeRequest, recordId: string): Promise<Decision> {
  const page = await deps.knowledge.decisions(scope.authorized.slice, { recordId, statuses: ALL, limit: 1 });
  const decision = page.items[0];
  if (!decision) throw new KgateError('not_found', 'No such decision in this scope.');
  return decision;
}

/**
 * A scope's decisions (`/workspace/vaults/{mappingId}/scopes/{scopeId}/decisions`): confirmed ones with their
 * validity, candidates found in notes labelled as such with the forms that confirm or reject them, one decision's
 * page with its source, reviews and the full review form, and the review itself (a CSRF-checked form post).
 */
export function decisionPages(deps: KnowledgePageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/scopes/:scopeId',
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      return sendRedirect(c, knowledgeUrl(scope.vault.mappingId, scope.authorized.scope.id, 'decisions'));
    }),
  );

  app.get(
    DECISION_PATH,
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const { mappingId } = scope.vault;
      const s = scope.authorized.scope;
      const filter = FILTERS.find((f) => f.key === (c.req.query('status') ?? '')) ?? FILTERS[0]!;
      const page = await deps.knowledge.decisions(scope.authorized.slice, {
        limit: DECISIONS_PAGE,
        ...(filter.statuses ? { statuses: filter.statuses } : {}),
        ...cursorOf(c.req.query(CURSOR_PARAM)),
      });
      const canReview = roleAllows(scope.authorized.role, 'vault.write');
      // Names the superseding decisions that are on this page; others are "another decision", a link away.
      const titles = new Map(page.items.map((d) => [d.id, d.title]));
      const filters = html`<nav aria-label="Which decisions" class="tabs"><ul>${FILTERS.map(
        (f) => html`<li><a href="${knowledgeUrl(mappingId, s.id, 'decisions', { status: f.key })}"${f === filter ? html` aria-current="page"` : ''}>${f.label}</a></li>`,
      )}</ul></nav>`;
      const list =
        page.items.length === 0
          ? html`<p>No decision of this kind in this scope.</p>`
          : html`<ul class="records">${page.items.map((d) => decisionItem(scope, d, request.current.csrf, canReview, titles))}</ul>`;
      const next = page.nextCursor ? knowledgeUrl(mappingId, s.id, 'decisions', { status: filter.key, [CURSOR_PARAM]: page.nextCursor }) : undefined;
      return sendPage(c, {
        title: `Decisions: ${s.name}`,
        signedIn: request.signedIn,
        body: html`${scopeHeader(scope, 'decisions')}
          <p>A decision found in a note is a <strong>candidate</strong> until a person confirms it here; what the note says is not authority.</p>
          ${filters}${list}${morePage(page.truncated, next, 'decisions')}`,
      });
    }),
  );

  app.get(
    `${DECISION_PATH}/:recordId`,
    workspacePage(deps, async (c, request) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const decision = await oneDecision(deps, scope, c.req.param('recordId') ?? '');
      return sendPage(c, { title: decision.title, signedIn: request.signedIn, body: await decisionBody(deps, request, scope, decision) });
    }),
  );

  app.post(
    `${DECISION_PATH}/:recordId/review`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const scope = await scopeOf(deps, request, c.req.param('mappingId') ?? '', c.req.param('scopeId') ?? '');
      const decision = await oneDecision(deps, scope, c.req.param('recordId') ?? '');
      const { slice, role, scope: s } = scope.authorized;
      try {
        const review = readReviewForm(form);
        await deps.knowledge.reviewDecision({
          actor: request.actor,
          role,
          slice,
          recordId: decision.id,
          verdict: review.verdict,
          comment: review.comment,
          ...(review.supersededBy === undefined ? {} : { supersededBy: review.supersededBy }),
        });
        const back = review.back === 'list' ? `${knowledgeUrl(scope.vault.mappingId, s.id, 'decisions')}#d-${decision.id}` : `${decisionUrl(scope.vault.mappingId, s.id, decision.id)}#review`;
        return sendRedirect(c, back);
      } catch (error) {
        // A form the person can correct is shown again with why; a refusal (role, scope) is an error page.
        if (!isKgateError(error) || error.code !== 'invalid_request') throw error;
        return refusedReview(c, deps, request, scope, decision, error.message);
      }
    }),
  );

  return app;
}

/** The decision's page again, with why the review just posted was refused (400): the person corrects the form. */
async function refusedReview(c: Context<HttpEnv>, deps: KnowledgePageDependencies, request: WorkspaceRequest, scope: ScopeRequest, decision: Decision, message: string): Promise<Response> {
  return sendPage(c, { title: decision.title, signedIn: request.signedIn, body: await decisionBody(deps, request, scope, decision, message) }, 400);
}
