import { readFile } from 'node:fs';
import { lstat, readdir, readFile as readFileBytes } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { OperatorError } from './operator-error.ts';

/** How an importer treats a file found in a vault folder. */
export type FolderEntryKind = 'note' | 'canvas' | 'attachment' | 'hidden' | 'symlink';

/** One file of a vault folder, with its vault-relative path (forward slashes). */
export interface FolderEntry {
  path: string;
  kind: FolderEntryKind;
}

/**
 * Lists a vault folder the way Obsidian sees it: `.md` files are notes, `.canvas` files canvases, other files
 * attachments. Hidden files and folders (`.obsidian/`, `.trash/`, `.git/`) are listed as hidden and not entered;
 * symbolic links are listed and never followed, so an import cannot read outside the folder.
 */
export async function listVaultFolder(root: string): Promise<FolderEntry[]> {
  const entries: FolderEntry[] = [];
  async function walk(dir: string): Promise<void> {
    const children = await readdir(dir, { withFileTypes: true });
    children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      const full = join(dir, child.name);
      const path = relative(root, full).split(sep).join('/');
      if (child.name.startsWith('.')) entries.push({ path, kind: 'hidden' });
      else if (child.isSymbolicLink()) entries.push({ path, kind: 'symlink' });
      else if (child.isDirectory()) await walk(full);
      else if (child.isFile()) entries.push({ path, kind: kindOf(child.name) });
    }
  }
  await assertVaultFolder(root);
  await walk(root);
  return entries;
}

/** Fails with a one-line message unless `root` is a readable directory. */
export async function assertVaultFolder(root: string): Promise<void> {
  const stat = await lstat(root).catch(() => undefined);
  if (!stat?.isDirectory()) throw new OperatorError(`${root} is not a folder.`);
}

function kindOf(name: string): FolderEntryKind {
  if (name.endsWith('.md')) return 'note';
  if (name.endsWith('.canvas')) return 'canvas';
  return 'attachment';
}

/** The sizes in bytes of files of the folder (without following links: the listing never returns one). */
export async function fileSizes(root: string, paths: readonly string[]): Promise<number[]> {
  return Promise.all(paths.map(async (path) => (await lstat(join(root, ...path.split('/')))).size));
}

/** Reads canvases and attachments as bytes, exactly as they are. */
export function readVaultFiles(root: string, paths: readonly string[]): Promise<Buffer[]> {
  return Promise.all(paths.map((path) => readFileBytes(join(root, ...path.split('/')))));
}

// fatal: reject invalid UTF-8 instead of silently replacing bytes; ignoreBOM: keep a BOM so export round-trips.
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads several note files at once (undefined for each that is not valid UTF-8). Concurrent reads let libuv
 * overlap each file's open, stat, read and close; reading one file at a time was half of a first import's time.
 */
export function readNoteFiles(root: string, paths: readonly string[]): Promise<(string | undefined)[]> {
  return Promise.all(paths.map((path) => readNoteFile(root, path)));
}

// The callback readFile, promisified: fs.promises.readFile costs about twice the CPU per small file (Node 20; 20,000
// notes of the synthetic vault: 1.4 s against 0.6 s), and an import reads every file of a folder.
const readFileFast = promisify(readFile);

/** Reads a note file as UTF-8; undefined when the bytes are not valid UTF-8. */
export async function readNoteFile(root: string, path: string): Promise<string | undefined> {
  const bytes = await readFileFast(join(root, ...path.split('/')));
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
