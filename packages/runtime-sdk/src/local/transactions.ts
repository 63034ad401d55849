/**
 * Note transactions on a local workspace folder, with the server's rules (docs/runtime.md, spec 2.4): a preview by
 * default; applying needs the current hash of every existing note it touches, and refuses the whole transaction if
 * any action has a problem (stale hash, missing hash, missing note, occupied path). Every action is checked before
 * any file changes; a failure midway undoes what was done, newest first, so the folder ends as it began.
 */
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import type { ActionResult, NoteAction, NoteTransaction, TrashEntry } from '../envelope.js';
import { assertPortablePath, canonicalNotePath } from './note-paths.js';
import { MAX_NOTE_BYTES, assertNoCaseTwin, contentHash, notePlace, readNoteFile, writeAtomically, type NoteFile } from './note-files.js';
import { previewDiff } from './preview-diff.js';
import { LocalRefusal, invalidRequest } from './refusal.js';
import { readTrashEntry, removeTrashEntry, writeTrashEntry } from './trash-store.js';

/** At most this many actions in one transaction (spec 8). */
export const MAX_TRANSACTION_ACTIONS = 100;
/** The `mappingId` a local transaction answers. */
export const LOCAL_MAPPING_ID = 'local';

const HASH = /^sha256:[0-9a-f]{64}$/;
const HTTP_STATUS: Record<string, number> = { stale_revision: 412, precondition_required: 428, not_found: 404, conflict: 409, invalid_request: 400 };

type Problem = { code: string; detail: string };
/** What applying an action does to the folder, and how to undo it. */
type Step = () => Promise<() => Promise<void>>;

interface Planned {
  result: ActionResult;
  problem?: Problem;
  step?: Step;
}

const KEYS: Record<NoteAction['type'], readonly string[]> = {
  'write-note': ['type', 'path', 'content', 'expectedHash'],
  'delete-note': ['type', 'path', 'expectedHash'],
  'restore-note': ['type', 'trashId', 'path'],
  'move-note': ['type', 'path', 'newPath', 'expectedHash', 'rewriteLinks'],
};

/** The actions checked for shape, with canonical paths; refuses what the server's request validation refuses. */
function canonicalActions(actions: unknown): NoteAction[] {
  if (!Array.isArray(actions) || actions.length === 0) throw invalidRequest('A transaction needs at least one action.', 'actions');
  if (actions.length > MAX_TRANSACTION_ACTIONS) throw invalidRequest(`A transaction holds at most ${MAX_TRANSACTION_ACTIONS} actions.`, 'actions');
  const seen = new Map<string, number>();
  const claim = (path: string, index: number): void => {
    const earlier = seen.get(path.toLowerCase());
    if (earlier !== undefined && earlier !== index) throw invalidRequest(`Actions ${earlier} and ${index} touch the same path; one action per path.`, 'actions');
    seen.set(path.toLowerCase(), index);
  };
  return actions.map((raw: unknown, index): NoteAction => {
    const field = (name: string) => `actions[${index}].${name}`;
    if (typeof raw !== 'object' || raw === null) throw invalidRequest(`Action ${index} is not an object.`, `actions[${index}]`);
    const action = raw as Record<string, unknown>;
    const type = action.type as NoteAction['type'];
    const allowed = KEYS[type];
    if (!allowed) throw invalidRequest(`Action ${index}: type is write-note, delete-note, restore-note or move-note.`, field('type'));
    const unknown = Object.keys(action).find((key) => !allowed.includes(key));
    if (unknown !== undefined) throw invalidRequest(`Action ${index}: unknown field ${unknown}.`, field(unknown));
    if (action.expectedHash !== undefined && (typeof action.expectedHash !== 'string' || !HASH.test(action.expectedHash))) {
      throw invalidRequest(`Action ${index}: expectedHash must be "sha256:" followed by 64 lowercase hex digits.`, field('expectedHash'));
    }
    const at = (name: 'path' | 'newPath', write: boolean): string => {
      try {
        const path = canonicalNotePath(action[name]);
        if (write) assertPortablePath(path);
        return path;
      } catch (error) {
        if (error instanceof LocalRefusal) throw new LocalRefusal(error.code, `Action ${index}: ${error.message}`, error.httpStatus, { ...error.details, index, field: name });
        throw error;
      }
    };
    const path = at('path', type === 'write-note');
    claim(path, index);
    const expectedHash = typeof action.expectedHash === 'string' ? { expectedHash: action.expectedHash } : {};
    switch (type) {
      case 'write-note':
        if (typeof action.content !== 'string') throw invalidRequest(`Action ${index}: content must be a string.`, field('content'));
        if (Buffer.byteLength(action.content, 'utf8') > MAX_NOTE_BYTES) {
          throw new LocalRefusal('payload_too_large', `Action ${index}: a note holds at most ${MAX_NOTE_BYTES} bytes.`, 413, { index, limit: MAX_NOTE_BYTES });
        }
        return { type, path, content: action.content, ...expectedHash };
      case 'delete-note':
        return { type, path, ...expectedHash };
      case 'restore-note':
        if (typeof action.trashId !== 'string') throw invalidRequest(`Action ${index}: trashId must be a string.`, field('trashId'));
        return { type, path, trashId: action.trashId };
      case 'move-note': {
        if (action.rewriteLinks === true) throw invalidRequest(`Action ${index}: the local adapter does not rewrite links; move without rewriteLinks.`, field('rewriteLinks'));
        const newPath = at('newPath', true);
        claim(newPath, index);
        return { type, path, newPath, ...expectedHash };
      }
    }
  });
}

