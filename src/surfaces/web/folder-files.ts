import type { FilesService, VaultFileSummary } from '../../domains/files/index.ts';
import { isKgateError } from '../../kernel/errors.ts';
import type { Actor } from '../../kernel/principal.ts';
import { showSize } from './file-pages.ts';
import { filePageUrl, filesUrl } from './file-urls.ts';
import { html, type SafeHtml } from './layout.ts';
import { vaultUrl } from './workspace-urls.ts';

/** Most files read for one folder's section: past this the section says so and links to the full list. */
export const MAX_FOLDER_FILES_SCAN = 1000;

/** The canvases and attachments directly in one folder, and the folders below it that hold files. */
export interface FolderFiles {
  files: VaultFileSummary[];
  folders: string[];
  /** True when the scan stopped at MAX_FOLDER_FILES_SCAN files before the end of the folder. */
  truncated: boolean;
}

/**
 * Reads the files of a vault folder ('' for the root): one page of the inventory in path order, from the folder's
 * prefix on, at most MAX_FOLDER_FILES_SCAN files. Paths under `a/` sort together after `a/` itself, so the page
 * holds the folder's files and those of its subfolders before anything else.
 */
export async function folderFiles(files: Pick<FilesService, 'listFiles'>, actor: Actor, mappingId: string, folder: string): Promise<FolderFiles> {
  const prefix = folder === '' ? '' : `${folder}/`;
  const page = await files.listFiles(actor, mappingId, { limit: MAX_FOLDER_FILES_SCAN, ...(prefix ? { after: prefix } : {}) });
  const direct: VaultFileSummary[] = [];
  const folders = new Set<string>();
  let left = false;
  for (const file of page.files) {
    if (!file.path.startsWith(prefix)) {
      left = true;
      break;
    }
    const rest = file.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash === -1) direct.push(file);
    else folders.add(prefix + rest.slice(0, slash));
  }
  return { files: direct, folders: [...folders].sort(), truncated: !left && page.nextAfter !== null };
}

/**
 * The vault page's section of canvases and attachments in a folder (for workspace-pages.ts): the files directly in
 * it, linked to their pages, and the subfolders that hold files; '' when there are none.
 */
export async function folderFilesSection(files: Pick<FilesService, 'listFiles'>, actor: Actor, mappingId: string, folder: string): Promise<SafeHtml | ''> {
  let found: FolderFiles;
  try {
    found = await folderFiles(files, actor, mappingId, folder);
  } catch (error) {
    // Remote and device-encrypted vaults hold no stored files (`unavailable`, `device_encrypted`): their notes still show.
    if (isKgateError(error) && (error.code === 'unavailable' || error.code === 'device_encrypted')) return '';
    throw error;
  }
  if (found.files.length === 0 && found.folders.length === 0) return '';
  const name = (path: string) => path.slice(path.lastIndexOf('/') + 1);
  return html`<section aria-labelledby="folder-files-h"><h2 id="folder-files-h">Canvases and attachments</h2>
    <ul>
      ${found.folders.map((path) => html`<li><a href="${vaultUrl(mappingId, path)}">${name(path)}/</a></li>`)}
      ${found.files.map((file) => html`<li><a href="${filePageUrl(mappingId, file.path)}">${name(file.path)}</a> <span class="muted">${file.kind === 'canvas' ? 'canvas' : file.mediaType}, ${showSize(file.size)}</span></li>`)}
    </ul>
    ${found.truncated ? html`<p class="warning">This folder holds more files than shown here.</p>` : ''}
    <p><a href="${filesUrl(mappingId)}">All canvases and attachments of the vault</a></p></section>`;
}
