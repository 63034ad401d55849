/**
 * How the automation pages show a workspace's automation (docs/workspace.md, "Automation pages"): the tabs, the
 * person's workspaces, triggers in words and webhook endpoints with their secret's hint. Pure functions from records
 * to markup; every value goes through `html`, which escapes it.
 */
import { SECRET_OVERLAP_MS, type Trigger, type TriggerAction, type TriggerWhen, type WebhookEndpoint } from '../../domains/automation/index.ts';
import { roleAllows, type Workspace } from '../../domains/workspaces/index.ts';
import { copyButton, hiddenInput, html, showDate, type SafeHtml } from './layout.ts';
import { confirmationBox } from './runtime-forms.ts';
import { automationUrl, endpointDeleteUrl, endpointRotateUrl, triggerEditUrl, triggerToggleUrl, type AutomationTab, AUTOMATION_HOME } from './automation-urls.ts';
import { conditionsText } from './automation-trigger-form.ts';

/** The workspace whose automation a page shows. */
export interface AutomationWorkspace {
  id: string;
  name: string;
}

const TABS: ReadonlyArray<[AutomationTab, string]> = [
  ['triggers', 'Triggers'],
  ['endpoints', 'Webhook endpoints'],
  ['runs', 'Runs'],
  ['executions', 'Executions'],
];

/** The navigation between a workspace's automation pages, the current one marked for assistive technology. */
export function automationNav(workspace: AutomationWorkspace, current: AutomationTab): SafeHtml {
  return html`<nav aria-label="Automation" class="crumbs"><ol><li><a href="${AUTOMATION_HOME}">Automation</a></li><li>${workspace.name}</li></ol></nav>
    <nav aria-label="Automation of ${workspace.name}" class="tabs"><ul>${TABS.map(
      ([tab, label]) => html`<li><a href="${automationUrl(workspace.id, tab)}"${tab === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
    )}</ul></nav>`;
}

/** The automation home: each workspace of the person, with its pages where the role manages automation, else why not. */
export function workspacesTable(workspaces: readonly Workspace[]): SafeHtml {
  if (workspaces.length === 0) return html`<p>You belong to no workspace yet.</p>`;
  return html`<table>
    <caption class="muted">Your workspaces</caption>
    <thead><tr><th scope="col">Workspace</th><th scope="col">Your role</th><th scope="col">Automation</th></tr></thead>
    <tbody>${workspaces.map((w) => {
      const manages = roleAllows(w.role, 'automation.manage');
      const pages = manages
        ? html`${TABS.map(([tab, label], i) => html`${i > 0 ? ' · ' : ''}<a href="${automationUrl(w.id, tab)}" aria-label="${label} of ${w.name}">${label}</a>`)}`
        : html`<span class="muted">Your role (${w.role}) does not manage automation: the workspace's owners and admins do.</span>`;
      return html`<tr data-workspace="${w.id}"><th scope="row">${w.name}</th><td>${w.role}</td><td>${pages}</td></tr>`;
    })}</tbody>
  </table>`;
}

/** A refusal's message as a sentence (a validation message may end without a full stop), before "Nothing was changed.". */
export function sentence(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`;
}

/** When a trigger fires, in words. */
export function whenWords(when: TriggerWhen): SafeHtml {
  if ('everyMinutes' in when) return html`every ${when.everyMinutes === 1 ? 'minute' : `${when.everyMinutes} minutes`}`;
  const conditions = when.conditions ?? [];
  return html`on <code>${when.eventType}</code>${conditions.length > 0 ? html`, where <code style="white-space: pre-wrap">${conditionsText(conditions).replace(/\n/g, ', ')}</code>` : ''}`;
}

