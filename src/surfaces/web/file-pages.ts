import { Hono } from 'hono';
import type { FilesService, VaultFile, VaultFileKind, VaultFileSummary } from '../../domains/files/index.ts';
import type { GraphService } from '../../domains/graph/index.ts';
import { canvasToOutline } from '../../domains/markdown/index.ts';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import type { HttpEnv } from '../http/context.ts';
import { fileResponseHeaders, presentationOf } from './file-serving.ts';
import { filePageUrl, filePrefix, fileRawUrl, filesUrl } from './file-urls.ts';
import { PAGE_HEADERS, html, sendPage, showDate, type SafeHtml } from './layout.ts';
import { vaultNav, vaultOf, workspacePage, type WorkspaceDependencies } from './workspace-guard.ts';
import { noteUrl, vaultUrl } from './workspace-urls.ts';

/** What the file pages need: the workspace's, and the files service (read through the person's own authority). */
export interface FilePagesDependencies extends WorkspaceDependencies {
  files: FilesService;
  /** The notes that link to a file or embed it, shown on its page. */
  graph: Pick<GraphService, 'fileIncoming'>;
}

/** Notes that link to a file, listed on its page at most. */
const BACKLINKS_LIMIT = 200;

/** Files per page of the list. */
const FILES_PAGE = 200;

/**
 * The pages' policy plus `media-src 'self'`, so that an audio player may play our own served bytes: the pages'
 * policy (layout.ts) names no media source, so nothing else may be played.
 */
export const MEDIA_PAGE_POLICY = `${PAGE_HEADERS['Content-Security-Policy']}; media-src 'self'`;

/** A page's response with MEDIA_PAGE_POLICY instead of the pages' policy (pages that hold audio players). */
export function allowOwnMedia(response: Response): Response {
  response.headers.set('Content-Security-Policy', MEDIA_PAGE_POLICY);
  return response;
}

/** The vault path of a file page's or raw route's request path, decoded segment by segment; `invalid_path` otherwise. */
export function filePathOf(requestPath: string, mappingId: string, route: 'file' | 'raw'): string {
  const rest = requestPath.slice(filePrefix(mappingId, route).length);
  try {
    const path = rest.split('/').map(decodeURIComponent).join('/');
    if (path === '') throw new Error('empty');
    return path;
  } catch {
    throw new KgateError('invalid_path', 'The address does not name a file.');
  }
}

const KIND_WORDS: Readonly<Record<VaultFileKind, string>> = { canvas: 'Canvas', attachment: 'Attachment' };

/** A size as people read it. */
export function showSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

function kindFilter(value: string | undefined): VaultFileKind | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'canvas' || value === 'attachment') return value;
  throw new KgateError('invalid_request', 'kind is canvas or attachment.', { field: 'kind' });
}

function fileRow(mappingId: string, file: VaultFileSummary): SafeHtml {
  return html`<tr>
    <th scope="row"><a href="${filePageUrl(mappingId, file.path)}">${file.path}</a></th>
    <td>${KIND_WORDS[file.kind]}</td>
    <td><code>${file.mediaType}</code></td>
    <td>${showSize(file.size)}</td>
    <td>${showDate(file.updatedAt)}</td>
  </tr>`;
}

function kindLinks(mappingId: string, kind: VaultFileKind | undefined): SafeHtml {
  const link = (value: VaultFileKind | undefined, label: string) =>
    value === kind ? html`<strong aria-current="page">${label}</strong>` : html`<a href="${filesUrl(mappingId, value ? { kind: value } : {})}">${label}</a>`;
  return html`<p>Show: ${link(undefined, 'all')} · ${link('canvas', 'canvases')} · ${link('attachment', 'attachments')}</p>`;
}

