import { MAX_REMOTE_NOTE_BYTES, type ProviderConnection, type RemoteFileStatus, type SyncReport, type SyncStatus } from '../../domains/providers/index.ts';
import type { Mapping } from '../../domains/vaults/index.ts';
import { accessWords, PROVIDERS_PAGE } from './connection-pages.ts';
import { PROVIDER_NAMES, html, showDate, type SafeHtml } from './layout.ts';

/** Where the remote vaults page lives. */
export const REMOTE_VAULTS_PAGE = '/account/vaults/remote';

/** The owner's switches of a remote mapping, as the switch form names them. */
export const SWITCHES = ['allow_mcp_note_changes', 'pull_only', 'device_encrypted'] as const;
/** One of SWITCHES. */
export type SwitchName = (typeof SWITCHES)[number];

const SWITCH_WORDS: Readonly<Record<SwitchName, { label: string; help: string }>> = {
  allow_mcp_note_changes: {
    label: 'Allow hosted MCP note changes',
    help: 'When on, AI applications connected over hosted MCP may change notes here (written to the provider); when off they only read.',
  },
  pull_only: {
    label: 'Pull-only',
    help: 'When on, kgate only copies from the provider and never writes to it, whatever the switch above says.',
  },
  device_encrypted: {
    label: 'Device-held encryption',
    help: 'When on, the notes are encrypted on your devices: kgate keeps no copy, and reads, search and knowledge answer device_encrypted.',
  },
};

const STATUS_WORDS: Readonly<Record<SyncStatus, string>> = {
  pending: 'waiting to synchronize',
  running: 'synchronizing',
  idle: 'up to date',
  error: 'failed (retried later)',
  rate_limited: 'paused: the provider asked kgate to wait',
};

const REASONS: Readonly<Record<RemoteFileStatus, string>> = {
  synced: 'copied',
  not_a_note: 'not a Markdown note',
  too_large: `larger than ${MAX_REMOTE_NOTE_BYTES / (1024 * 1024)} MB`,
  encrypted: 'encrypted on the device (no copy is kept)',
  invalid_path: 'a path kgate cannot use as a note path',
  duplicate: 'two files at one path (kgate copies neither)',
};

function switchOn(mapping: Mapping, name: SwitchName): boolean {
  if (name === 'allow_mcp_note_changes') return mapping.allowMcpNoteChanges;
  return name === 'pull_only' ? mapping.pullOnly : mapping.deviceEncrypted;
}

function switchRow(mapping: Mapping, name: SwitchName, csrf: string): SafeHtml {
  const on = switchOn(mapping, name);
  const words = SWITCH_WORDS[name];
  return html`<tr data-switch="${name}">
    <th scope="row">${words.label}</th>
    <td class="muted">${words.help}</td>
    <td><strong data-field="state">${on ? 'On' : 'Off'}</strong></td>
    <td><form method="post" action="${REMOTE_VAULTS_PAGE}/switch">
      <input type="hidden" name="csrf" value="${csrf}">
      <input type="hidden" name="mapping_id" value="${mapping.id}">
      <input type="hidden" name="switch" value="${name}">
      <input type="hidden" name="value" value="${on ? 'off' : 'on'}">
      <button type="submit" aria-label="${on ? 'Turn off' : 'Turn on'} ${words.label.toLowerCase()} for ${mapping.name}">${on ? 'Turn off' : 'Turn on'}</button>
    </form></td>
  </tr>`;
}

function connectionWords(mapping: Mapping, connection: ProviderConnection | undefined): SafeHtml {
  const provider = PROVIDER_NAMES[mapping.provider] ?? mapping.provider;
  if (mapping.connection?.status !== 'active') {
    return html`<strong>Disconnected.</strong> kgate no longer reaches ${provider} for this vault${connection ? html` (${connection.providerAccountName})` : ''}:
      synchronization stops, and reads answer <code>provider_disconnected</code>. See <a href="${PROVIDERS_PAGE}">Provider connections</a>.`;
  }
  return html`Connected${connection ? html` as ${connection.providerAccountName}` : ''} (${accessWords(mapping.connection)})`;
}

