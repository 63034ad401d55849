import { Hono } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { GraphRelations } from '../../domains/graph/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { queryGraphRelations } from '../operations/graph-operations.ts';
import { translateCanvas } from '../operations/knowledge-operations.ts';
import { readNote } from '../operations/note-read-operations.ts';
import { html, sendPage, showDate, SafeHtml } from './layout.ts';
import { allowOwnMedia } from './file-pages.ts';
import { filePageUrl, fileRawUrl } from './file-urls.ts';
import { renderNote, type EmbeddedFileLink, type EmbeddedFiles } from './note-render.ts';
import type { WorkspaceCall } from './workspace-calls.ts';
import { vaultNav, workspacePage, type WorkspaceDependencies } from './workspace-guard.ts';
import { notePrefix, noteUrl, searchUrl, vaultUrl } from './workspace-urls.ts';

/** The relations a note page reads: the most the graph answers per list. */
const RELATIONS_LIMIT = 1000;

interface NoteView {
  path: string;
  title: string;
  content: string;
  revision: string;
  size: number;
  updatedAt: string;
}

/** The vault path of a note page's request path, decoded segment by segment; `invalid_path` when it is not one. */
export function notePathOf(requestPath: string, mappingId: string): string {
  const rest = requestPath.slice(notePrefix(mappingId).length);
  try {
    return rest.split('/').map(decodeURIComponent).join('/');
  } catch {
    throw new KgateError('invalid_path', 'The address does not name a note.');
  }
}

/** A frontmatter value as text: scalars as they read, lists and maps as compact YAML-like JSON. */
function frontmatterValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map(frontmatterValue).join(', ');
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}

function frontmatterTable(data: Record<string, unknown> | null, error: string | undefined): SafeHtml | string {
  if (error) return html`<p class="warning">Frontmatter: ${error}</p>`;
  if (!data || Object.keys(data).length === 0) return '';
  // The frontmatter block starts at line 1: the anchor of evidence for records compiled from it (a decision note's).
  return html`<details class="frontmatter" id="L1" open><summary>Properties</summary><dl>${Object.entries(data).map(
    ([key, value]) => html`<dt>${key}</dt><dd>${frontmatterValue(value)}</dd>`,
  )}</dl></details>`;
}

/** Where each WikiLink target of the note leads, from its relations: the note it resolves to, or nowhere. */
function linkTargets(mappingId: string, relations: GraphRelations): (target: string) => string | null | undefined {
  const targets = new Map<string, string | null>();
  for (const link of relations.outgoing) targets.set(link.target, noteUrl(mappingId, link.path));
  for (const embed of relations.embeds) {
    // An embed of a stored file is drawn by linkedFiles, as is every link with the same target.
    if (embed.file === null && !targets.has(embed.target)) targets.set(embed.target, embed.resolved === null ? null : noteUrl(mappingId, embed.resolved));
  }
  for (const link of relations.unresolved) if (!targets.has(link.target)) targets.set(link.target, null);
  // `[[#Heading]]` names the note itself.
  targets.set('', noteUrl(mappingId, relations.path));
  return (target) => targets.get(target);
}

/** The stored canvas or attachment each embed and link of the note names, from its relations, with its addresses. */
function linkedFiles(mappingId: string, relations: GraphRelations): EmbeddedFiles {
  const files = new Map<string, EmbeddedFileLink>();
  for (const link of [...relations.embeds, ...relations.fileLinks]) {
    if (link.file === null || files.has(link.target)) continue;
    const { path, kind, mediaType } = link.file;
    files.set(link.target, { path, kind, mediaType, page: filePageUrl(mappingId, path), raw: fileRawUrl(mappingId, path) });
  }
  return (target) => files.get(target);
}

