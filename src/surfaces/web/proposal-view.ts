/**
 * How the proposal pages show a proposal (docs/proposals.md): its state, who acted through what credential, each
 * action with the diff its preview answered and the revision it was previewed against, and every step's receipt.
 * Everything here is text put through `html`, which escapes it: a diff or a title holding markup shows as written.
 */
import type { Proposal, ProposalState, ProposalStep } from '../../domains/proposals/index.ts';
import { html, showDate, type SafeHtml } from './layout.ts';
import { noteUrl, proposalUrl } from './workspace-urls.ts';

/** Who a step names: the account, and how it proved it. */
type StepActor = ProposalStep['by'];

/** The members of the proposal's workspace by account id, to name who acted by their address. */
export type MemberNames = ReadonlyMap<string, string>;

/** How each state reads, and the badge's class (layout.ts styles candidate, confirmed and rejected). */
const STATES: Readonly<Record<ProposalState, { text: string; badge: string }>> = {
  proposed: { text: 'waiting for a person', badge: 'candidate' },
  approved: { text: 'approved — not applied yet', badge: 'candidate' },
  executed: { text: 'applied', badge: 'confirmed' },
  failed: { text: 'failed — nothing applied', badge: 'overdue' },
  rejected: { text: 'rejected', badge: 'rejected' },
  expired: { text: 'expired', badge: 'rejected' },
  undone: { text: 'undone', badge: 'rejected' },
};

/** A proposal's state as a badge whose text says it (colour is never the only sign). */
export function stateBadge(state: ProposalState): SafeHtml {
  const { text, badge } = STATES[state];
  return html`<strong class="badge ${badge}" data-state="${state}">${text}</strong>`;
}

/** Credentials as people read them (event-pages.ts names them the same way, from the reader's side). */
const CREDENTIAL_NAMES: Readonly<Record<string, string>> = {
  personal_access_token: 'access token',
  oauth: 'connected application',
  session: 'signed in, in the workspace',
  operator: 'the server operator',
  service_principal: 'a product installation',
  system: 'the server',
  automation: 'automation, acting for them',
};

/** Who acted: the member's address when known, the credential kind, and the client it named. */
export function actorName(by: StepActor, names: MemberNames): SafeHtml {
  const credential = CREDENTIAL_NAMES[by.credentialKind] ?? by.credentialKind;
  if (by.accountId === null) return html`${credential}`;
  const who = names.get(by.accountId) ?? 'a former member';
  // A session's client is always the workspace itself; other credentials name the application that acted.
  const client = by.client && by.credentialKind !== 'session' ? html`: ${by.client}` : '';
  return html`${who} <span class="muted">(${credential}${client})</span>`;
}

/** A receipt's field as text; anything but a string or a number reads as empty. */
const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

const short = (hash: unknown) => (typeof hash === 'string' && hash.length > 19 ? `${hash.slice(0, 19)}…` : typeof hash === 'string' ? hash : '–');

/** A hash shortened for reading, the whole of it in the title and for copying. */
function hashCode(hash: unknown): SafeHtml {
  return typeof hash === 'string' ? html`<code title="${hash}">${short(hash)}</code>` : html`<span class="muted">–</span>`;
}

/**
 * Where a proposal came from: an agent (MCP, REST), or the automation gateway and the bridge or producer that sent it
 * (a trigger's proposals name the trigger).
 */
export function originWords(p: Pick<Proposal, 'origin' | 'automationSource'>): SafeHtml {
  if (p.origin !== 'automation') return html`<span class="origin" data-origin="agent">agent</span>`;
  return html`<span class="origin" data-origin="automation">automation${p.automationSource ? html`: ${p.automationSource}` : ''}</span>`;
}

/** One row of a list of proposals. */
export function proposalRow(mappingId: string, p: Proposal, names: MemberNames): SafeHtml {
  const waits = p.state === 'proposed' || p.state === 'approved';
  return html`<tr>
    <th scope="row"><a href="${proposalUrl(mappingId, p.id)}">${p.title}</a><br><span class="muted">${p.actions.length === 1 ? '1 note' : `${p.actions.length} notes`}</span></th>
    <td>${actorName(p.proposedBy, names)}<br><span class="muted">${originWords(p)}</span></td>
    <td>${showDate(new Date(p.createdAt))}</td>
    <td>${stateBadge(p.state)}</td>
    <td>${waits ? showDate(new Date(p.expiresAt)) : html`<span class="muted">–</span>`}</td>
  </tr>`;
}

/** A table of proposals, or what to say when there are none. */
export function proposalTable(mappingId: string, caption: string, proposals: readonly Proposal[], names: MemberNames, none: string): SafeHtml {
  if (proposals.length === 0) return html`<p class="muted">${none}</p>`;
  return html`<table>
    <caption class="muted">${caption}</caption>
    <thead><tr><th scope="col">Proposal</th><th scope="col">Proposed by, origin</th><th scope="col">When</th><th scope="col">State</th><th scope="col">Expires</th></tr></thead>
    <tbody>${proposals.map((p) => proposalRow(mappingId, p, names))}</tbody>
  </table>`;
}

