/**
 * The local trash: `.trash/` inside the workspace folder. An entry is two files named by its id, the content
 * (`<trashId>.md`) and its metadata (`<trashId>.json`, written last: an entry without it is not listed). Other files
 * there, such as Obsidian's own trash, are left alone.
 */
import { lstat, readFile, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { TrashEntry } from '../envelope.js';
import { contentHash, decodeNote, writeAtomically } from './note-files.js';
import { LocalRefusal, invalidPath, notFound } from './refusal.js';

/** The trash folder's name inside the workspace folder. */
export const TRASH_FOLDER = '.trash';
/** At most this many trash entries are read for one listing; more answers a `partial` page. */
export const MAX_TRASH_SCAN = 10_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isTrashEntry(value: unknown): value is TrashEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.trashId === 'string' &&
    UUID.test(v.trashId) &&
    typeof v.originalPath === 'string' &&
    typeof v.deletedAt === 'string' &&
    typeof v.deletedBy === 'string' &&
    typeof v.size === 'number' &&
    typeof v.contentHash === 'string'
  );
}

/** The trash folder, refused when it is a symbolic link: the local adapter never follows one. */
async function trashFolder(root: string): Promise<string> {
  const folder = join(root, TRASH_FOLDER);
  const info = await lstat(folder).catch(() => undefined);
  if (info?.isSymbolicLink()) throw invalidPath('symbolic_link', 'The workspace folder\'s .trash is a symbolic link; the local adapter never follows one.');
  return folder;
}

/** Writes a trash entry holding `bytes`, before the live note is removed. */
export async function writeTrashEntry(root: string, entry: TrashEntry, bytes: Uint8Array): Promise<void> {
  const folder = await trashFolder(root);
  await writeAtomically(join(folder, `${entry.trashId}.md`), bytes);
  await writeAtomically(join(folder, `${entry.trashId}.json`), `${JSON.stringify(entry)}\n`);
}

/** Every complete trash entry (bounded), newest first, and whether the bound was reached. */
export async function readTrashEntries(root: string): Promise<{ entries: TrashEntry[]; scanLimitReached: boolean }> {
  const folder = await trashFolder(root);
  const names = await readdir(folder).catch(() => [] as string[]);
  const metadata = names.filter((name) => name.endsWith('.json') && UUID.test(name.slice(0, -'.json'.length))).sort();
  const scanLimitReached = metadata.length > MAX_TRASH_SCAN;
  const entries: TrashEntry[] = [];
  for (const name of metadata.slice(0, MAX_TRASH_SCAN)) {
    const value: unknown = await readFile(join(folder, name), 'utf8')
      .then((text) => JSON.parse(text) as unknown)
      .catch(() => undefined);
    if (isTrashEntry(value) && `${value.trashId}.json` === name) entries.push(value);
  }
  const byId = (a: string, b: string): number => (a === b ? 0 : a < b ? -1 : 1);
  entries.sort((a, b) => (a.deletedAt === b.deletedAt ? byId(a.trashId, b.trashId) : a.deletedAt < b.deletedAt ? 1 : -1));
  return { entries, scanLimitReached };
}

/** One trash entry with its content, or a `not_found` refusal. */
export async function readTrashEntry(root: string, trashId: string): Promise<{ entry: TrashEntry; bytes: Buffer; content: string }> {
  if (!UUID.test(trashId)) throw notFound('No such trash entry.');
  const folder = await trashFolder(root);
  const value: unknown = await readFile(join(folder, `${trashId}.json`), 'utf8')
    .then((text) => JSON.parse(text) as unknown)
    .catch(() => undefined);
  const bytes = await readFile(join(folder, `${trashId}.md`)).catch(() => undefined);
  if (!isTrashEntry(value) || value.trashId !== trashId || bytes === undefined) throw notFound('No such trash entry.');
  if (contentHash(bytes) !== value.contentHash) {
    throw new LocalRefusal('conflict', 'The trash entry was changed on disk since the note was deleted; it is not restored.', 409, { trashId });
  }
  return { entry: value, bytes, content: decodeNote(bytes, value.originalPath) };
}

/** Removes a trash entry (its metadata first, so that a half-removed entry is never listed). */
export async function removeTrashEntry(root: string, trashId: string): Promise<void> {
  const folder = await trashFolder(root);
  await rm(join(folder, `${trashId}.json`), { force: true });
  await rm(join(folder, `${trashId}.md`), { force: true });
}
