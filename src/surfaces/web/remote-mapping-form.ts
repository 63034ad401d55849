import type { CreateRemoteMappingRequest, ProviderConnection } from '../../domains/providers/index.ts';
import type { Workspace } from '../../domains/workspaces/index.ts';
import { accessWords, PROVIDERS_PAGE } from './connection-pages.ts';
import { PROVIDER_NAMES, html, type SafeHtml } from './layout.ts';
import { REMOTE_VAULTS_PAGE } from './remote-mapping-view.ts';

/** What the owner typed into the create form, kept to show the form again as written when it is refused. */
export interface CreateFormValues {
  workspaceId: string;
  connectionId: string;
  name: string;
  folder: string;
  repository: string;
  branch: string;
  pullOnly: boolean;
  allowMcpNoteChanges: boolean;
  deviceEncrypted: boolean;
}

/** The empty form. */
export const EMPTY_FORM: CreateFormValues = {
  workspaceId: '',
  connectionId: '',
  name: '',
  folder: '',
  repository: '',
  branch: '',
  pullOnly: false,
  allowMcpNoteChanges: false,
  deviceEncrypted: false,
};

/** The form's fields as posted (a checkbox is on when present, as browsers send it). */
export function createFormValues(form: URLSearchParams): CreateFormValues {
  const text = (name: string) => form.get(name) ?? '';
  return {
    workspaceId: text('workspace_id'),
    connectionId: text('connection_id'),
    name: text('name'),
    folder: text('folder'),
    repository: text('repository'),
    branch: text('branch'),
    pullOnly: form.has('pull_only'),
    allowMcpNoteChanges: form.has('allow_mcp_note_changes'),
    deviceEncrypted: form.has('device_encrypted'),
  };
}

/** The domain's request from the form (the domain checks every field). */
export function createRequestOf(values: CreateFormValues): CreateRemoteMappingRequest {
  return {
    workspaceId: values.workspaceId,
    connectionId: values.connectionId,
    name: values.name,
    root: { folder: values.folder, repository: values.repository, branch: values.branch },
    pullOnly: values.pullOnly,
    allowMcpNoteChanges: values.allowMcpNoteChanges,
    deviceEncrypted: values.deviceEncrypted,
  };
}

/** A refused create form: what the person reads, and the stable code (data-code) tests and support use. */
export interface CreateFormError {
  message: string;
  code: string;
}

const selected = (on: boolean) => (on ? html` selected` : '');
const checked = (on: boolean) => (on ? html` checked` : '');

function checkbox(name: string, label: string, on: boolean): SafeHtml {
  return html`<input type="checkbox" id="new-${name}" name="${name}"${checked(on)}>
    <label class="inline" for="new-${name}">${label}</label><br>`;
}

/**
 * The create form: a workspace the account manages, one of its active connections, a name and the root (a folder;
 * for GitHub a repository and branch too), and the owner's switches. Without a usable connection or workspace, it
 * says what is missing instead.
 */
export function createMappingForm(options: {
  workspaces: readonly Workspace[];
  connections: readonly ProviderConnection[];
  csrf: string;
  values: CreateFormValues;
  error?: CreateFormError | undefined;
}): SafeHtml {
  const { workspaces, connections, values } = options;
  const active = connections.filter((connection) => connection.status === 'active');
  const error = options.error ? html`<p class="error" role="alert" data-code="${options.error.code}">${options.error.message} Nothing was created.</p>` : '';
  if (active.length === 0) return html`${error}<p>Connect a provider first, on <a href="${PROVIDERS_PAGE}">Provider connections</a>.</p>`;
  if (workspaces.length === 0) return html`${error}<p>You manage no workspace, so you cannot add a vault to one.</p>`;
  return html`${error}
    <form method="post" action="${REMOTE_VAULTS_PAGE}">
      <input type="hidden" name="csrf" value="${options.csrf}">
      <label for="new-workspace">Workspace</label>
      <select id="new-workspace" name="workspace_id">${workspaces.map(
        (w) => html`<option value="${w.id}"${selected(w.id === values.workspaceId)}>${w.name}</option>`,
      )}</select>
      <label for="new-connection">Connection</label>
      <select id="new-connection" name="connection_id">${active.map(
        (c) => html`<option value="${c.id}"${selected(c.id === values.connectionId)}>${PROVIDER_NAMES[c.provider] ?? c.provider} — ${c.providerAccountName} (${accessWords(c)})</option>`,
      )}</select>
      <label for="new-name">Name</label>
      <input type="text" id="new-name" name="name" required maxlength="200" value="${values.name}">
      <label for="new-folder">Folder</label>
      <input type="text" id="new-folder" name="folder" value="${values.folder}" aria-describedby="new-folder-help">
      <p id="new-folder-help" class="muted">Google Drive and Dropbox: a folder path such as <code>Notes/Work</code>; GitHub: a
        folder inside the repository. Empty: everything. kgate copies the Markdown notes below it.</p>
      <fieldset>
        <legend>GitHub only</legend>
        <label for="new-repository">Repository</label>
        <input type="text" id="new-repository" name="repository" value="${values.repository}" placeholder="owner/name">
        <label for="new-branch">Branch</label>
        <input type="text" id="new-branch" name="branch" value="${values.branch}" aria-describedby="new-branch-help">
        <p id="new-branch-help" class="muted">Empty: the repository's default branch.</p>
      </fieldset>
      <fieldset>
        <legend>Switches (you can change them later)</legend>
        ${checkbox('pull_only', 'Pull-only: kgate never writes to the provider', values.pullOnly)}
        ${checkbox('allow_mcp_note_changes', 'Allow hosted MCP note changes', values.allowMcpNoteChanges)}
        ${checkbox('device_encrypted', 'Device-held encryption: the notes are encrypted on my devices', values.deviceEncrypted)}
      </fieldset>
      <button type="submit">Create remote vault</button>
    </form>`;
}
