import { KgateError } from '../../kernel/errors.ts';
import { MAX_SCOPE_FILTERS, MAX_SCOPE_NAME_LENGTH, type ContextScope, type ScopeDefinition } from '../../domains/scopes/index.ts';
import { WorkspaceRoleSchema, type WorkspaceRole } from '../../domains/workspaces/index.ts';
import { hiddenInput, html, type SafeHtml } from './layout.ts';

/**
 * The form that defines a context scope, on the scopes page (new) and a scope's edit page: its name, the folders
 * and tags it reads, and its audience. The domain normalizes and checks the definition; the page only reads it.
 */

/** The form's fields as written, to show them again with an error. */
export interface ScopeFields {
  name: string;
  folders: string;
  tags: string;
  minimumRole: string;
  agents: boolean;
}

/** An empty form: people from viewers up, agents too. */
export const NEW_SCOPE: ScopeFields = { name: '', folders: '', tags: '', minimumRole: 'viewer', agents: true };

/** A scope's definition as the form shows it. */
export function fieldsOf(scope: ContextScope): ScopeFields {
  return {
    name: scope.name,
    folders: scope.pathPrefixes.join('\n'),
    tags: scope.tags.join('\n'),
    minimumRole: scope.audience.minimumRole,
    agents: scope.audience.agents,
  };
}

/** The fields of a posted form. */
export function readScopeFields(form: URLSearchParams): ScopeFields {
  return {
    name: form.get('name') ?? '',
    folders: form.get('folders') ?? '',
    tags: form.get('tags') ?? '',
    minimumRole: form.get('minimum_role') ?? '',
    agents: form.get('agents') === 'on',
  };
}

/** The definition the fields give: folders one per line, tags separated by lines, commas or spaces. */
export function definitionOf(fields: ScopeFields): ScopeDefinition {
  const role = WorkspaceRoleSchema.safeParse(fields.minimumRole);
  if (!role.success) throw new KgateError('invalid_request', 'Choose the minimum role from the list.', { field: 'minimum_role' });
  return {
    name: fields.name,
    pathPrefixes: fields.folders.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== ''),
    tags: fields.tags.split(/[\s,]+/).filter((tag) => tag !== ''),
    audience: { minimumRole: role.data, agents: fields.agents },
  };
}

const ROLE_CHOICES: ReadonlyArray<[WorkspaceRole, string]> = [
  ['viewer', 'viewer and up: every member'],
  ['editor', 'editor and up'],
  ['admin', 'admin and up'],
  ['owner', 'owners only'],
];

/** The form's fields and its submit button, posting to `action`; ids carry `key` so two forms can share a page. */
export function scopeForm(action: string, csrf: string, fields: ScopeFields, key: string, submit: string): SafeHtml {
  const id = (name: string) => `${name}-${key}`;
  return html`<form method="post" action="${action}" class="scope">
    ${hiddenInput('csrf', csrf)}
    <label for="${id('name')}">Name</label>
    <input type="text" id="${id('name')}" name="name" value="${fields.name}" maxlength="${MAX_SCOPE_NAME_LENGTH}" required autocomplete="off">
    <label for="${id('folders')}">Folders, one per line</label>
    <p class="muted" id="${id('folders-help')}">Notes under any of these folders, e.g. <code>Projects/Tidewater</code>. Empty: every folder. At most ${MAX_SCOPE_FILTERS}.</p>
    <textarea id="${id('folders')}" name="folders" rows="3" aria-describedby="${id('folders-help')}">${fields.folders}</textarea>
    <label for="${id('tags')}">Tags</label>
    <p class="muted" id="${id('tags-help')}">Notes with any of these tags (a tag includes its nested tags, <code>project</code> includes <code>project/tidewater</code>), separated by spaces, commas or lines. Empty: any note. At most ${MAX_SCOPE_FILTERS}.</p>
    <textarea id="${id('tags')}" name="tags" rows="2" aria-describedby="${id('tags-help')}">${fields.tags}</textarea>
    <label for="${id('role')}">Who may use it: minimum role</label>
    <select id="${id('role')}" name="minimum_role">${ROLE_CHOICES.map(
      ([role, words]) => html`<option value="${role}"${role === fields.minimumRole ? html` selected` : ''}>${words}</option>`,
    )}</select>
    <p><input type="checkbox" id="${id('agents')}" name="agents"${fields.agents ? html` checked` : ''}>
      <label class="inline" for="${id('agents')}">Agents may use this scope (access tokens and connected applications of these members); unchecked: only signed-in people</label></p>
    <button type="submit">${submit}</button>
  </form>`;
}
