/** The local adapter's reads: the bounded inventory, one note, and the trash listing. */
import type { Note, NoteList, NoteSummary, RuntimeProblem, TrashList } from '../envelope.js';
import { problem } from '../make-envelope.js';
import { byteOrder, walkNotes } from './note-inventory.js';
import { canonicalNotePath } from './note-paths.js';
import { noteTitle, readNoteFile } from './note-files.js';
import { decodeCursor, encodeCursor, pageLimit } from './paging.js';
import { LocalRefusal, invalidRequest, notFound } from './refusal.js';
import { readTrashEntries } from './trash-store.js';

/** Data with the problems that made it partial (none: complete). */
export interface Answer<D> {
  data: D;
  problems: RuntimeProblem[];
}

const isPathCursor = (v: unknown): v is { p: string } => typeof v === 'object' && v !== null && typeof (v as { p: unknown }).p === 'string';
const isTrashCursor = (v: unknown): v is { d: string; i: string } =>
  typeof v === 'object' && v !== null && typeof (v as { d: unknown }).d === 'string' && typeof (v as { i: unknown }).i === 'string';

/** One page of notes in byte order of path, after `cursor`, whose paths start with `prefix`. */
export async function listLocalNotes(root: string, params: { prefix?: unknown; cursor?: unknown; limit?: unknown }): Promise<Answer<NoteList>> {
  const limit = pageLimit(params.limit);
  const after = params.cursor === undefined ? null : decodeCursor(params.cursor, isPathCursor).p;
  if (params.prefix !== undefined && (typeof params.prefix !== 'string' || params.prefix.length > 1024)) {
    throw invalidRequest('prefix is a string of at most 1,024 characters.', 'prefix');
  }
  const prefix = (params.prefix ?? '').normalize('NFC');
  const inventory = await walkNotes(root, prefix);
  const remaining = after === null ? inventory.paths : inventory.paths.filter((path) => byteOrder(path, after) > 0);
  const page = remaining.slice(0, limit);
  const problems: RuntimeProblem[] = [];
  const notes: NoteSummary[] = [];
  let unreadable = 0;
  for (const path of page) {
    const file = await readNoteFile(root, path).catch((error: unknown) => {
      if (error instanceof LocalRefusal) return undefined;
      throw error;
    });
    if (!file) {
      unreadable += 1;
      continue;
    }
    notes.push({ path, title: noteTitle(path, file.content), revision: file.hash, size: file.bytes.length, updatedAt: file.updatedAt.toISOString() });
  }
  if (unreadable > 0) {
    problems.push(problem('unreadable_notes', `${unreadable} note(s) of this page could not be read (not UTF-8, over 4 MiB, or gone).`, { skipped: unreadable }));
  }
  if (inventory.invalidPaths > 0) {
    problems.push(problem('invalid_path', `${inventory.invalidPaths} Markdown file(s) have names the path rules refuse and are not listed.`, { skipped: inventory.invalidPaths }));
  }
  if (inventory.scanLimitReached) {
    problems.push(problem('scan_limit_reached', 'The folder holds more entries than one listing looks at; some notes are not listed.'));
  }
  const more = remaining.length > page.length;
  const last = page[page.length - 1];
  return { data: { notes, nextCursor: more && last !== undefined ? encodeCursor({ p: last }) : null, truncated: more }, problems };
}

/** One whole note, or a `not_found` refusal. */
export async function readLocalNote(root: string, rawPath: unknown): Promise<Note> {
  const path = canonicalNotePath(rawPath);
  const file = await readNoteFile(root, path);
  if (!file) throw notFound('There is no note at this path.');
  return {
    path,
    title: noteTitle(path, file.content),
    revision: file.hash,
    size: file.bytes.length,
    updatedAt: file.updatedAt.toISOString(),
    content: file.content,
    contentHash: file.hash,
    createdAt: file.createdAt.toISOString(),
  };
}

/** One page of trash entries, newest first. */
export async function listLocalTrash(root: string, params: { cursor?: unknown; limit?: unknown }): Promise<Answer<TrashList>> {
  const limit = pageLimit(params.limit);
  const after = params.cursor === undefined ? null : decodeCursor(params.cursor, isTrashCursor);
  const { entries, scanLimitReached } = await readTrashEntries(root);
  // Newest first, then by id: an entry comes after the cursor when it is older, or as old with a larger id.
  const remaining = after === null ? entries : entries.filter((e) => e.deletedAt < after.d || (e.deletedAt === after.d && e.trashId > after.i));
  const page = remaining.slice(0, limit);
  const more = remaining.length > page.length;
  const last = page[page.length - 1];
  const problems = scanLimitReached ? [problem('scan_limit_reached', 'The trash holds more entries than one listing reads; some are not listed.')] : [];
  return { data: { entries: page, nextCursor: more && last ? encodeCursor({ d: last.deletedAt, i: last.trashId }) : null, truncated: more }, problems };
}