function checkHash(apply: boolean, current: NoteFile | undefined, expectedHash: string | undefined): Problem | undefined {
  if (current === undefined) return expectedHash === undefined ? undefined : { code: 'stale_revision', detail: 'An expectedHash was given but the note does not exist (any more).' };
  if (expectedHash === undefined) return apply ? { code: 'precondition_required', detail: 'The note exists: send its current hash as expectedHash.' } : undefined;
  return expectedHash === current.hash ? undefined : { code: 'stale_revision', detail: `The note changed: its current hash is ${current.hash}.` };
}

/**
 * Refuses to go on when the note at `path` no longer has the hash it was planned against (null: absent): another
 * program (an editor, a sync client) changed the folder between planning and applying.
 */
async function assertStill(root: string, path: string, hash: string | null): Promise<void> {
  const now = await readNoteFile(root, path);
  if ((now?.hash ?? null) !== hash) throw new LocalRefusal('stale_revision', `${path} changed while the transaction applied; nothing was kept.`, 412, { path });
}

/** A problem found while planning, as a problem of the action rather than a refusal of the whole call. */
async function occupied(root: string, path: string): Promise<Problem | undefined> {
  try {
    await assertNoCaseTwin(root, path);
    return undefined;
  } catch (error) {
    if (error instanceof LocalRefusal) return { code: error.code, detail: error.message };
    throw error;
  }
}

