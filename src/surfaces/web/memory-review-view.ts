import type { DecidedMemoryCandidate, MemoryCandidate } from '../../domains/runtime/admin/index.ts';
import { hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { MEMORY_PAGE } from './product-install-view.ts';
import { noteUrl } from './workspace-urls.ts';

/** The evidence paths of a candidate as the product sent them (checked on the way in: path and an optional note). */
function evidenceOf(evidence: unknown): Array<{ path: string; note?: string | undefined }> {
  if (!Array.isArray(evidence)) return [];
  return evidence.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const { path, note } = item as { path?: unknown; note?: unknown };
    return typeof path === 'string' ? [{ path, note: typeof note === 'string' ? note : undefined }] : [];
  });
}

const STATUS_WORDS: Readonly<Record<MemoryCandidate['status'], string>> = {
  candidate: 'candidate — not trusted',
  accepted: 'accepted',
  rejected: 'rejected',
};

/** Who decided a listed decided candidate, by email; a deleted account is said to be so. */
function deciderOf(candidate: MemoryCandidate | DecidedMemoryCandidate): SafeHtml | string {
  if (!('decider' in candidate)) return '';
  return candidate.decider
    ? html` by <span data-field="decider">${candidate.decider.email}</span>`
    : html` by <span data-field="decider">a deleted account</span>`;
}

/**
 * One candidate: its title, who proposed it for which scope and vault, its body and evidence as escaped text (markup
 * a product writes is shown, never run), and Accept and Reject while it is undecided; a decided one says who decided
 * and when.
 */
export function candidateItem(candidate: MemoryCandidate | DecidedMemoryCandidate, vault: { mappingId: string; name: string } | undefined, csrf: string): SafeHtml {
  const id = `candidate-${candidate.id}`;
  const evidence = evidenceOf(candidate.evidence);
  const undecided = candidate.status === 'candidate';
  return html`<li id="${id}" class="${undecided ? 'candidate' : candidate.status}" data-candidate="${candidate.id}">
    <h3 id="${id}-heading">${candidate.title}</h3>
    <p><span class="badge ${undecided ? 'candidate' : candidate.status === 'accepted' ? 'confirmed' : 'rejected'}" data-field="status">${STATUS_WORDS[candidate.status]}</span>
      proposed by <strong data-field="product">${candidate.product.name}</strong> for the scope “${candidate.scope.name}”
      of ${vault?.name ?? 'a vault'} <span class="muted">${showDate(candidate.createdAt)}</span>${candidate.decidedAt
        ? html`; ${candidate.status}${deciderOf(candidate)} <span data-field="decided-at">${showDate(candidate.decidedAt)}</span>`
        : ''}</p>
    <div data-field="body" style="white-space: pre-wrap">${candidate.body}</div>
    ${evidence.length === 0
      ? html`<p class="muted">No evidence given.</p>`
      : html`<p>Evidence:</p><ul data-field="evidence">${evidence.map((e) => html`<li>${vault ? html`<a href="${noteUrl(vault.mappingId, e.path)}"><code>${e.path}</code></a>` : html`<code>${e.path}</code>`}${e.note ? html` — ${e.note}` : ''}</li>`)}</ul>`}
    ${undecided
      ? html`<form method="post" action="${MEMORY_PAGE}/decide">
          ${hiddenInput('csrf', csrf)}${hiddenInput('candidate_id', candidate.id)}
          <button type="submit" name="decision" value="accepted" aria-label="Accept ${candidate.title}">Accept</button>
          <button type="submit" name="decision" value="rejected" aria-label="Reject ${candidate.title}">Reject</button>
        </form>`
      : ''}
  </li>`;
}