/** What a trigger does, in words, naming endpoints by their address and vaults by their name where known. */
export function actionWords(action: TriggerAction, endpoints: ReadonlyMap<string, string>, vaults: ReadonlyMap<string, string>): SafeHtml {
  if (action.kind === 'webhook') {
    const ids = action.endpointIds ?? [];
    if (ids.length === 0) return html`delivers the event to every endpoint that takes its type`;
    return html`delivers the event to ${ids.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${endpoints.get(id) ?? 'a deleted endpoint'}</code>`)}`;
  }
  return html`proposes <code>${action.path}</code> in ${vaults.get(action.mappingId) ?? 'a vault you may not see'} (“${action.title}”), for a person to approve`;
}

/** The triggers of a workspace, each with Enable or Disable and Edit. */
export function triggersTable(workspaceId: string, triggers: readonly Trigger[], endpoints: ReadonlyMap<string, string>, vaults: ReadonlyMap<string, string>, csrf: string): SafeHtml {
  if (triggers.length === 0) return html`<p>This workspace has no trigger yet. Make one below.</p>`;
  return html`<table class="triggers">
    <caption class="muted">Newest first</caption>
    <thead><tr><th scope="col">Trigger</th><th scope="col">When</th><th scope="col">Does</th><th scope="col">State</th><th scope="col">Change</th></tr></thead>
    <tbody>${triggers.map(
      (t) => html`<tr id="trigger-${t.id}" data-trigger="${t.id}">
        <th scope="row">${t.name}</th>
        <td>${whenWords(t.when)}${t.nextDueAt ? html`<br><span class="muted">next due ${showDate(new Date(t.nextDueAt))}</span>` : ''}</td>
        <td>${actionWords(t.action, endpoints, vaults)}</td>
        <td><strong class="badge ${t.enabled ? 'confirmed' : 'rejected'}" data-enabled="${String(t.enabled)}">${t.enabled ? 'enabled' : 'disabled'}</strong></td>
        <td><form method="post" action="${triggerToggleUrl(workspaceId, t.id)}">${hiddenInput('csrf', csrf)}${hiddenInput('expected_version', String(t.version))}${hiddenInput('enabled', t.enabled ? 'off' : 'on')}
            <button type="submit" aria-label="${t.enabled ? 'Disable' : 'Enable'} ${t.name}">${t.enabled ? 'Disable' : 'Enable'}</button></form>
          <a href="${triggerEditUrl(workspaceId, t.id)}" aria-label="Edit ${t.name}">Edit</a></td>
      </tr>`,
    )}</tbody>
  </table>`;
}

/** The form that deletes a trigger, with its confirmation box. */
export function triggerDeleteForm(action: string, csrf: string, trigger: Trigger): SafeHtml {
  return html`<form method="post" action="${action}">${hiddenInput('csrf', csrf)}
    ${confirmationBox('delete-confirm', `I want to delete “${trigger.name}”: it stops firing at once (its runs stay)`)}
    <button type="submit">Delete this trigger</button></form>`;
}

/** The event types an endpoint takes, in words. */
function typesWords(types: readonly string[]): SafeHtml {
  return types.length === 0 ? html`every type` : html`${types.map((t, i) => html`${i > 0 ? ', ' : ''}<code>${t}</code>`)}`;
}

/** The webhook endpoints of a workspace, each with Rotate secret and Delete (confirmed). */
export function endpointsTable(workspaceId: string, endpoints: readonly WebhookEndpoint[], csrf: string): SafeHtml {
  if (endpoints.length === 0) return html`<p>This workspace has no webhook endpoint yet. Add one below.</p>`;
  return html`<table class="endpoints">
    <caption class="muted">Newest first</caption>
    <thead><tr><th scope="col">Endpoint</th><th scope="col">Types</th><th scope="col">Secret</th><th scope="col">Change</th></tr></thead>
    <tbody>${endpoints.map(
      (e, i) => html`<tr id="endpoint-${e.id}" data-endpoint="${e.id}">
        <th scope="row" style="overflow-wrap: anywhere"><code>${e.url}</code>${e.description ? html`<br><span class="muted">${e.description}</span>` : ''}</th>
        <td>${typesWords(e.eventTypes)}</td>
        <td><code class="hint" data-field="secret-hint">${e.secretHint}…</code><br>
          <span class="muted">${e.secretRotatedAt ? html`rotated ${showDate(new Date(e.secretRotatedAt))}` : html`never rotated`}${
            e.previousSecretExpiresAt ? html`; the previous one signs too until ${showDate(new Date(e.previousSecretExpiresAt))}` : ''
          }</span></td>
        <td><form method="post" action="${endpointRotateUrl(workspaceId, e.id)}">${hiddenInput('csrf', csrf)}
            <button type="submit" aria-label="Rotate secret of ${e.url}">Rotate secret</button></form><br><br>
          <form method="post" action="${endpointDeleteUrl(workspaceId, e.id)}">${hiddenInput('csrf', csrf)}
            ${confirmationBox(`delete-endpoint-${i}`, 'Yes, delete it')}
            <button type="submit" aria-label="Delete ${e.url}">Delete</button></form></td>
      </tr>`,
    )}</tbody>
  </table>`;
}

/** A secret just made: shown this once, at creation or at a rotation. */
export interface FreshEndpointSecret {
  endpoint: WebhookEndpoint;
  secret: string;
  rotated: boolean;
}

/** The one place a webhook secret is ever shown: the answer to the form that made it. */
export function freshSecretSection(fresh: FreshEndpointSecret): SafeHtml {
  const overlapHours = SECRET_OVERLAP_MS / 3_600_000;
  return html`<section class="notice" aria-labelledby="new-secret-heading" id="new-secret-section">
    <h2 id="new-secret-heading">${fresh.rotated ? 'New signing secret' : 'Endpoint added'}: <code>${fresh.endpoint.url}</code></h2>
    <p><strong>Copy this secret now: it is shown this once and never again.</strong> kgate keeps it only sealed, to sign
      deliveries; no page or route shows it later. If it is lost, rotate it.</p>
    <code class="secret" id="new-secret">${fresh.secret}</code> ${copyButton(fresh.secret, 'Copy the signing secret')}
    <p class="muted">The receiver verifies the <code>webhook-signature</code> header with it (Standard Webhooks, e.g.
      <code>new Webhook(secret).verify(payload, headers)</code>).</p>
    ${fresh.rotated
      ? html`<p>The previous secret keeps signing beside this one for ${overlapHours} hours${
          fresh.endpoint.previousSecretExpiresAt ? html`, until ${showDate(new Date(fresh.endpoint.previousSecretExpiresAt))}` : ''
        }: give the receiver the new one before then.</p>`
      : ''}
  </section>`;
}
