/**
 * The files of a local workspace folder: reading notes as strict UTF-8, writing them atomically (a temporary file in
 * the same folder, then a rename), and never following a symbolic link, so that no path can leave the folder.
 */
import { createHash, randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LocalRefusal, invalidPath, notFound } from './refusal.js';

/** The largest note, in UTF-8 bytes, as on the server (docs/notes.md). */
export const MAX_NOTE_BYTES = 4 * 1024 * 1024;

/** `sha256:` + lowercase hex of the bytes: a note's contentHash, and its revision. */
export function contentHash(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** A note's bytes decoded as strict UTF-8; a byte-order mark is kept, so that the bytes and the hash agree. */
export function decodeNote(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new LocalRefusal('invalid_encoding', `${path} is not valid UTF-8.`, 400, { path });
  }
}

const FRONTMATTER_OPEN = /^---\r?\n/;
const FRONTMATTER_CLOSE = /^(?:---|\.\.\.)\s*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const ATX_H1 = /^\s{0,3}#[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$/;
const MAX_TITLE_LENGTH = 300;

/** The first level-1 heading outside frontmatter and fenced code, else the file name without `.md` (as the server). */
export function noteTitle(path: string, content: string): string {
  const lines = content.split('\n');
  let index = 0;
  if (FRONTMATTER_OPEN.test(content.replace(/^\uFEFF/, ''))) {
    const close = lines.findIndex((line, i) => i > 0 && FRONTMATTER_CLOSE.test(line));
    if (close > 0) index = close + 1;
  }
  let fence: string | undefined;
  for (; index < lines.length; index += 1) {
    const line = lines[index]!.replace(/\r$/, '');
    const fenceMatch = FENCE.exec(line);
    if (fenceMatch) {
      const marker = fenceMatch[1]!;
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const heading = ATX_H1.exec(line);
    if (heading && heading[1]!.trim().length > 0) return heading[1]!.trim().slice(0, MAX_TITLE_LENGTH);
  }
  const fileName = path.slice(path.lastIndexOf('/') + 1);
  return fileName.slice(0, -'.md'.length).slice(0, MAX_TITLE_LENGTH);
}

/** A note file as found on disk. */
export interface NoteFile {
  path: string;
  content: string;
  bytes: Buffer;
  hash: string;
  updatedAt: Date;
  createdAt: Date;
}

/**
 * Where `path` (canonical, from canonicalNotePath) lives under `root`, after checking that no folder on the way is a
 * symbolic link: a link is never followed, so a note path cannot reach outside the folder.
 */
export async function notePlace(root: string, path: string): Promise<string> {
  const segments = path.split('/');
  let place = root;
  for (const [i, segment] of segments.entries()) {
    place = join(place, segment);
    const info = await lstat(place).catch(() => undefined);
    if (info === undefined) return join(root, ...segments);
    if (info.isSymbolicLink()) throw invalidPath('symbolic_link', 'A symbolic link is on the way to this note; the local adapter never follows one.');
    if (i < segments.length - 1 && !info.isDirectory()) throw invalidPath('not_a_folder', `${segments.slice(0, i + 1).join('/')} is a file, not a folder.`);
  }
  return place;
}

/** Reads a note, or undefined when there is none at `path`. Refuses folders, oversized notes and invalid UTF-8. */
export async function readNoteFile(root: string, path: string): Promise<NoteFile | undefined> {
  const place = await notePlace(root, path);
  let handle;
  try {
    handle = await open(place, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw invalidPath('symbolic_link', 'This note is a symbolic link; the local adapter never follows one.');
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw notFound(`${path} is not a note.`);
    if (info.size > MAX_NOTE_BYTES) throw new LocalRefusal('payload_too_large', `${path} is larger than 4 MiB.`, 413, { path });
    const bytes = await handle.readFile();
    const created = info.birthtimeMs > 0 ? info.birthtime : info.mtime;
    return { path, content: decodeNote(bytes, path), bytes, hash: contentHash(bytes), updatedAt: info.mtime, createdAt: created };
  } finally {
    await handle.close();
  }
}

/**
 * Refuses to create `path` when its folder already holds a name that differs only in letter case: the server holds
 * at most one of `Plan.md` and `plan.md`, and macOS, Windows and synced drives would collide on them.
 */
export async function assertNoCaseTwin(root: string, path: string): Promise<void> {
  const slash = path.lastIndexOf('/');
  const folder = slash < 0 ? root : join(root, path.slice(0, slash));
  const name = path.slice(slash + 1);
  const entries = await readdir(folder).catch(() => [] as string[]);
  const twin = entries.find((entry) => entry !== name && entry.toLowerCase() === name.toLowerCase());
  if (twin !== undefined) {
    throw new LocalRefusal('conflict', `${path} differs only in letter case from ${twin}, which exists.`, 409, { path });
  }
}

/** Writes `bytes` to `place` atomically: a hidden temporary file beside it, flushed, then renamed over it. */
export async function writeAtomically(place: string, bytes: string | Uint8Array): Promise<void> {
  const folder = dirname(place);
  await mkdir(folder, { recursive: true });
  const temporary = join(folder, `.${basename(place)}.${randomUUID()}.tmp`);
  const handle = await open(temporary, 'wx', 0o644);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, place);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
