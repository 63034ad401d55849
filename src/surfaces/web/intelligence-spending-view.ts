import type { IntelligenceMonth, LedgerEntry } from '../../domains/models/index.ts';
import type { RuntimeOrganization } from '../../domains/runtime/admin/index.ts';
import { html, showDate, type SafeHtml } from './layout.ts';

/** Where organization admins see what metered intelligence cost (docs/budgets.md). */
export const INTELLIGENCE_SPENDING_PAGE = '/account/runtime/intelligence';
/** Ledger rows shown per organization. */
export const SPENDING_ROWS = 50;

const count = (n: number) => n.toLocaleString('en-US');
/** Microdollars with the dollars they are, so that nobody has to count zeros. */
const money = (microdollars: number) =>
  `${count(microdollars)} µ$ (${(microdollars / 1_000_000).toLocaleString('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 4 })})`;

// The ledger's states in words; a billable failure says why it was charged.
const STATE_WORDS: Readonly<Record<LedgerEntry['state'], string>> = {
  reserved: 'reserved, not sent yet',
  dispatched: 'running',
  settled: 'settled',
  billable_failure: 'billable failure',
  released: 'released (not accepted, nothing charged)',
};

/** The month: budget, what is held by running requests, charged, left, and the requests by outcome. */
function monthList(month: IntelligenceMonth): SafeHtml {
  const charged = month.settledMicrodollars + month.billableFailureMicrodollars;
  const left = month.budgetMicrodollars === null ? null : Math.max(0, month.budgetMicrodollars - charged - month.reservedMicrodollars);
  return html`<dl class="spending">
    <dt>Budget for ${month.month}</dt><dd data-field="budget">${month.budgetMicrodollars === null || month.budgetMicrodollars === 0
      ? 'none: every metered call is refused (intelligence_budget_unset)'
      : money(month.budgetMicrodollars)}</dd>
    <dt>Charged</dt><dd data-field="charged">${money(charged)}: ${money(month.settledMicrodollars)} for ${count(month.requests.settled)} completed
      requests, ${money(month.billableFailureMicrodollars)} for ${count(month.requests.billableFailures)} billable failures</dd>
    <dt>Reserved by running requests</dt><dd data-field="reserved">${money(month.reservedMicrodollars)} (${count(month.requests.running)} running)</dd>
    <dt>Left</dt><dd data-field="left">${left === null ? 'no budget' : money(left)}</dd>
    <dt>Released</dt><dd data-field="released">${count(month.requests.released)} requests the model did not accept, nothing charged</dd>
  </dl>`;
}

function entryRow(entry: LedgerEntry): SafeHtml {
  const tokens = entry.usageUnknown ? 'not reported' : `${count(entry.usage.inputTokens)} in, ${count(entry.usage.outputTokens)} out${entry.usage.images ? `, ${count(entry.usage.images)} image` : ''}`;
  return html`<tr data-ledger="${entry.id}" data-state="${entry.state}">
    <td>${showDate(entry.createdAt)}</td>
    <td><code>${entry.kind}</code></td>
    <td><code title="${entry.installationId}">${entry.installationId.slice(0, 8)}</code></td>
    <td data-field="state">${STATE_WORDS[entry.state]}${entry.errorCode ? html` (<code>${entry.errorCode}</code>)` : ''}${entry.expired ? ' (its process stopped)' : ''}</td>
    <td class="number">${count(entry.reservedMicrodollars)}</td>
    <td class="number" data-field="charged">${count(entry.chargedMicrodollars)}</td>
    <td>${tokens}</td>
    <td>${entry.model.chatModel}${entry.model.imageModel ? html`, ${entry.model.imageModel}` : ''}</td>
    <td><code class="wrap">${entry.requestId}</code></td>
  </tr>`;
}

/** One organization's month and its latest metered requests. */
export function spendingSection(organization: RuntimeOrganization, month: IntelligenceMonth, entries: readonly LedgerEntry[]): SafeHtml {
  const id = `spending-${organization.id}`;
  return html`<section id="${id}" aria-labelledby="${id}-heading" data-organization="${organization.slug}">
    <h2 id="${id}-heading">${organization.name}</h2>
    ${monthList(month)}
    ${entries.length === 0
      ? html`<p>No metered requests yet.</p>`
      : html`<table>
          <caption class="muted">The latest ${count(entries.length)} metered requests, newest first (microdollars)</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Installation</th><th scope="col">Outcome</th>
            <th scope="col">Reserved</th><th scope="col">Charged</th><th scope="col">Tokens</th><th scope="col">Model</th>
            <th scope="col">Request id</th></tr></thead>
          <tbody>${entries.map(entryRow)}</tbody>
        </table>`}
  </section>`;
}
