import { Hono } from 'hono';
import type { FilesService } from '../../domains/files/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { listNotes } from '../operations/note-read-operations.ts';
import { searchNotes } from '../operations/search-operations.ts';
import { listMappings } from '../operations/vault-operations.ts';
import { page } from './errors.ts';
import { PROVIDER_NAMES, copyButton, html, sendPage, sendRedirect, showDate, type SafeHtml } from './layout.ts';
import { scopesUrl } from './knowledge-urls.ts';
import { folderFilesSection } from './folder-files.ts';
import { currentSession } from './session.ts';
import type { WorkspaceCall } from './workspace-calls.ts';
import { vaultNav, vaultOf, workspacePage, type VaultView, type WorkspaceDependencies } from './workspace-guard.ts';
import { WORKSPACE_HOME, eventsUrl, noteUrl, trashUrl, vaultUrl } from './workspace-urls.ts';

/** Most notes a folder view reads (ten pages of the inventory); past it the page says so and offers search. */
export const MAX_BROWSED_NOTES = 10_000;
const INVENTORY_PAGE = 1000;

interface NoteRow {
  path: string;
  title: string;
  size: number;
  updatedAt: string;
}

function vaultRow(vault: VaultView): SafeHtml {
  return html`<tr>
    <th scope="row"><a href="${vaultUrl(vault.mappingId)}">${vault.name}</a></th>
    <td><code>${vault.mappingId}</code> ${copyButton(vault.mappingId, `Copy the mapping id of ${vault.name}`)}</td>
    <td>${PROVIDER_NAMES[vault.provider] ?? vault.provider}</td>
    <td>${vault.readOnly ? 'read-only' : vault.writeAccess ? 'agents may change notes' : 'agents read only'}${vault.deviceEncrypted ? ', device-encrypted' : ''}</td>
    <td><a href="${eventsUrl(vault.mappingId)}">Events</a> · <a href="${trashUrl(vault.mappingId)}">Trash</a> · <a href="${scopesUrl(vault.mappingId)}">Knowledge</a></td>
  </tr>`;
}

/** The notes of a vault, up to MAX_BROWSED_NOTES in path order, and whether there were more. */
async function browseNotes(call: WorkspaceCall, mappingId: string) {
  const notes: NoteRow[] = [];
  let cursor: string | null = null;
  do {
    const pageOf: { notes: NoteRow[]; nextCursor: string | null } = await call(listNotes, {
      mappingId,
      limit: INVENTORY_PAGE,
      ...(cursor ? { cursor } : {}),
    });
    notes.push(...pageOf.notes);
    cursor = pageOf.nextCursor;
  } while (cursor !== null && notes.length < MAX_BROWSED_NOTES);
  return { notes, truncated: cursor !== null };
}

/** The subfolders and notes directly in `folder` ('' for the root), from the vault's notes in path order. */
export function folderContents(notes: readonly NoteRow[], folder: string): { folders: Array<{ name: string; notes: number }>; notes: NoteRow[] } {
  const prefix = folder === '' ? '' : `${folder}/`;
  const folders = new Map<string, number>();
  const here: NoteRow[] = [];
  for (const note of notes) {
    if (!note.path.startsWith(prefix)) continue;
    const rest = note.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash < 0) here.push(note);
    else folders.set(rest.slice(0, slash), (folders.get(rest.slice(0, slash)) ?? 0) + 1);
  }
  return { folders: [...folders].map(([name, count]) => ({ name, notes: count })), notes: here };
}

/** Links to the vault root and each folder above `folder`. */
function breadcrumbs(vault: VaultView, folder: string): SafeHtml {
  const parts = folder === '' ? [] : folder.split('/');
  const crumbs = parts.map((name, i) => {
    const path = parts.slice(0, i + 1).join('/');
    return i === parts.length - 1 ? html`<li aria-current="page">${name}</li>` : html`<li><a href="${vaultUrl(vault.mappingId, path)}">${name}</a></li>`;
  });
  return html`<nav aria-label="Folders" class="crumbs"><ol><li><a href="${vaultUrl(vault.mappingId)}">${vault.name}</a></li>${crumbs}</ol></nav>`;
}

function searchForm(vault: VaultView, query: string): SafeHtml {
  return html`<form role="search" method="get" action="${vaultUrl(vault.mappingId)}" class="search" data-live-search>
    <label for="q">Search this vault</label>
    <input type="search" id="q" name="q" value="${query}" maxlength="500" autocomplete="off">
    <button type="submit">Search</button>
  </form>`;
}

interface SearchHit {
  path: string;
  title: string;
  snippet: string;
  highlights: number[][];
}

