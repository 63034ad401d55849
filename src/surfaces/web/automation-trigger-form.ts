import { KgateError } from '../../kernel/errors.ts';
import { MAX_TRIGGER_CONDITIONS, type Trigger, type TriggerAction, type TriggerCondition, type TriggerWhen, type WebhookEndpoint } from '../../domains/automation/index.ts';
import { hiddenInput, html, type SafeHtml } from './layout.ts';

/**
 * The form that defines a trigger, on the triggers page (new) and a trigger's edit page: its name, when it fires (an
 * event type with conditions, or every so many minutes) and what it does (deliver the event to webhook endpoints, or
 * propose a note). The page only reads the form into the contract's shape; the operation validates it.
 */

/** The form's fields as written, to show them again with an error. */
export interface TriggerFields {
  name: string;
  enabled: boolean;
  whenKind: 'event' | 'schedule';
  eventType: string;
  /** `field=value`, one per line. */
  conditions: string;
  everyMinutes: string;
  actionKind: 'webhook' | 'propose';
  endpointIds: string[];
  mappingId: string;
  title: string;
  path: string;
  content: string;
}

/** An empty form: on, on events, delivering to the endpoints that take the type. */
export const NEW_TRIGGER: TriggerFields = {
  name: '',
  enabled: true,
  whenKind: 'event',
  eventType: '',
  conditions: '',
  everyMinutes: '60',
  actionKind: 'webhook',
  endpointIds: [],
  mappingId: '',
  title: '',
  path: '',
  content: '',
};

/** What a JSON literal in a condition's value looks like: a number, true, false, null or a quoted string. */
const LITERAL = /^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null|".*")$/;

/** A condition's value as written back into the form: plain text unless it would read as something else. */
function valueText(value: TriggerCondition['equals']): string {
  if (typeof value !== 'string') return JSON.stringify(value);
  return LITERAL.test(value) || value.trim() !== value || value === '' ? JSON.stringify(value) : value;
}

/** A trigger's conditions as the form's lines. */
export function conditionsText(conditions: readonly TriggerCondition[]): string {
  return conditions.map((c) => `${c.field}=${valueText(c.equals)}`).join('\n');
}

/**
 * The conditions of the form's lines: `field=value`, the value a number, `true`, `false`, `null` or a "quoted string"
 * as JSON reads it, and any other text as that text (trimmed). Blank lines are skipped.
 */
export function parseConditions(text: string): TriggerCondition[] {
  const conditions: TriggerCondition[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const at = line.indexOf('=');
    if (at <= 0) throw new KgateError('invalid_request', `Line ${index + 1} of the conditions is not field=value.`, { field: 'conditions' });
    const field = line.slice(0, at).trim();
    const written = line.slice(at + 1).trim();
    let equals: TriggerCondition['equals'] = written;
    if (LITERAL.test(written)) {
      try {
        equals = JSON.parse(written) as TriggerCondition['equals'];
      } catch {
        throw new KgateError('invalid_request', `Line ${index + 1} of the conditions has a quoted value that does not read as JSON.`, { field: 'conditions' });
      }
    }
    conditions.push({ field, equals });
  }
  if (conditions.length > MAX_TRIGGER_CONDITIONS) {
    throw new KgateError('invalid_request', `A trigger has at most ${MAX_TRIGGER_CONDITIONS} conditions.`, { field: 'conditions' });
  }
  return conditions;
}

/** A trigger as the form shows it. */
export function fieldsOfTrigger(trigger: Trigger): TriggerFields {
  const when = trigger.when;
  const action = trigger.action;
  return {
    name: trigger.name,
    enabled: trigger.enabled,
    whenKind: 'everyMinutes' in when ? 'schedule' : 'event',
    eventType: 'eventType' in when ? when.eventType : '',
    conditions: 'eventType' in when ? conditionsText(when.conditions ?? []) : '',
    everyMinutes: 'everyMinutes' in when ? String(when.everyMinutes) : NEW_TRIGGER.everyMinutes,
    actionKind: action.kind,
    endpointIds: action.kind === 'webhook' ? [...(action.endpointIds ?? [])] : [],
    mappingId: action.kind === 'propose' ? action.mappingId : '',
    title: action.kind === 'propose' ? action.title : '',
    path: action.kind === 'propose' ? action.path : '',
    content: action.kind === 'propose' ? action.content : '',
  };
}