function syncState(mapping: Mapping, report: SyncReport | undefined, csrf: string): SafeHtml {
  if (!report) return html`<p>Not synchronized yet.</p>`;
  const connected = mapping.connection?.status === 'active';
  const kept = (Object.entries(report.files) as Array<[RemoteFileStatus, number]>).filter(([state, count]) => state !== 'synced' && count > 0);
  const problems =
    report.problems.length === 0
      ? ''
      : html`<table>
          <caption class="muted">Files without a copy that you can act on${report.problems.length >= 50 ? ' (the first 50)' : ''}</caption>
          <thead><tr><th scope="col">Path</th><th scope="col">Why</th></tr></thead>
          <tbody>${report.problems.map((p) => html`<tr><td><code>${p.path}</code></td><td>${REASONS[p.state]}</td></tr>`)}</tbody>
        </table>`;
  const syncNow = connected
    ? html`<form method="post" action="${REMOTE_VAULTS_PAGE}/sync">
        <input type="hidden" name="csrf" value="${csrf}">
        <input type="hidden" name="mapping_id" value="${mapping.id}">
        <button type="submit" aria-label="Sync now: ${mapping.name}">Sync now</button>
      </form>`
    : '';
  return html`<dl>
      <dt>Status</dt><dd data-field="sync-status">${STATUS_WORDS[report.status]}</dd>
      <dt>Phase</dt><dd>${report.phase === 'listing' ? 'listing every file' : 'following changes'}</dd>
      <dt>Notes copied</dt><dd data-field="notes-synced">${report.notesSynced}</dd>
      <dt>Last success</dt><dd>${showDate(report.lastSuccessAt)}</dd>
      <dt>Next check</dt><dd>${connected ? showDate(report.nextRunAt) : 'none while disconnected'}</dd>
      <dt>Last error</dt><dd data-field="last-error">${report.lastErrorCode
        ? html`<code>${report.lastErrorCode}</code>: ${report.lastError ?? ''}`
        : 'none'}</dd>
      <dt>Files without a copy</dt><dd data-field="kept">${kept.length === 0
        ? 'none'
        : kept.map(([state, count], i) => html`${i > 0 ? ', ' : ''}${count} ${REASONS[state]}`)}</dd>
    </dl>
    ${problems}
    ${syncNow}`;
}

/** One remote mapping of the owner: where it points, its connection, its switches and its synchronization. */
export function remoteMappingSection(mapping: Mapping, connection: ProviderConnection | undefined, report: SyncReport | undefined, csrf: string): SafeHtml {
  const id = `mapping-${mapping.id}`;
  return html`<section id="${id}" aria-labelledby="${id}-heading" class="remote-mapping">
    <h3 id="${id}-heading">${mapping.name}</h3>
    <dl>
      <dt>Where notes live</dt><dd>${PROVIDER_NAMES[mapping.provider] ?? mapping.provider}: <code>${mapping.remoteRoot ?? ''}</code></dd>
      <dt>Mapping id</dt><dd><code>${mapping.id}</code></dd>
      <dt>Connection</dt><dd data-field="connection">${connectionWords(mapping, connection)}</dd>
    </dl>
    <table>
      <caption class="muted">Switches of ${mapping.name}</caption>
      <thead><tr><th scope="col">Switch</th><th scope="col">What it does</th><th scope="col">Now</th><th scope="col"><span class="muted">Change</span></th></tr></thead>
      <tbody>${SWITCHES.map((name) => switchRow(mapping, name, csrf))}</tbody>
    </table>
    <h4>Synchronization</h4>
    ${syncState(mapping, report, csrf)}
  </section>`;
}