/** A snippet with its matched words marked. */
function markedSnippet(hit: SearchHit): SafeHtml {
  const parts: Array<SafeHtml | string> = [];
  let at = 0;
  for (const [start, end] of hit.highlights) {
    if (start === undefined || end === undefined || start < at) continue;
    parts.push(hit.snippet.slice(at, start), html`<mark>${hit.snippet.slice(start, end)}</mark>`);
    at = end;
  }
  parts.push(hit.snippet.slice(at));
  return html`${parts}`;
}

/** The search results section; also what search as you type swaps in (`?q=...&fragment=results`). */
function searchResults(vault: VaultView, query: string, hits: readonly SearchHit[], truncated: boolean): SafeHtml {
  if (hits.length === 0) return html`<section id="results" aria-live="polite"><p>No note matches <q>${query}</q>.</p></section>`;
  return html`<section id="results" aria-live="polite">
    <h2>${hits.length}${truncated ? '+' : ''} notes match <q>${query}</q></h2>
    <ol class="hits">${hits.map(
      (hit) => html`<li><a href="${noteUrl(vault.mappingId, hit.path)}">${hit.title}</a> <span class="muted">${hit.path}</span>
        ${hit.snippet ? html`<p>${markedSnippet(hit)}</p>` : ''}</li>`,
    )}</ol>
  </section>`;
}

/** `/`, `/workspace` and a vault's notes: the workspace a signed-in person starts from. */
export function workspacePages(deps: WorkspaceDependencies & { files?: Pick<FilesService, 'listFiles'> | undefined }): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/',
    page(async (c) => sendRedirect(c, (await currentSession(c, deps.baseUrl, deps.sessions)) ? WORKSPACE_HOME : '/signin', 303)),
  );

  app.get(
    WORKSPACE_HOME,
    workspacePage(deps, async (c, { call, signedIn }) => {
      const { vaults } = await call<{ vaults: VaultView[] }>(listMappings, {});
      const body =
        vaults.length === 0
          ? html`<p>You have no vaults yet. Import one with <code>kgate import</code>.</p>`
          : html`<p>Scripts and agents name a vault by its <strong>mapping id</strong>.</p>
              <table>
                <caption class="muted">Your vaults</caption>
                <thead><tr><th scope="col">Vault</th><th scope="col">Mapping id</th><th scope="col">Where notes live</th><th scope="col">Changes</th><th scope="col">Review</th></tr></thead>
                <tbody>${vaults.map(vaultRow)}</tbody>
              </table>`;
      return sendPage(c, { title: 'Workspace', signedIn, body });
    }),
  );

  app.get(
    '/workspace/vaults/:mappingId',
    workspacePage(deps, async (c, { call, signedIn, actor }) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const query = (c.req.query('q') ?? '').trim();
      if (query !== '') {
        const found = await call<{ results: SearchHit[]; truncated: boolean }>(searchNotes, { mappingId: vault.mappingId, query, limit: 50 });
        const results = searchResults(vault, query, found.results, found.truncated);
        // Search as you type asks for the results alone, to swap them in.
        if (c.req.query('fragment') === 'results') return c.html(results.markup, 200, { 'Cache-Control': 'no-store' });
        return sendPage(c, { title: `Search ${vault.name}`, signedIn, body: html`${vaultNav(vault.mappingId, 'notes')}${searchForm(vault, query)}${results}` });
      }
      const folder = (c.req.query('folder') ?? '').replace(/^\/+|\/+$/g, '');
      const { notes, truncated } = await browseNotes(call, vault.mappingId);
      const here = folderContents(notes, folder);
      const listing =
        here.folders.length + here.notes.length === 0
          ? html`<p>${folder === '' ? 'This vault has no notes yet.' : 'No notes in this folder.'}</p>`
          : html`<ul class="listing">
              ${here.folders.map((f) => html`<li class="folder"><a href="${vaultUrl(vault.mappingId, folder === '' ? f.name : `${folder}/${f.name}`)}">${f.name}/</a> <span class="muted">${f.notes} notes</span></li>`)}
              ${here.notes.map((n) => html`<li class="note"><a href="${noteUrl(vault.mappingId, n.path)}">${n.title}</a> <span class="muted">${n.path.slice(folder === '' ? 0 : folder.length + 1)} · ${showDate(new Date(n.updatedAt))}</span></li>`)}
            </ul>`;
      // The folder's canvases and attachments, after its notes (an empty section where a vault stores no files).
      const files = deps.files ? await folderFilesSection(deps.files, actor, vault.mappingId, folder) : '';
      const cut = truncated ? html`<p class="warning">This vault has more than ${MAX_BROWSED_NOTES.toLocaleString('en')} notes; the folders show the first ones by path. Search finds any note.</p>` : '';
      return sendPage(c, {
        title: vault.name,
        signedIn,
        body: html`${vaultNav(vault.mappingId, 'notes')}${searchForm(vault, '')}<section id="results" aria-live="polite"></section>${breadcrumbs(vault, folder)}${cut}${listing}${files}`,
      });
    }),
  );

  return app;
}
