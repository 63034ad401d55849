import { Hono } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { Proposal, ProposalDetail, ProposalState, ProposalsService } from '../../domains/proposals/index.ts';
import type { ScopesService } from '../../domains/scopes/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import { roleAllows, type MembershipService } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { HTTP_STATUS } from '../http/problem.ts';
import { knowledgeUrl } from './knowledge-urls.ts';
import { cursorOf, morePage } from './knowledge-view.ts';
import { hiddenInput, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { actionList, actorName, failureDetails, originWords, proposalTable, stateBadge, stepTable, type MemberNames } from './proposal-view.ts';
import { formBodyLimit } from './session.ts';
import { vaultNav, vaultOf, workspaceForm, workspacePage, type VaultView, type WorkspaceDependencies, type WorkspaceRequest } from './workspace-guard.ts';
import { proposalUrl, proposalsUrl } from './workspace-urls.ts';

/**
 * A vault's proposals (`/workspace/vaults/{mappingId}/proposals`, docs/proposals.md): what agents proposed, waiting
 * ones first, and one proposal's page with its diffs, its steps and their receipts, and the forms of the steps that
 * are people's acts: approve or reject, apply what was approved, undo. Those forms are the only way to take these
 * steps (spec 4.3 rule 8): a CSRF-checked post of a signed-in session, which the proposals domain checks again
 * (only a web session, with a role that writes the vault). No REST route or MCP tool takes them.
 */

/** What the proposal pages need beyond the workspace's. */
export interface ProposalPageDependencies extends WorkspaceDependencies {
  proposals: ProposalsService;
  /** The vault's workspace, whose members name who acted and whose role of the person decides whether forms show. */
  vaults: Pick<VaultsService, 'resolveHostedMapping'>;
  membership: Pick<MembershipService, 'listMembers'>;
  /** The name of a knowledge change's scope, when the person may use it. */
  scopes: Pick<ScopesService, 'authorize'>;
}

/** Proposals per section of the list. */
const PROPOSALS_PAGE = 50;

/** The list's sections: waiting for a person first, then approved ones waiting to be applied, then the rest. */
const SECTIONS: ReadonlyArray<{ cursor: string; heading: string; states: readonly ProposalState[]; none: string }> = [
  { cursor: 'pending', heading: 'Waiting for a person', states: ['proposed'], none: 'No proposal waits for a person.' },
  { cursor: 'approved', heading: 'Approved, not applied yet', states: ['approved'], none: 'No approved proposal waits to be applied.' },
  { cursor: 'after', heading: 'Decided, applied or expired', states: ['executed', 'failed', 'undone', 'rejected', 'expired'], none: 'Nothing decided yet.' },
];

/** The steps a form may post. */
type PersonStep = 'approve' | 'reject' | 'execute' | 'undo';

/** A proposals page's vault, the members who name actors, and whether this person may take steps. */
interface ProposalsRequest {
  vault: VaultView;
  names: MemberNames;
  canDecide: boolean;
}

/**
 * The vault a page names, among those the person may see (any other id is `not_found`, as for one that does not
 * exist), with its members: their addresses name who acted, and the person's role decides whether forms show.
 */
async function proposalsOf(deps: ProposalPageDependencies, request: WorkspaceRequest, mappingId: string): Promise<ProposalsRequest> {
  const vault = await vaultOf(request.call, mappingId);
  const mapping = await deps.vaults.resolveHostedMapping(request.actor.accountId, vault.mappingId, 'read');
  const members = await deps.membership.listMembers(request.actor.accountId, mapping.workspaceId);
  const role = members.find((m) => m.accountId === request.actor.accountId)?.role;
  return { vault, names: new Map(members.map((m) => [m.accountId, m.email])), canDecide: roleAllows(role, 'vault.write') };
}

/** The name of a knowledge change's scope, linked, or what to say when the person may not use it. */
async function scopeLine(deps: ProposalPageDependencies, request: WorkspaceRequest, p: Proposal): Promise<SafeHtml> {
  if (p.contextScopeId === null) return html`<span class="muted">the whole vault (no context scope)</span>`;
  try {
    const { scope } = await deps.scopes.authorize(request.actor, p.mappingId, p.contextScopeId);
    return html`<a href="${knowledgeUrl(p.mappingId, scope.id, 'decisions')}">${scope.name}</a>`;
  } catch (error) {
    if (!isKgateError(error)) throw error;
    return html`<span class="muted">a context scope you may not use</span>`;
  }
}

function commentField(id: string): SafeHtml {
  return html`<label for="${id}">Comment (optional)</label>
    <textarea id="${id}" name="comment" rows="2" maxlength="4000"></textarea>`;
}

/** The forms of the steps a person may take now, or why there are none. */
function stepForms(vault: VaultView, p: Proposal, csrf: string, canDecide: boolean): SafeHtml {
  const action = proposalUrl(vault.mappingId, p.id);
  const open = (body: SafeHtml) => html`<form method="post" action="${action}" class="review">${hiddenInput('csrf', csrf)}${body}</form>`;
  const readOnly = { rejected: 'It was rejected; nothing was applied.', expired: 'It expired before anyone acted on it; nothing was applied. An agent can propose it again.', undone: 'It was applied and then undone.' };
  if (p.state in readOnly) return html`<p>${readOnly[p.state as keyof typeof readOnly]}</p>`;
  if (p.state === 'failed') {
    return html`<p>Applying it was refused, and nothing was applied. An agent can propose the change again against the notes as they are now.</p>
      ${p.failure ? failureDetails(p.failure) : ''}`;
  }
  if (!canDecide) return html`<p class="muted">Your role in this workspace does not allow deciding proposals.</p>`;
  switch (p.state) {
    case 'proposed':
      return html`<p>Approving does not change any note yet: you then apply it, and it writes exactly what is shown above.</p>
        ${open(html`${commentField('comment')}
          <p><button type="submit" name="step" value="approve">Approve</button> <button type="submit" name="step" value="reject">Reject</button></p>`)}`;
    case 'approved':
      return html`${p.origin === 'automation'
          ? html`<p class="notice" id="automation-executes">Automation proposed this: the automation gateway's <code>process</code> applies it as you, the
              person who approved it (your access is checked again then), with nothing more to do here. You may still apply it now.</p>`
          : ''}<p>Applying writes exactly these notes, as you, against the revisions they were previewed against. If any of them changed since,
          nothing is applied and the proposal fails, saying which.</p>
        ${open(html`<button type="submit" name="step" value="execute">Apply the approved changes</button>`)}
        ${open(html`${commentField('withdraw-comment')}<button type="submit" name="step" value="reject">Reject</button>`)}`;
    case 'executed':
      return html`${p.failure ? html`<div class="warning"><p>The last undo was refused, and nothing was changed:</p>${failureDetails(p.failure)}</div>` : ''}
        ${p.reversible
          ? html`<p>Undoing gives changed notes their previous content back, moves created notes to the trash and restores deleted ones.</p>
              ${open(html`<button type="submit" name="step" value="undo">Undo these changes</button>`)}`
          : html`<p>It cannot be undone now: a note it changed has changed again since (or was moved or deleted), and undoing would overwrite that work.</p>`}`;
  }
  return html``;
}

/** A proposal's page body, with the error of a step just refused, if any. */
async function proposalBody(deps: ProposalPageDependencies, request: WorkspaceRequest, ctx: ProposalsRequest, detail: ProposalDetail, error?: string): Promise<SafeHtml> {
  const p = detail.proposal;
  const waits = p.state === 'proposed' || p.state === 'approved';
  return html`${vaultNav(ctx.vault.mappingId, 'proposals')}
    <nav aria-label="Proposal" class="crumbs"><ol><li><a href="${proposalsUrl(ctx.vault.mappingId)}">Proposals of ${ctx.vault.name}</a></li><li aria-current="page">${p.title}</li></ol></nav>
    ${error ? html`<p class="error" role="alert">${error} Nothing was changed.</p>` : ''}
    <p id="state">${stateBadge(p.state)}</p>
    <dl>
      <dt>Proposed by</dt><dd>${actorName(p.proposedBy, ctx.names)}, ${showDate(new Date(p.createdAt))}</dd>
      <dt>Origin</dt><dd>${originWords(p)}</dd>
      <dt>Kind</dt><dd>${p.kind === 'action' ? 'governed action' : 'knowledge change'}</dd>
      <dt>Scope</dt><dd>${await scopeLine(deps, request, p)}</dd>
      ${waits ? html`<dt>Expires</dt><dd>${showDate(new Date(p.expiresAt))}</dd>` : ''}
      ${p.decidedAt ? html`<dt>Decided</dt><dd>${showDate(new Date(p.decidedAt))}${p.decisionComment ? html`: “${p.decisionComment}”` : ''}</dd>` : ''}
      ${p.executedAt ? html`<dt>Applied</dt><dd>${showDate(new Date(p.executedAt))}</dd>` : ''}
      ${p.undoneAt ? html`<dt>Undone</dt><dd>${showDate(new Date(p.undoneAt))}</dd>` : ''}
      <dt>Actions hash</dt><dd style="overflow-wrap: anywhere"><code class="hash">${p.notesHash}</code></dd>
      <dt>Previewed against</dt><dd style="overflow-wrap: anywhere"><code class="hash">${p.againstHash}</code></dd>
    </dl>
    <h2>Why</h2>
    ${p.rationale === '' ? html`<p class="muted">The proposer gave no rationale.</p>` : html`<p class="rationale">${p.rationale}</p>`}
    <h2>What it changes</h2>
    ${actionList(ctx.vault.mappingId, p)}
    <h2 id="decide">Decision</h2>
    ${stepForms(ctx.vault, p, request.current.csrf, ctx.canDecide)}
    <h2>Steps</h2>
    ${stepTable(detail.steps, ctx.names)}`;
}

/** Takes the step a form posted, as the signed-in person; the domain checks the state, the role and the credential. */
function takeStep(deps: ProposalPageDependencies, request: WorkspaceRequest, mappingId: string, id: string, form: URLSearchParams): Promise<Proposal> {
  const step = form.get('step') as PersonStep | null;
  const comment = form.get('comment') ?? '';
  switch (step) {
    case 'approve':
      return deps.proposals.approve(request.actor, mappingId, id, comment);
    case 'reject':
      return deps.proposals.reject(request.actor, mappingId, id, comment);
    case 'execute':
      return deps.proposals.execute(request.actor, mappingId, id);
    case 'undo':
      return deps.proposals.undo(request.actor, mappingId, id);
    default:
      throw new KgateError('invalid_request', 'Choose Approve, Reject, Apply or Undo.');
  }
}

/** The proposal pages: the list, one proposal, and the post of a step. */
export function proposalPages(deps: ProposalPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const base = '/workspace/vaults/:mappingId/proposals';

  app.get(
    base,
    workspacePage(deps, async (c, request) => {
      const ctx = await proposalsOf(deps, request, c.req.param('mappingId') ?? '');
      const { mappingId } = ctx.vault;
      const pages = await Promise.all(
        SECTIONS.map((s) => deps.proposals.list(request.actor, mappingId, { states: s.states, limit: PROPOSALS_PAGE, ...cursorOf(c.req.query(s.cursor)) })),
      );
      const sections = SECTIONS.map((s, i) => {
        const page = pages[i]!;
        const next = page.nextCursor ? `${proposalsUrl(mappingId)}?${new URLSearchParams({ [s.cursor]: page.nextCursor }).toString()}` : undefined;
        return html`<section aria-labelledby="h-${s.cursor}"><h2 id="h-${s.cursor}">${s.heading}</h2>
          ${proposalTable(mappingId, 'Newest first', page.proposals, ctx.names, s.none)}${morePage(page.truncated, next, 'proposals')}</section>`;
      });
      return sendPage(c, {
        title: `Proposals of ${ctx.vault.name}`,
        signedIn: request.signedIn,
        body: html`${vaultNav(mappingId, 'proposals')}
          <p>Agents, scripts and automation propose note changes here; nothing is applied until a person approves a proposal and applies it
            (an approved automation proposal is applied by automation's <code>process</code>, as the person who approved it).
            A token, a connected application or a trigger can propose, never approve.</p>
          ${sections}`,
      });
    }),
  );

  app.get(
    `${base}/:id`,
    workspacePage(deps, async (c, request) => {
      const ctx = await proposalsOf(deps, request, c.req.param('mappingId') ?? '');
      const detail = await deps.proposals.get(request.actor, ctx.vault.mappingId, c.req.param('id') ?? '');
      return sendPage(c, { title: detail.proposal.title, signedIn: request.signedIn, body: await proposalBody(deps, request, ctx, detail) });
    }),
  );

  app.post(
    `${base}/:id`,
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, request, form) => {
      const ctx = await proposalsOf(deps, request, c.req.param('mappingId') ?? '');
      const id = c.req.param('id') ?? '';
      try {
        const proposal = await takeStep(deps, request, ctx.vault.mappingId, id, form);
        return sendRedirect(c, `${proposalUrl(ctx.vault.mappingId, proposal.id)}#state`);
      } catch (error) {
        // A step the proposal's state no longer allows, or a comment too long: the page again, saying why.
        // Refusals of who is asking (forbidden, not_found) are error pages.
        if (!isKgateError(error) || (error.code !== 'conflict' && error.code !== 'invalid_request')) throw error;
        const detail = await deps.proposals.get(request.actor, ctx.vault.mappingId, id);
        return sendPage(c, { title: detail.proposal.title, signedIn: request.signedIn, body: await proposalBody(deps, request, ctx, detail, error.message) }, HTTP_STATUS[error.code]);
      }
    }),
  );

  return app;
}