/** The fields of a posted form. */
export function readTriggerFields(form: URLSearchParams): TriggerFields {
  return {
    name: form.get('name') ?? '',
    enabled: form.get('enabled') === 'on',
    whenKind: form.get('when') === 'schedule' ? 'schedule' : 'event',
    eventType: (form.get('event_type') ?? '').trim(),
    conditions: form.get('conditions') ?? '',
    everyMinutes: (form.get('every_minutes') ?? '').trim(),
    actionKind: form.get('action') === 'propose' ? 'propose' : 'webhook',
    endpointIds: form.getAll('endpoint_id'),
    mappingId: form.get('mapping_id') ?? '',
    title: form.get('title') ?? '',
    path: form.get('path') ?? '',
    content: form.get('content') ?? '',
  };
}

/** When the fields say the trigger fires. */
function whenOf(fields: TriggerFields): TriggerWhen {
  if (fields.whenKind === 'schedule') {
    if (!/^\d{1,6}$/.test(fields.everyMinutes)) throw new KgateError('invalid_request', 'Write the schedule as a whole number of minutes.', { field: 'every_minutes' });
    return { everyMinutes: Number(fields.everyMinutes) };
  }
  const conditions = parseConditions(fields.conditions);
  return conditions.length === 0 ? { eventType: fields.eventType } : { eventType: fields.eventType, conditions };
}

/** What the fields say the trigger does. */
function actionOf(fields: TriggerFields): TriggerAction {
  if (fields.actionKind === 'webhook') return fields.endpointIds.length === 0 ? { kind: 'webhook' } : { kind: 'webhook', endpointIds: fields.endpointIds };
  if (fields.mappingId === '') throw new KgateError('invalid_request', 'Choose the vault the proposals are for.', { field: 'mapping_id' });
  return { kind: 'propose', mappingId: fields.mappingId, title: fields.title, path: fields.path, content: fields.content };
}

/** The trigger the fields define, in the contract's shape (the operation validates it). */
export function triggerInputOf(fields: TriggerFields): { name: string; enabled: boolean; when: TriggerWhen; action: TriggerAction } {
  return { name: fields.name, enabled: fields.enabled, when: whenOf(fields), action: actionOf(fields) };
}

/** A hosted vault of the workspace that a propose action may write into. */
export interface VaultChoice {
  mappingId: string;
  name: string;
}

/** What the form offers to choose from: the workspace's endpoints and hosted vaults. */
export interface TriggerChoices {
  endpoints: readonly WebhookEndpoint[];
  vaults: readonly VaultChoice[];
}

const checked = (on: boolean) => (on ? html` checked` : '');

