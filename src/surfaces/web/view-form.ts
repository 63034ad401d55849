import { MAX_KNOWLEDGE_LIMIT, RELATION_KEYS } from '../../domains/knowledge/index.ts';
import { DEFAULT_VIEW_LIMIT, DEFAULT_VIEW_STATUSES, MAX_VIEW_NAME_LENGTH, VIEW_KINDS, VIEW_SORTS, VIEW_STATUSES, type ViewVersion } from '../../domains/views/index.ts';
import { hiddenInput, html, type SafeHtml } from './layout.ts';

/**
 * The form that defines a saved view (docs/views.md), on a scope's views page (new) and a view's page (a new
 * version): its name and the fields of its definition. The page only reads what was posted; the domain checks and
 * normalizes the definition, and a refused form comes back as written with why.
 */

/** The form's fields as written. */
export interface ViewFields {
  name: string;
  kinds: string[];
  statuses: string[];
  text: string;
  owner: string;
  dueAfter: string;
  dueBefore: string;
  entityType: string;
  relationTypes: string[];
  sort: string;
  limit: string;
}

/** An empty form: decisions, commitments and questions that are current or still to do. */
export const NEW_VIEW: ViewFields = {
  name: '',
  kinds: ['commitment', 'decision', 'question'],
  statuses: [...DEFAULT_VIEW_STATUSES],
  text: '',
  owner: '',
  dueAfter: '',
  dueBefore: '',
  entityType: '',
  relationTypes: [],
  sort: 'path',
  limit: String(DEFAULT_VIEW_LIMIT),
};

/** A stored version as the form shows it. */
export function viewFieldsOf(version: ViewVersion): ViewFields {
  const d = version.definition;
  return {
    name: version.name,
    kinds: [...d.kinds],
    statuses: [...d.statuses],
    text: d.text ?? '',
    owner: d.owner ?? '',
    dueAfter: d.dueAfter ?? '',
    dueBefore: d.dueBefore ?? '',
    entityType: d.entityType ?? '',
    relationTypes: [...(d.relationTypes ?? [])],
    sort: d.sort,
    limit: String(d.limit),
  };
}

/** The fields of a posted form. */
export function readViewFields(form: URLSearchParams): ViewFields {
  const text = (name: string) => (form.get(name) ?? '').trim();
  return {
    name: form.get('name') ?? '',
    kinds: form.getAll('kind'),
    statuses: form.getAll('status'),
    text: text('text'),
    owner: text('owner'),
    dueAfter: text('due_after'),
    dueBefore: text('due_before'),
    entityType: text('entity_type'),
    relationTypes: form.getAll('relation_type'),
    sort: text('sort'),
    limit: text('limit'),
  };
}

/** The definition the fields give: empty fields are left out; the domain refuses what is not valid. */
export function definitionOfFields(fields: ViewFields): Record<string, unknown> {
  const optional = (key: string, value: string) => (value === '' ? {} : { [key]: value });
  return {
    kinds: fields.kinds,
    ...(fields.statuses.length > 0 ? { statuses: fields.statuses } : {}),
    ...optional('text', fields.text),
    ...optional('owner', fields.owner),
    ...optional('dueAfter', fields.dueAfter),
    ...optional('dueBefore', fields.dueBefore),
    ...optional('entityType', fields.entityType),
    ...(fields.relationTypes.length > 0 ? { relationTypes: fields.relationTypes } : {}),
    ...optional('sort', fields.sort),
    // A limit that is not a whole number stays text, so that the domain refuses it with its reason.
    ...(fields.limit === '' ? {} : { limit: /^\d{1,6}$/.test(fields.limit) ? Number(fields.limit) : fields.limit }),
  };
}

const KIND_WORDS: Readonly<Record<(typeof VIEW_KINDS)[number], string>> = {
  decision: 'Decisions',
  commitment: 'Commitments',
  question: 'Open questions',
  assertion: 'Entity properties (current)',
  relation: 'Typed relations (contradicts, supersedes, …)',
};

function checkboxes(legend: string, name: string, key: string, choices: ReadonlyArray<readonly [string, string]>, checked: readonly string[]): SafeHtml {
  return html`<fieldset><legend>${legend}</legend>${choices.map(
    ([value, words]) =>
      html`<p><input type="checkbox" id="${name}-${value}-${key}" name="${name}" value="${value}"${checked.includes(value) ? html` checked` : ''}>
        <label class="inline" for="${name}-${value}-${key}">${words}</label></p>`,
  )}</fieldset>`;
}

/** The form, posting to `action`; ids carry `key` so that two forms can share a page. */
export function viewForm(action: string, csrf: string, fields: ViewFields, key: string, submit: string): SafeHtml {
  const id = (name: string) => `${name}-${key}`;
  const input = (name: string, label: string, value: string, type = 'text', help?: string) => html`<label for="${id(name)}">${label}</label>
    ${help ? html`<p class="muted" id="${id(`${name}-help`)}">${help}</p>` : ''}
    <input type="${type}" id="${id(name)}" name="${name}" value="${value}" autocomplete="off"${help ? html` aria-describedby="${id(`${name}-help`)}"` : ''}>`;
  return html`<form method="post" action="${action}" class="view">
    ${hiddenInput('csrf', csrf)}
    <label for="${id('name')}">Name</label>
    <input type="text" id="${id('name')}" name="name" value="${fields.name}" maxlength="${MAX_VIEW_NAME_LENGTH}" required autocomplete="off">
    ${checkboxes('Records', 'kind', key, VIEW_KINDS.map((k) => [k, KIND_WORDS[k]] as const), fields.kinds)}
    ${checkboxes('Statuses (decisions, commitments, questions)', 'status', key, VIEW_STATUSES.map((s) => [s, s] as const), fields.statuses)}
    ${input('text', 'Text contains', fields.text, 'text', 'In the title or text, ignoring case. Empty: any.')}
    ${input('owner', 'Owner of commitments', fields.owner)}
    ${input('due_after', 'Commitments due on or after', fields.dueAfter, 'date')}
    ${input('due_before', 'Commitments due on or before', fields.dueBefore, 'date')}
    ${input('entity_type', 'Entity type of properties', fields.entityType, 'text', 'e.g. project. Empty: any.')}
    ${checkboxes('Relation types', 'relation_type', key, RELATION_KEYS.map((r) => [r, r] as const), fields.relationTypes)}
    <label for="${id('sort')}">Order</label>
    <select id="${id('sort')}" name="sort">${VIEW_SORTS.map((s) => html`<option value="${s}"${s === fields.sort ? html` selected` : ''}>${s === 'due' ? 'due date, soonest first' : `by ${s}`}</option>`)}</select>
    <label for="${id('limit')}">Records per page (1 to ${MAX_KNOWLEDGE_LIMIT})</label>
    <input type="number" id="${id('limit')}" name="limit" value="${fields.limit}" min="1" max="${MAX_KNOWLEDGE_LIMIT}">
    <button type="submit">${submit}</button>
  </form>`;
}
