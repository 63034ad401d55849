import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { HttpEnv } from '../http/context.ts';
import { listTrash } from '../operations/note-read-operations.ts';
import { runNoteTransaction } from '../operations/note-write-operations.ts';
import { formBodyLimit } from './session.ts';
import { hiddenInput, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import type { WorkspaceCall } from './workspace-calls.ts';
import { vaultNav, vaultOf, workspaceForm, workspacePage, type VaultView, type WorkspaceDependencies } from './workspace-guard.ts';
import { noteUrl, trashUrl } from './workspace-urls.ts';

/** Trash entries per page. */
const TRASH_PAGE = 100;

interface TrashEntry {
  trashId: string;
  originalPath: string;
  deletedAt: string;
  size: number;
}

interface ActionResult {
  path: string;
  status: string;
  diff?: string;
  problem?: { code: string; detail: string };
}

/** The restore of one trash entry, as the transaction service takes it. */
function restoreAction(form: URLSearchParams) {
  return { type: 'restore-note', trashId: form.get('trash_id') ?? '', path: form.get('path') ?? '' };
}

function entryRow(vault: VaultView, entry: TrashEntry, csrf: string): SafeHtml {
  return html`<tr>
    <th scope="row"><code>${entry.originalPath}</code></th>
    <td>${showDate(new Date(entry.deletedAt))}</td>
    <td>${entry.size.toLocaleString('en')} bytes</td>
    <td><form method="post" action="${trashUrl(vault.mappingId)}/restore">
      ${hiddenInput('csrf', csrf)}${hiddenInput('trash_id', entry.trashId)}${hiddenInput('path', entry.originalPath)}
      <button type="submit" aria-label="Preview restore of ${entry.originalPath}">Preview restore</button>
    </form></td>
  </tr>`;
}

/** Runs the restore as a preview (no key) or applied (with the preview's key). */
function restore(call: WorkspaceCall, vault: VaultView, form: URLSearchParams, key?: string) {
  return call<{ applied: boolean; actions: ActionResult[] }>(
    runNoteTransaction,
    { mappingId: vault.mappingId, dryRun: key === undefined, actions: [restoreAction(form)] },
    key,
  );
}

/**
 * `/workspace/vaults/{mappingId}/trash`: notes moved to the trash, and their restore through the governed
 * transaction service: a preview first (what would be written, or why it cannot be), then the apply of exactly
 * that action with the idempotency key chosen at the preview, so that a repeated submit applies it once.
 */
export function trashPages(deps: WorkspaceDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/trash',
    workspacePage(deps, async (c, { call, signedIn, current }) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const { entries, truncated } = await call<{ entries: TrashEntry[]; truncated: boolean }>(listTrash, { mappingId: vault.mappingId, limit: TRASH_PAGE });
      const table =
        entries.length === 0
          ? html`<p>The trash is empty.</p>`
          : html`<table>
              <caption class="muted">Deleted notes, newest first${truncated ? html` (the first ${TRASH_PAGE})` : ''}</caption>
              <thead><tr><th scope="col">Note</th><th scope="col">Deleted</th><th scope="col">Size</th><th scope="col">Restore</th></tr></thead>
              <tbody>${entries.map((entry) => entryRow(vault, entry, current.csrf))}</tbody>
            </table>`;
      return sendPage(c, { title: `Trash of ${vault.name}`, signedIn, body: html`${vaultNav(vault.mappingId, 'trash')}${table}` });
    }),
  );

  app.post(
    '/workspace/vaults/:mappingId/trash/restore',
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, { call, signedIn, current }, form) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const preview = await restore(call, vault, form);
      const action = preview.actions[0]!;
      const canApply = !action.problem && action.status === 'restore';
      const body = html`${vaultNav(vault.mappingId, 'trash')}
        <p>Restoring puts <code>${action.path}</code> back with the content it had when it was deleted.</p>
        ${action.problem ? html`<p class="error">It cannot be restored now: ${action.problem.detail}</p>` : ''}
        ${action.diff ? html`<h2>What will be written</h2><pre class="diff" tabindex="0">${action.diff}</pre>` : ''}
        ${canApply
          ? html`<form method="post" action="${trashUrl(vault.mappingId)}/restore/apply">
              ${hiddenInput('csrf', current.csrf)}${hiddenInput('trash_id', form.get('trash_id') ?? '')}${hiddenInput('path', form.get('path') ?? '')}
              ${hiddenInput('idempotency_key', randomUUID())}
              <button type="submit">Restore this note</button>
            </form>`
          : ''}
        <p><a href="${trashUrl(vault.mappingId)}">Back to the trash</a></p>`;
      return sendPage(c, { title: 'Restore a note', signedIn, body }, canApply ? 200 : 409);
    }),
  );

  app.post(
    '/workspace/vaults/:mappingId/trash/restore/apply',
    formBodyLimit,
    workspaceForm(deps, '/workspace', async (c, { call }, form) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const result = await restore(call, vault, form, form.get('idempotency_key') ?? '');
      return sendRedirect(c, noteUrl(vault.mappingId, result.actions[0]!.path));
    }),
  );

  return app;
}
