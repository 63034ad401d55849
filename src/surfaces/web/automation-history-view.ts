/**
 * How the automation pages show what automation did (docs/workspace.md, "Automation pages"): runs with their state and
 * every step in order, and executions, one per attempt of an outbound action. Pure functions from records to markup.
 */
import type { Execution, Run, RunState, RunStep } from '../../domains/automation/index.ts';
import { html, showDate, type SafeHtml } from './layout.ts';
import { automationProposalUrl, runUrl } from './automation-urls.ts';

/** How each run state reads, and its badge (colour is never the only sign: the text says it). */
const RUN_STATES: Readonly<Record<RunState, { text: string; badge: string }>> = {
  queued: { text: 'queued', badge: 'candidate' },
  running: { text: 'running', badge: 'candidate' },
  waiting: { text: 'waiting', badge: 'candidate' },
  succeeded: { text: 'succeeded', badge: 'confirmed' },
  failed: { text: 'failed', badge: 'overdue' },
};

/** A run's state as a badge. */
export function runStateBadge(state: RunState): SafeHtml {
  const { text, badge } = RUN_STATES[state];
  return html`<strong class="badge ${badge}" data-state="${state}">${text}</strong>`;
}

const STEP_WORDS: Readonly<Record<RunStep['step'], string>> = {
  matched: 'An event matched the trigger',
  scheduled: 'The schedule was due',
  'proposal.created': 'Proposal made, waiting for a person',
  'proposal.approved': 'A person approved the proposal',
  'proposal.rejected': 'A person rejected the proposal',
  'proposal.expired': 'The proposal expired',
  'proposal.executed': 'The proposal was applied',
  'proposal.failed': 'Applying the proposal failed',
  'webhook.queued': 'Webhook deliveries queued',
  'webhook.delivered': 'Webhooks delivered',
  'webhook.gave_up': 'A webhook delivery gave up',
  refused: 'Refused',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

/** A detail's value as text: strings and numbers as they are, lists of them joined, anything else as JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'none';
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number')) return value.join(', ');
  return JSON.stringify(value);
}

/** A step's detail, field by field; a proposal it names leads to its review page. */
function stepDetail(workspaceId: string, detail: Readonly<Record<string, unknown>>): SafeHtml {
  const entries = Object.entries(detail);
  if (entries.length === 0) return html`<span class="muted">–</span>`;
  return html`<ul class="receipt" style="list-style: none; padding: 0; margin: 0; overflow-wrap: anywhere">${entries.map(([key, value]) =>
    key === 'proposalId' && typeof value === 'string'
      ? html`<li>proposal <a href="${automationProposalUrl(workspaceId, value)}"><code>${value}</code></a></li>`
      : html`<li>${key} <code>${valueText(value)}</code></li>`,
  )}</ul>`;
}

/** Every step of a run, in order. */
export function runStepsTable(run: Run): SafeHtml {
  return html`<table class="steps">
    <caption class="muted">In order, first step first</caption>
    <thead><tr><th scope="col">#</th><th scope="col">When</th><th scope="col">Step</th><th scope="col">Detail</th></tr></thead>
    <tbody>${run.steps.map(
      (s) => html`<tr data-step="${s.step}"><td>${s.n}</td><td>${showDate(new Date(s.at))}</td><td>${STEP_WORDS[s.step] ?? s.step} <code class="muted">${s.step}</code></td><td>${stepDetail(run.workspaceId, s.detail)}</td></tr>`,
    )}</tbody>
  </table>`;
}

/** The trigger of a run, by name (a deleted trigger keeps its name in its runs). */
function triggerWords(run: Run): SafeHtml {
  return run.triggerId === null ? html`${run.triggerName} <span class="muted">(deleted)</span>` : html`${run.triggerName}`;
}

/** A proposal a run or an execution made, linked to its review page, or a dash. */
export function proposalLink(workspaceId: string, proposalId: string | null): SafeHtml {
  return proposalId ? html`<a href="${automationProposalUrl(workspaceId, proposalId)}">Review the proposal</a>` : html`<span class="muted">–</span>`;
}

/** A run's facts: state, trigger, event, proposal, times, failure. */
export function runFacts(run: Run): SafeHtml {
  return html`<dl>
    <dt>State</dt><dd id="state">${runStateBadge(run.state)}</dd>
    <dt>Trigger</dt><dd>${triggerWords(run)}</dd>
    <dt>Event</dt><dd>${run.eventId ? html`<code>${run.eventId}</code>` : html`<span class="muted">none: a schedule started it</span>`}</dd>
    <dt>Proposal</dt><dd>${proposalLink(run.workspaceId, run.proposalId)}</dd>
    <dt>Started</dt><dd>${showDate(new Date(run.createdAt))}</dd>
    <dt>Finished</dt><dd>${showDate(run.finishedAt ? new Date(run.finishedAt) : null, 'not yet')}</dd>
    ${run.failure ? html`<dt>Why it failed</dt><dd><code>${run.failure.code}</code>: ${run.failure.detail}</dd>` : ''}
  </dl>`;
}

/** A list of runs, newest first. */
export function runsTable(workspaceId: string, runs: readonly Run[], none: string): SafeHtml {
  if (runs.length === 0) return html`<p class="muted">${none}</p>`;
  return html`<table class="runs">
    <caption class="muted">Newest first</caption>
    <thead><tr><th scope="col">Run</th><th scope="col">Trigger</th><th scope="col">State</th><th scope="col">Last step</th><th scope="col">Event</th><th scope="col">Proposal</th></tr></thead>
    <tbody>${runs.map((r) => {
      const last = r.steps[r.steps.length - 1];
      return html`<tr data-run="${r.id}">
        <th scope="row"><a href="${runUrl(workspaceId, r.id)}">${showDate(new Date(r.createdAt))}</a></th>
        <td>${triggerWords(r)}</td>
        <td>${runStateBadge(r.state)}</td>
        <td>${last ? html`<code>${last.step}</code>` : html`<span class="muted">–</span>`}</td>
        <td>${r.eventId ? html`<code title="${r.eventId}">${r.eventId.slice(0, 8)}…</code>` : html`<span class="muted">schedule</span>`}</td>
        <td>${proposalLink(workspaceId, r.proposalId)}</td>
      </tr>`;
    })}</tbody>
  </table>`;
}

const OUTCOMES: Readonly<Record<Execution['outcome'], { text: string; badge: string }>> = {
  succeeded: { text: 'succeeded', badge: 'confirmed' },
  failed: { text: 'failed, will retry', badge: 'candidate' },
  gave_up: { text: 'gave up', badge: 'overdue' },
};

/** What an execution acted on: the endpoint's address (when it still exists) or the proposal. */
function targetOf(workspaceId: string, e: Execution, endpoints: ReadonlyMap<string, string>): SafeHtml {
  if (e.kind === 'proposal') return html`proposal ${proposalLink(workspaceId, e.proposalId)}`;
  const url = e.endpointId ? endpoints.get(e.endpointId) : undefined;
  return html`${url ? html`<code style="overflow-wrap: anywhere">${url}</code>` : html`<span class="muted">a deleted endpoint</span>`}${
    e.eventType ? html`<br><span class="muted">type</span> <code>${e.eventType}</code>` : ''
  }${e.deliveryId ? html`<br><span class="muted">message</span> <code style="overflow-wrap: anywhere">${e.deliveryId}</code>` : ''}`;
}

/** Every attempt of outbound actions, newest first: webhook deliveries and proposal executions. */
export function executionsTable(workspaceId: string, executions: readonly Execution[], endpoints: ReadonlyMap<string, string>, none: string): SafeHtml {
  if (executions.length === 0) return html`<p class="muted">${none}</p>`;
  return html`<table class="executions">
    <caption class="muted">Newest first, one row per attempt</caption>
    <thead><tr><th scope="col">When</th><th scope="col">Kind</th><th scope="col">Target</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">HTTP</th><th scope="col">Error</th><th scope="col">Next attempt</th><th scope="col">Run</th></tr></thead>
    <tbody>${executions.map((e) => {
      const outcome = OUTCOMES[e.outcome];
      return html`<tr data-execution="${e.id}" data-kind="${e.kind}" data-outcome="${e.outcome}">
        <td>${showDate(new Date(e.startedAt))}<br><span class="muted">${e.durationMs} ms</span></td>
        <td>${e.kind === 'webhook' ? 'webhook delivery' : 'proposal execution'}</td>
        <td>${targetOf(workspaceId, e, endpoints)}</td>
        <td>${e.attempt}</td>
        <td><strong class="badge ${outcome.badge}">${outcome.text}</strong></td>
        <td>${e.httpStatus ?? html`<span class="muted">–</span>`}</td>
        <td>${e.errorCode ? html`<code>${e.errorCode}</code>${e.detail ? html`<br><span class="muted">${e.detail}</span>` : ''}` : html`<span class="muted">–</span>`}</td>
        <td>${e.nextAttemptAt ? showDate(new Date(e.nextAttemptAt)) : html`<span class="muted">–</span>`}</td>
        <td>${e.runId ? html`<a href="${runUrl(workspaceId, e.runId)}" aria-label="The run of attempt ${e.attempt}">Run</a>` : html`<span class="muted">–</span>`}</td>
      </tr>`;
    })}</tbody>
  </table>`;
}