/** The form's fields and its submit button, posting to `action`; ids carry `key` so two forms can share a page. */
export function triggerForm(action: string, csrf: string, fields: TriggerFields, choices: TriggerChoices, key: string, submit: string, extra?: SafeHtml): SafeHtml {
  const id = (name: string) => `${name}-${key}`;
  const endpointBoxes =
    choices.endpoints.length === 0
      ? html`<p class="muted">This workspace has no webhook endpoint yet: add one on the Webhook endpoints page first.</p>`
      : choices.endpoints.map(
          (e, i) => html`<input type="checkbox" id="${id(`endpoint-${i}`)}" name="endpoint_id" value="${e.id}"${checked(fields.endpointIds.includes(e.id))}>
            <label class="inline" for="${id(`endpoint-${i}`)}">${e.url}${e.description ? html` <span class="muted">(${e.description})</span>` : ''}</label><br>`,
        );
  return html`<form method="post" action="${action}" class="trigger">
    ${hiddenInput('csrf', csrf)}${extra ?? ''}
    <label for="${id('name')}">Name</label>
    <input type="text" id="${id('name')}" name="name" value="${fields.name}" maxlength="200" required autocomplete="off">
    <p><input type="checkbox" id="${id('enabled')}" name="enabled"${checked(fields.enabled)}>
      <label class="inline" for="${id('enabled')}">Enabled: it fires from now on (unchecked: it is kept, and does nothing)</label></p>
    <fieldset>
      <legend>When it fires</legend>
      <p><input type="radio" id="${id('when-event')}" name="when" value="event"${checked(fields.whenKind === 'event')}>
        <label class="inline" for="${id('when-event')}">On an event</label></p>
      <div style="margin-left: 1.5rem">
        <label for="${id('event-type')}">Event type</label>
        <p class="muted" id="${id('event-type-help')}">A type such as <code>form.submitted</code>, a prefix such as <code>form.*</code>, or <code>*</code> for every type.</p>
        <input type="text" id="${id('event-type')}" name="event_type" value="${fields.eventType}" maxlength="100" aria-describedby="${id('event-type-help')}" autocomplete="off">
        <label for="${id('conditions')}">Conditions, one <code>field=value</code> per line</label>
        <p class="muted" id="${id('conditions-help')}">Each must hold, e.g. <code>data.form=contact</code> or <code>source=n8n</code>. A number, <code>true</code>,
          <code>false</code>, <code>null</code> or a "quoted" value is read as JSON; anything else as text. At most ${MAX_TRIGGER_CONDITIONS}. Empty: every event of the type.</p>
        <textarea id="${id('conditions')}" name="conditions" rows="3" aria-describedby="${id('conditions-help')}">${fields.conditions}</textarea>
      </div>
      <p><input type="radio" id="${id('when-schedule')}" name="when" value="schedule"${checked(fields.whenKind === 'schedule')}>
        <label class="inline" for="${id('when-schedule')}">On a schedule</label></p>
      <div style="margin-left: 1.5rem">
        <label for="${id('every-minutes')}">Every how many minutes (1 to 10080, a week)</label>
        <input type="number" id="${id('every-minutes')}" name="every_minutes" value="${fields.everyMinutes}" min="1" max="10080" style="font: inherit; padding: .4rem; width: 8rem">
      </div>
    </fieldset>
    <fieldset>
      <legend>What it does</legend>
      <p><input type="radio" id="${id('action-webhook')}" name="action" value="webhook"${checked(fields.actionKind === 'webhook')}>
        <label class="inline" for="${id('action-webhook')}">Deliver the event to webhook endpoints</label></p>
      <div style="margin-left: 1.5rem">
        <p class="muted">Only the endpoints checked; none checked: every endpoint of the workspace that takes the event's type.</p>
        ${endpointBoxes}
      </div>
      <p><input type="radio" id="${id('action-propose')}" name="action" value="propose"${checked(fields.actionKind === 'propose')}>
        <label class="inline" for="${id('action-propose')}">Propose a note, for a person to approve</label></p>
      <div style="margin-left: 1.5rem">
        <p class="muted" id="${id('templates-help')}">Title, path and content are templates: <code>{{event.type}}</code>, <code>{{event.subject}}</code>,
          <code>{{event.data.name}}</code> and the like are replaced by the event's values. Nothing is written until a person approves the proposal.</p>
        <label for="${id('mapping')}">Vault</label>
        <select id="${id('mapping')}" name="mapping_id">
          <option value=""${fields.mappingId === '' ? html` selected` : ''}>Choose a hosted vault</option>
          ${choices.vaults.map((v) => html`<option value="${v.mappingId}"${v.mappingId === fields.mappingId ? html` selected` : ''}>${v.name}</option>`)}
        </select>
        <label for="${id('title')}">Proposal title</label>
        <input type="text" id="${id('title')}" name="title" value="${fields.title}" maxlength="200" aria-describedby="${id('templates-help')}" autocomplete="off">
        <label for="${id('path')}">Note path</label>
        <input type="text" id="${id('path')}" name="path" value="${fields.path}" maxlength="500" aria-describedby="${id('templates-help')}" autocomplete="off">
        <label for="${id('content')}">Note content</label>
        <textarea id="${id('content')}" name="content" rows="5" aria-describedby="${id('templates-help')}">${fields.content}</textarea>
      </div>
    </fieldset>
    <button type="submit">${submit}</button>
  </form>`;
}