/** The note's links to other notes, the notes that link to it (backlinks), and the files it links to or embeds. */
function relationsSection(mappingId: string, relations: GraphRelations): SafeHtml {
  const unique = (paths: string[]) => [...new Set(paths)];
  const outgoing = unique(relations.outgoing.map((l) => l.path).filter((p) => p !== relations.path));
  const backlinks = unique(relations.incoming.map((l) => l.sourcePath));
  const files = unique([...relations.fileLinks, ...relations.embeds].flatMap((l) => (l.file ? [l.file.path] : []))).sort();
  const list = (paths: string[], empty: string) =>
    paths.length === 0 ? html`<p class="muted">${empty}</p>` : html`<ul>${paths.map((p) => html`<li><a href="${noteUrl(mappingId, p)}">${p}</a></li>`)}</ul>`;
  return html`<section aria-labelledby="links-h"><h2 id="links-h">Links</h2>${list(outgoing, 'This note links to no other note.')}</section>
    <section aria-labelledby="backlinks-h"><h2 id="backlinks-h">Backlinks</h2>${list(backlinks, 'No note links here.')}</section>
    ${files.length > 0
      ? html`<section aria-labelledby="files-h"><h2 id="files-h">Canvases and attachments</h2>
          <ul>${files.map((p) => html`<li><a href="${filePageUrl(mappingId, p)}">${p}</a></li>`)}</ul></section>`
      : ''}
    ${relations.unresolved.length > 0
      ? html`<section aria-labelledby="unresolved-h"><h2 id="unresolved-h">Links to notes that do not exist</h2>
          <ul>${unique(relations.unresolved.map((l) => l.target)).map((t) => html`<li><a href="${searchUrl(mappingId, t)}">${t}</a></li>`)}</ul></section>`
      : ''}
    ${relations.truncated ? html`<p class="warning">There are more links than shown here.</p>` : ''}`;
}

/** The outline of each canvas kept in the note, or why it cannot be read. */
async function canvasSection(call: WorkspaceCall, canvases: readonly string[]): Promise<SafeHtml | string> {
  if (canvases.length === 0) return '';
  const outlines = await Promise.all(
    canvases.map(async (canvas, i) => {
      try {
        const { outline } = await call<{ outline: string }>(translateCanvas, { canvas });
        return html`<h3>Canvas ${i + 1}</h3><pre class="outline" tabindex="0">${outline}</pre>`;
      } catch (error) {
        if (!isKgateError(error)) throw error;
        return html`<h3>Canvas ${i + 1}</h3><p class="warning">${error.message}</p>`;
      }
    }),
  );
  return html`<section aria-labelledby="canvas-h"><h2 id="canvas-h">Canvas outline</h2>${outlines}</section>`;
}

/** One note, rendered: `/workspace/vaults/{mappingId}/notes/{path}`. */
export function notePages(deps: WorkspaceDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/notes/*',
    workspacePage(deps, async (c, { call, signedIn }) => {
      // The read decides whether the person may see this vault (not_found otherwise, as for a vault that does not exist).
      const mappingId = c.req.param('mappingId') ?? '';
      const path = notePathOf(c.req.path, mappingId);
      const note = await call<NoteView>(readNote, { mappingId, path });
      const relations = await call<GraphRelations>(queryGraphRelations, { mappingId, path: note.path, limit: RELATIONS_LIMIT });
      const rendered = renderNote(note.content, linkTargets(mappingId, relations), (q) => searchUrl(mappingId, q), linkedFiles(mappingId, relations));
      const folder = note.path.includes('/') ? note.path.slice(0, note.path.lastIndexOf('/')) : '';
      // Audio players of embedded files play from our own route (file-pages.ts).
      return allowOwnMedia(sendPage(c, {
        title: note.title,
        signedIn,
        body: html`${vaultNav(mappingId, 'notes')}
          <p class="muted"><a href="${vaultUrl(mappingId, folder)}">${folder === '' ? 'Vault root' : folder}/</a> · <code>${note.path}</code>
            · ${showDate(new Date(note.updatedAt))} · revision <code>${note.revision.slice(0, 15)}…</code></p>
          ${frontmatterTable(rendered.frontmatter, rendered.frontmatterError)}
          <article class="note">${new SafeHtml(rendered.html)}</article>
          ${await canvasSection(call, rendered.canvases)}
          ${relationsSection(mappingId, relations)}`,
      }));
    }),
  );

  return app;
}