async function planOne(root: string, action: NoteAction, index: number, apply: boolean): Promise<Planned> {
  const base = { index, type: action.type, path: action.path };
  const conflict = (problem: Problem, beforeRevision: string | null, afterRevision: string | null, extra: Partial<ActionResult> = {}): Planned => ({
    result: { ...base, ...extra, status: 'conflict', beforeRevision, afterRevision, problem },
    problem,
  });
  if (action.type === 'write-note') {
    const current = await readNoteFile(root, action.path);
    const hash = contentHash(action.content);
    const before = current?.hash ?? null;
    const problem = checkHash(apply, current, action.expectedHash) ?? (current ? undefined : await occupied(root, action.path));
    if (problem) return conflict(problem, before, hash);
    const status = current?.hash === hash ? 'no-op' : current ? 'update' : 'create';
    const place = await notePlace(root, action.path);
    const step: Step = async () => {
      await assertStill(root, action.path, before);
      await writeAtomically(place, action.content);
      return current ? () => writeAtomically(place, current.bytes) : () => rm(place, { force: true });
    };
    return { result: { ...base, status, beforeRevision: before, afterRevision: hash, ...(apply ? {} : previewDiff(action.path, current?.content ?? null, action.content)) }, ...(status === 'no-op' ? {} : { step }) };
  }
  if (action.type === 'delete-note') {
    const current = await readNoteFile(root, action.path);
    const problem = current ? checkHash(apply, current, action.expectedHash) : { code: 'not_found', detail: 'There is no note at this path.' };
    if (!current || problem) return conflict(problem!, current?.hash ?? null, null);
    const trashId = randomUUID();
    const place = await notePlace(root, action.path);
    const step: Step = async () => {
      await assertStill(root, action.path, current.hash);
      const entry: TrashEntry = { trashId, originalPath: action.path, deletedAt: new Date().toISOString(), deletedBy: 'local', size: current.bytes.length, contentHash: current.hash };
      await writeTrashEntry(root, entry, current.bytes);
      await rm(place);
      return async () => {
        await writeAtomically(place, current.bytes);
        await removeTrashEntry(root, trashId);
      };
    };
    return { result: { ...base, status: 'delete', beforeRevision: current.hash, afterRevision: null, ...(apply ? { trashId } : previewDiff(action.path, current.content, null)) }, step };
  }
  if (action.type === 'restore-note') {
    const trashed = await readTrashEntry(root, action.trashId).catch((error: unknown) => {
      if (error instanceof LocalRefusal && error.code === 'not_found') return undefined;
      throw error;
    });
    const occupant = await readNoteFile(root, action.path);
    const problem: Problem | undefined = !trashed
      ? { code: 'not_found', detail: 'There is no restorable trash entry with this id.' }
      : trashed.entry.originalPath !== action.path
        ? { code: 'invalid_request', detail: `The trash entry's original path is ${trashed.entry.originalPath}.` }
        : occupant
          ? { code: 'conflict', detail: 'A note already exists at the original path.' }
          : await occupied(root, action.path);
    if (!trashed || problem) return conflict(problem!, occupant?.hash ?? null, trashed?.entry.contentHash ?? null, { trashId: action.trashId });
    const place = await notePlace(root, action.path);
    const step: Step = async () => {
      await assertStill(root, action.path, null);
      await writeAtomically(place, trashed.bytes);
      await removeTrashEntry(root, action.trashId);
      return async () => {
        await writeTrashEntry(root, trashed.entry, trashed.bytes);
        await rm(place, { force: true });
      };
    };
    return { result: { ...base, status: 'restore', beforeRevision: null, afterRevision: trashed.entry.contentHash, trashId: action.trashId, ...(apply ? {} : previewDiff(action.path, null, trashed.content)) }, step };
  }
  const current = await readNoteFile(root, action.path);
  const target = await readNoteFile(root, action.newPath);
  const revision = current?.hash ?? null;
  const withNewPath = { newPath: action.newPath };
  const problem = !current
    ? { code: 'not_found', detail: 'There is no note at this path.' }
    : (checkHash(apply, current, action.expectedHash) ??
      (target ? { code: 'conflict', detail: `A note already exists at ${action.newPath}.` } : await occupied(root, action.newPath)));
  if (!current || problem) return conflict(problem!, revision, revision, withNewPath);
  const from = await notePlace(root, action.path);
  const to = await notePlace(root, action.newPath);
  const step: Step = async () => {
    await assertStill(root, action.path, current.hash);
    await assertStill(root, action.newPath, null);
    await writeAtomically(to, current.bytes);
    await rm(from);
    return async () => {
      await writeAtomically(from, current.bytes);
      await rm(to, { force: true });
    };
  };
  return { result: { ...base, ...withNewPath, status: 'move', beforeRevision: revision, afterRevision: revision }, step };
}

/** Previews (`apply` false) or applies a local transaction; refusals are thrown as LocalRefusal. */
export async function runLocalTransaction(root: string, rawActions: unknown, apply: boolean): Promise<NoteTransaction> {
  const actions = canonicalActions(rawActions);
  const planned: Planned[] = [];
  for (const [index, action] of actions.entries()) planned.push(await planOne(root, action, index, apply));
  const results = planned.map((p) => p.result);
  if (!apply) return { mappingId: LOCAL_MAPPING_ID, dryRun: true, applied: false, actions: results };
  const problems = planned.flatMap((p) => (p.problem ? [{ index: p.result.index, path: p.result.path, ...p.problem }] : []));
  const first = problems[0];
  if (first) throw new LocalRefusal(first.code, `Action ${first.index} (${first.path}): ${first.detail}`, HTTP_STATUS[first.code] ?? 409, { problems });
  const undo: Array<() => Promise<void>> = [];
  try {
    for (const p of planned) if (p.step) undo.push(await p.step());
  } catch (error) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw error;
  }
  return { mappingId: LOCAL_MAPPING_ID, dryRun: false, applied: true, actions: results };
}