const ACTION_WORDS: Readonly<Record<string, string>> = {
  create: 'Create',
  update: 'Replace',
  delete: 'Move to the trash',
  unchanged: 'Leave as it is (same content)',
};

/** Each action: what it does to which note, the revision it was previewed against, and the preview's diff. */
export function actionList(mappingId: string, p: Proposal): SafeHtml {
  return html`<ol class="actions">${p.actions.map((action, index) => {
    const preview = p.preview[index];
    const status = preview?.status ?? (action.type === 'delete-note' ? 'delete' : 'update');
    const against = action.expectedHash
      ? html`previewed against revision ${hashCode(action.expectedHash)}`
      : html`a new note: previewed when no note had this path`;
    const note = action.type === 'delete-note' || status === 'create' ? html`<code>${action.path}</code>` : html`<a href="${noteUrl(mappingId, action.path)}">${action.path}</a>`;
    return html`<li>
      <h3>${ACTION_WORDS[status] ?? status} ${note}</h3>
      <p class="muted">${against}</p>
      ${preview?.diff
        ? html`<pre class="diff" tabindex="0" aria-label="Changes to ${action.path}">${preview.diff}</pre>${preview.diffTruncated ? html`<p class="muted">The diff is cut; the note's new content is applied whole.</p>` : ''}`
        : html`<p class="muted">No diff: ${status === 'delete' ? 'the note is moved to the trash whole.' : 'the content is unchanged.'}</p>`}
    </li>`;
  })}</ol>`;
}

/** The receipt of one step, field by field: keys, hashes, what it applied or reverted, why it failed. */
function receiptOf(receipt: Record<string, unknown>): SafeHtml {
  const parts: SafeHtml[] = [];
  if (typeof receipt.idempotencyKey === 'string') parts.push(html`<li>idempotency key <code>${receipt.idempotencyKey}</code></li>`);
  if (receipt.notesHash !== undefined) parts.push(html`<li>actions ${hashCode(receipt.notesHash)}</li>`);
  if (receipt.againstHash !== undefined) parts.push(html`<li>against ${hashCode(receipt.againstHash)}</li>`);
  if (typeof receipt.previewReceipt === 'string') parts.push(html`<li>preview receipt <code>${receipt.previewReceipt}</code></li>`);
  if (typeof receipt.comment === 'string' && receipt.comment !== '') parts.push(html`<li>comment “${receipt.comment}”</li>`);
  for (const key of ['applied', 'reverted'] as const) {
    const list = receipt[key];
    if (!Array.isArray(list)) continue;
    for (const entry of list as Array<Record<string, unknown>>) {
      parts.push(html`<li>${key} ${text(entry.status)} <code>${text(entry.path)}</code>: ${hashCode(entry.before)} → ${hashCode(entry.after)}</li>`);
    }
  }
  const failure = receipt.failure as { code?: unknown; detail?: unknown } | undefined;
  if (failure && typeof failure === 'object') parts.push(html`<li>refused: <code>${text(failure.code)}</code> ${text(failure.detail)}</li>`);
  if (typeof receipt.expiredAt === 'string') parts.push(html`<li>expired at ${showDate(new Date(receipt.expiredAt))}</li>`);
  return parts.length === 0 ? html`<span class="muted">–</span>` : html`<ul class="receipt" style="list-style: none; padding: 0; margin: 0; overflow-wrap: anywhere">${parts}</ul>`;
}

const STEP_WORDS: Readonly<Record<ProposalStep['step'], string>> = {
  propose: 'Proposed',
  approve: 'Approved',
  reject: 'Rejected',
  expire: 'Expired',
  execute: 'Applied',
  fail: 'Apply failed',
  undo: 'Undone',
  'undo-failed': 'Undo refused',
};

/** Every step of the proposal, oldest first, with its receipt. */
export function stepTable(steps: readonly ProposalStep[], names: MemberNames): SafeHtml {
  return html`<table class="steps">
    <caption class="muted">Oldest first; each step is also an event of the vault</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Step</th><th scope="col">Who</th><th scope="col">State</th><th scope="col">Receipt</th></tr></thead>
    <tbody>${steps.map(
      (s) => html`<tr data-step="${s.step}">
        <td>${showDate(new Date(s.at))}</td>
        <td>${STEP_WORDS[s.step]}</td>
        <td>${actorName(s.by, names)}</td>
        <td>${s.fromState ?? '–'} → ${s.toState}</td>
        <td>${receiptOf(s.receipt)}</td>
      </tr>`,
    )}</tbody></table>`;
}

/** The notes a refused execution or undo names (the transaction's problems), each with why. */
export function failureDetails(failure: NonNullable<Proposal['failure']>): SafeHtml {
  const problems = (failure.problems ?? []).filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null);
  if (problems.length === 0) return html`<p style="overflow-wrap: anywhere"><code>${failure.code}</code>: ${failure.detail}</p>`;
  return html`<p>Refused with <code>${failure.code}</code>. The notes that were not as previewed:</p>
    <ul style="overflow-wrap: anywhere">${problems.map((p) => html`<li><code>${text(p.path)}</code>: ${text(p.detail) || text(p.code)}</li>`)}</ul>`;
}
