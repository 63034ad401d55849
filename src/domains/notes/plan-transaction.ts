import type { ErrorCode } from '../../kernel/error-codes.ts';
import { contentHash } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { noteTitle } from './title.ts';
import { unifiedDiff } from './diff.ts';
import type { NoteWrite, StoredNote } from './store.ts';
import type { TrashEntry } from './trash-store.ts';
import type { ActionResult, NoteAction } from './transaction-contract.ts';

/** An action whose path is already canonical (NFC) with its uniqueness key. */
export type CanonicalAction = NoteAction & { pathKey: string };

/** What the vault holds for the paths and trash ids a transaction touches. */
export interface PlanState {
  notes: ReadonlyMap<string, StoredNote>;
  trash: ReadonlyMap<string, TrashEntry>;
}

/** The change an action makes when applied. */
export type Effect =
  | { kind: 'write'; write: NoteWrite; before: StoredNote | undefined }
  | { kind: 'delete'; note: StoredNote; trashId: string }
  | { kind: 'restore'; entry: TrashEntry; write: NoteWrite };

/** One planned action: its result for the caller, and its effect (absent for no-ops and conflicts). */
export interface PlannedAction {
  result: ActionResult;
  effect?: Effect;
  problem?: { code: ErrorCode; detail: string };
}

/** Previews may leave out expected hashes (and learn them from `beforeRevision`); applying may not. */
export type PlanMode = 'preview' | 'apply';

function writeOf(path: string, pathKey: string, content: string): NoteWrite {
  return { path, pathKey, content, contentHash: contentHash(content), size: Buffer.byteLength(content, 'utf8'), title: noteTitle(path, content) };
}

function checkHash(
  mode: PlanMode,
  current: StoredNote | undefined,
  expectedHash: string | undefined,
): { code: ErrorCode; detail: string } | undefined {
  if (current === undefined) {
    return expectedHash === undefined
      ? undefined
      : { code: 'stale_revision', detail: 'An expectedHash was given but the note does not exist (any more).' };
  }
  if (expectedHash === undefined) {
    return mode === 'apply'
      ? { code: 'precondition_required', detail: 'The note exists: send its current hash as expectedHash (or If-Match).' }
      : undefined;
  }
  return expectedHash === current.contentHash
    ? undefined
    : { code: 'stale_revision', detail: `The note changed: its current hash is ${current.contentHash}.` };
}

function planOne(action: CanonicalAction, index: number, state: PlanState, mode: PlanMode, withDiff: boolean): PlannedAction {
  const base = { index, type: action.type, path: action.path };
  const diffOf = (before: string | null, after: string | null) => (withDiff ? unifiedDiff(action.path, before, after) : {});

  if (action.type === 'write-note') {
    const current = state.notes.get(action.pathKey);
    const problem = checkHash(mode, current, action.expectedHash);
    const write = writeOf(action.path, action.pathKey, action.content);
    const beforeRevision = current?.contentHash ?? null;
    if (problem) {
      return { result: { ...base, status: 'conflict', beforeRevision, afterRevision: write.contentHash, problem }, problem };
    }
    const unchanged = current !== undefined && current.contentHash === write.contentHash && current.path === write.path;
    const status = unchanged ? 'no-op' : current ? 'update' : 'create';
    return {
      result: { ...base, status, beforeRevision, afterRevision: write.contentHash, ...diffOf(current?.content ?? null, action.content) },
      ...(unchanged ? {} : { effect: { kind: 'write', write, before: current } }),
    };
  }

  if (action.type === 'delete-note') {
    const current = state.notes.get(action.pathKey);
    // Report (and record) the note's own path, which may differ in letter case from the requested one.
    const path = current?.path ?? action.path;
    const problem = current
      ? checkHash(mode, current, action.expectedHash)
      : { code: 'not_found' as const, detail: 'There is no note at this path.' };
    if (!current || problem) {
      const conflict = problem!;
      return {
        result: { ...base, path, status: 'conflict', beforeRevision: current?.contentHash ?? null, afterRevision: null, problem: conflict },
        problem: conflict,
      };
    }
    const trashId = newId();
    return {
      result: {
        ...base,
        path,
        status: 'delete',
        beforeRevision: current.contentHash,
        afterRevision: null,
        // A preview's trash id would never exist; only an applied delete names its entry.
        ...(mode === 'apply' ? { trashId } : {}),
        ...diffOf(current.content, null),
      },
      effect: { kind: 'delete', note: current, trashId },
    };
  }

  const entry = state.trash.get(action.trashId);
  const occupant = state.notes.get(action.pathKey);
  let problem: { code: ErrorCode; detail: string } | undefined;
  if (!entry || entry.restoredAt) problem = { code: 'not_found', detail: 'There is no restorable trash entry with this id.' };
  else if (entry.originalPath !== action.path) {
    problem = { code: 'invalid_request', detail: `The trash entry's original path is ${entry.originalPath}.` };
  } else if (occupant) problem = { code: 'conflict', detail: 'A note already exists at the original path.' };
  if (!entry || problem) {
    const conflict = problem!;
    return {
      result: { ...base, status: 'conflict', beforeRevision: occupant?.contentHash ?? null, afterRevision: entry?.contentHash ?? null, trashId: action.trashId, problem: conflict },
      problem: conflict,
    };
  }
  const write = writeOf(action.path, action.pathKey, entry.content);
  return {
    result: { ...base, status: 'restore', beforeRevision: null, afterRevision: entry.contentHash, trashId: entry.id, ...diffOf(null, entry.content) },
    effect: { kind: 'restore', entry, write },
  };
}

/**
 * Plans a transaction against the current state, without side effects: per action its status, revisions,
 * optional diff, and the problem that would make applying it fail. Pure, so that preview and apply share it.
 */
export function planTransaction(
  actions: readonly CanonicalAction[],
  state: PlanState,
  mode: PlanMode,
  options: { withDiff: boolean },
): PlannedAction[] {
  return actions.map((action, index) => planOne(action, index, state, mode, options.withDiff));
}