/** What a file page shows of the file itself: a preview where it is safe, a canvas's outline, a download link. */
function preview(mappingId: string, file: VaultFile): SafeHtml {
  const raw = fileRawUrl(mappingId, file.path);
  const download = html`<p><a href="${fileRawUrl(mappingId, file.path, { download: true })}" download>Download ${file.path.slice(file.path.lastIndexOf('/') + 1)}</a></p>`;
  if (file.kind === 'canvas') return html`${canvasOutline(file)}${download}`;
  switch (presentationOf(file.mediaType)) {
    case 'image':
      return html`<figure class="attachment"><img src="${raw}" alt="${file.path}" style="max-width:100%;height:auto"><figcaption>${file.path}</figcaption></figure>${download}`;
    case 'audio':
      return html`<audio controls preload="metadata" src="${raw}" aria-label="Play ${file.path}"></audio>${download}`;
    case 'pdf':
      return html`<p><a href="${raw}" target="_blank" rel="noopener">Open the PDF</a></p>${download}`;
    default:
      return html`<p class="muted">This kind of file is not shown in the workspace; it can be downloaded.</p>${download}`;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A stored canvas as the outline translate_canvas gives, or why it cannot be read. */
function canvasOutline(file: VaultFile): SafeHtml {
  try {
    const { outline } = canvasToOutline(UTF8.decode(file.content));
    return html`<section aria-labelledby="outline-h"><h2 id="outline-h">Canvas outline</h2><pre class="outline" tabindex="0">${outline}</pre></section>`;
  } catch (error) {
    const reason = isKgateError(error) ? error.message : 'It is not UTF-8 text.';
    return html`<p class="warning">This canvas cannot be read: ${reason}</p>`;
  }
}

/** The notes that link to the file or embed it, each once, by path. */
function backlinksSection(mappingId: string, backlinks: { incoming: ReadonlyArray<{ sourcePath: string }>; truncated: boolean }): SafeHtml {
  const notes = [...new Set(backlinks.incoming.map((link) => link.sourcePath))];
  return html`<section aria-labelledby="file-backlinks-h"><h2 id="file-backlinks-h">Notes that link here</h2>
    ${notes.length === 0
      ? html`<p class="muted">No note links to this file or embeds it.</p>`
      : html`<ul>${notes.map((path) => html`<li><a href="${noteUrl(mappingId, path)}">${path}</a></li>`)}</ul>`}
    ${backlinks.truncated ? html`<p class="warning">More notes may link here than are shown.</p>` : ''}</section>`;
}

/**
 * A vault's canvases and attachments in the workspace: `/workspace/vaults/{mappingId}/files` lists them, `/file/{path}`
 * shows one (an image, an audio player, a PDF link, a canvas's outline), `/raw/{path}` serves its bytes to the
 * signed-in person (file-serving.ts: never SVG or HTML inline). Every read is the files service's, as the person.
 */
export function filePages(deps: FilePagesDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    '/workspace/vaults/:mappingId/files',
    workspacePage(deps, async (c, { call, signedIn, actor }) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const kind = kindFilter(c.req.query('kind'));
      const after = c.req.query('after');
      const page = await deps.files.listFiles(actor, vault.mappingId, { limit: FILES_PAGE, ...(kind ? { kind } : {}), ...(after ? { after } : {}) });
      const what = kind === 'canvas' ? 'canvases' : kind === 'attachment' ? 'attachments' : 'canvases and attachments';
      const table =
        page.files.length === 0
          ? html`<p>${after ? `No more ${what}.` : `This vault holds no ${what}.`}</p>`
          : html`<table>
              <caption class="muted">The vault's ${what}, by path${after ? html`, after <code>${after}</code>` : ''}</caption>
              <thead><tr><th scope="col">File</th><th scope="col">Kind</th><th scope="col">Media type</th><th scope="col">Size</th><th scope="col">Updated</th></tr></thead>
              <tbody>${page.files.map((file) => fileRow(vault.mappingId, file))}</tbody>
            </table>`;
      const next = page.nextAfter ? html`<p><a href="${filesUrl(vault.mappingId, { ...(kind ? { kind } : {}), after: page.nextAfter })}">Next ${FILES_PAGE}</a></p>` : '';
      return sendPage(c, {
        title: `Files of ${vault.name}`,
        signedIn,
        body: html`${vaultNav(vault.mappingId, 'files')}
          <h2>Canvases and attachments</h2>
          <p class="muted">Everything in the vault that is not a note: canvases, images, PDFs, audio and other files. Notes are on the
            <a href="${vaultUrl(vault.mappingId)}">vault's page</a>.</p>
          ${kindLinks(vault.mappingId, kind)}${table}${next}`,
      });
    }),
  );

  app.get(
    '/workspace/vaults/:mappingId/file/*',
    workspacePage(deps, async (c, { call, signedIn, actor }) => {
      const vault = await vaultOf(call, c.req.param('mappingId') ?? '');
      const file = await deps.files.readFile(actor, vault.mappingId, filePathOf(c.req.path, vault.mappingId, 'file'));
      const folder = file.path.includes('/') ? file.path.slice(0, file.path.lastIndexOf('/')) : '';
      const backlinks = await deps.graph.fileIncoming(actor, vault.mappingId, { path: file.path, limit: BACKLINKS_LIMIT });
      return allowOwnMedia(
        sendPage(c, {
          title: file.path.slice(file.path.lastIndexOf('/') + 1),
          signedIn,
          body: html`${vaultNav(vault.mappingId, 'files')}
            <p class="muted"><a href="${filesUrl(vault.mappingId)}">Canvases and attachments</a> · ${folder === '' ? 'vault root' : folder}/ · <code>${file.path}</code></p>
            <dl class="file-facts">
              <dt>Kind</dt><dd>${KIND_WORDS[file.kind]}</dd>
              <dt>Media type</dt><dd><code>${file.mediaType}</code></dd>
              <dt>Size</dt><dd>${showSize(file.size)}</dd>
              <dt>Updated</dt><dd>${showDate(file.updatedAt)}</dd>
              <dt>Revision</dt><dd><code>${file.contentHash.slice(0, 15)}…</code></dd>
            </dl>
            ${preview(vault.mappingId, file)}
            ${backlinksSection(vault.mappingId, backlinks)}`,
        }),
      );
    }),
  );

  app.get(
    '/workspace/vaults/:mappingId/raw/*',
    workspacePage(deps, async (c, { actor }) => {
      // The files service decides whether the person may read this vault: unknown and forbidden are both not_found.
      const mappingId = c.req.param('mappingId') ?? '';
      const file = await deps.files.readFile(actor, mappingId, filePathOf(c.req.path, mappingId, 'raw'));
      const headers = fileResponseHeaders(file, c.req.query('download') !== undefined);
      if (c.req.header('if-none-match') === headers.ETag) {
        const { 'Content-Length': _length, ...rest } = headers;
        return c.body(null, 304, rest);
      }
      return c.body(Uint8Array.from(file.content), 200, headers);
    }),
  );

  return app;
}
