import { KgateError } from '../../kernel/errors.ts';
import { MAX_REVIEW_COMMENT, type Decision, type ReviewHistoryEntry } from '../../domains/knowledge/index.ts';
import { hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { decisionUrl } from './knowledge-urls.ts';

/**
 * The forms in which a person confirms, rejects or supersedes a decision, and what they read back. Reviews are
 * given only here, by a signed-in person with the session's CSRF token (spec 4.3 rule 8): no REST route or MCP
 * tool gives one, and the domain refuses any credential but a web session.
 */

/** What a person decided about a decision. */
export type Verdict = 'confirmed' | 'rejected' | 'superseded';

/** Where the review form sends the person back to: the list it was on, or the decision's page. */
export type ReviewReturn = 'list' | 'decision';

/** The fields of a review form, read and checked as far as the page can; the domain checks the rest. */
export interface ReviewForm {
  verdict: Verdict;
  supersededBy?: string;
  comment: string;
  back: ReviewReturn;
}

const VERDICTS: readonly Verdict[] = ['confirmed', 'rejected', 'superseded'];

/** Reads a posted review form; `invalid_request` for a verdict that is not one of the three. */
export function readReviewForm(form: URLSearchParams): ReviewForm {
  const verdict = form.get('verdict') as Verdict | null;
  if (verdict === null || !VERDICTS.includes(verdict)) throw new KgateError('invalid_request', 'Choose Confirm, Reject or Supersede.');
  // The superseding decision counts only with its button: Confirm and Reject ignore the list's choice.
  const supersededBy = verdict === 'superseded' ? (form.get('superseded_by') ?? '') : undefined;
  return { verdict, ...(supersededBy === undefined ? {} : { supersededBy }), comment: form.get('comment') ?? '', back: form.get('back') === 'list' ? 'list' : 'decision' };
}

/** How a status reads: a candidate is never shown as if it were the team's decision. */
export function statusBadge(decision: Pick<Decision, 'status'>): SafeHtml {
  switch (decision.status) {
    case 'candidate':
      return html`<strong class="badge candidate">candidate — not confirmed</strong>`;
    case 'confirmed':
      return html`<strong class="badge confirmed">confirmed</strong>`;
    case 'superseded':
      return html`<strong class="badge superseded">superseded</strong>`;
    case 'rejected':
      return html`<strong class="badge rejected">rejected</strong>`;
  }
}

const VERDICT_WORDS: Readonly<Record<Verdict, string>> = { confirmed: 'Confirmed', rejected: 'Rejected', superseded: 'Superseded' };

/** Where a form of this scope posts its review of `recordId`. */
export function reviewAction(mappingId: string, scopeId: string, recordId: string): string {
  return `${decisionUrl(mappingId, scopeId, recordId)}/review`;
}

/** The list's form for one decision: a comment, Confirm and Reject; superseding is chosen on the decision's page. */
export function quickReviewForm(mappingId: string, scopeId: string, decision: Decision, csrf: string): SafeHtml {
  const field = `comment-${decision.id}`;
  return html`<form method="post" action="${reviewAction(mappingId, scopeId, decision.id)}" class="review">
      ${hiddenInput('csrf', csrf)}${hiddenInput('back', 'list')}
      <label for="${field}">Comment on “${decision.title}” (optional)</label>
      <input type="text" id="${field}" name="comment" maxlength="${MAX_REVIEW_COMMENT}" autocomplete="off">
      <button type="submit" name="verdict" value="confirmed" aria-label="Confirm “${decision.title}”">Confirm</button>
      <button type="submit" name="verdict" value="rejected" aria-label="Reject “${decision.title}”">Reject</button>
      <a href="${decisionUrl(mappingId, scopeId, decision.id)}#review">Supersede by another decision…</a>
    </form>`;
}

/**
 * The decision page's form: a comment, Confirm, Reject, and Supersede by another decision of the scope (`others`,
 * the decisions of the scope a person may choose from; `othersCut` when there were more than offered).
 */
export function reviewForm(mappingId: string, scopeId: string, decision: Decision, others: readonly Decision[], othersCut: boolean, csrf: string): SafeHtml {
  const choices = others.filter((d) => d.id !== decision.id);
  return html`<form method="post" action="${reviewAction(mappingId, scopeId, decision.id)}" class="review">
      ${hiddenInput('csrf', csrf)}${hiddenInput('back', 'decision')}
      <label for="comment">Comment (optional)</label>
      <textarea id="comment" name="comment" rows="3" maxlength="${MAX_REVIEW_COMMENT}"></textarea>
      <p><button type="submit" name="verdict" value="confirmed">Confirm</button>
        <button type="submit" name="verdict" value="rejected">Reject</button></p>
      ${choices.length === 0
        ? html`<p class="muted">No other decision of this scope could supersede it.</p>`
        : html`<label for="superseded-by">Superseded by</label>
            <select id="superseded-by" name="superseded_by">
              <option value="">Choose a decision of this scope</option>
              ${choices.map((d) => html`<option value="${d.id}">${d.title} (${d.status}, ${d.evidence.path})</option>`)}
            </select>
            ${othersCut ? html`<p class="muted">Only the first ${choices.length} decisions of the scope, by note path, are offered.</p>` : ''}
            <p><button type="submit" name="verdict" value="superseded">Mark superseded</button></p>`}
    </form>`;
}

/** The reviews of a decision, newest first: who, when, what, and whether each still holds. */
export function reviewHistoryTable(
  mappingId: string,
  scopeId: string,
  history: readonly ReviewHistoryEntry[],
  names: ReadonlyMap<string, string>,
  titles: ReadonlyMap<string, string>,
): SafeHtml {
  if (history.length === 0) return html`<p>No person has reviewed this decision yet.</p>`;
  return html`<table>
    <caption class="muted">Newest first</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">Verdict</th><th scope="col">Comment</th><th scope="col">Holds</th></tr></thead>
    <tbody>${history.map(
      (entry) => html`<tr>
        <td>${showDate(new Date(entry.reviewedAt))}</td>
        <td>${entry.reviewedBy === null ? html`<span class="muted">a removed account</span>` : (names.get(entry.reviewedBy) ?? html`<span class="muted">a former member</span>`)}</td>
        <td>${VERDICT_WORDS[entry.verdict]}${entry.supersededBy
          ? html` by <a href="${decisionUrl(mappingId, scopeId, entry.supersededBy)}">${titles.get(entry.supersededBy) ?? 'another decision'}</a>`
          : ''}</td>
        <td>${entry.comment === '' ? html`<span class="muted">–</span>` : entry.comment}</td>
        <td>${entry.holds ? 'yes' : 'no: the note changed the decision since'}</td>
      </tr>`,
    )}</tbody></table>`;
}
