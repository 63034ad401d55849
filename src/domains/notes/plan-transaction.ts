import type { ErrorCode } from '../../kernel/error-codes.ts';
import { newId } from '../../kernel/ids.ts';
import { unifiedDiff } from './diff.ts';
import { planLinkRewrites } from './plan-link-rewrites.ts';
import { MAX_NOTE_BYTES } from './contract.ts';
import { writeOf, type CanonicalAction, type PlanMode, type PlannedAction, type PlanProblem, type PlanState } from './plan-model.ts';
import type { StoredNote } from './store.ts';
import { applyTarget } from './targets.ts';

export type { CanonicalAction, CandidateLink, Effect, LinkRewriteState, PlanMode, PlannedAction, PlanState } from './plan-model.ts';

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

  if (action.type === 'move-note') return planMove(action, index, state, mode, withDiff);

  if (action.type === 'write-note' && action.target) return planTargeted(action, index, state, mode, withDiff);

  if (action.type === 'write-note') {
    const current = state.notes.get(action.pathKey);
    const problem = checkHash(mode, current, action.expectedHash);
    const write = action.prepared ?? writeOf(action.path, action.pathKey, action.content);
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

type WriteAction = Extract<CanonicalAction, { type: 'write-note' }>;

/**
 * A write of one part of an existing note (targets.ts): resolved against the note as this state holds it (under the
 * vault's lock when applying), then planned as the write of the whole note it makes. It never creates a note.
 */
function planTargeted(action: WriteAction, index: number, state: PlanState, mode: PlanMode, withDiff: boolean): PlannedAction {
  const current = state.notes.get(action.pathKey);
  // The note keeps its own path, which may differ in letter case from the requested one: a targeted write never renames.
  const path = current?.path ?? action.path;
  const base = { index, type: action.type, path };
  const beforeRevision = current?.contentHash ?? null;
  let problem: PlanProblem | undefined = current
    ? checkHash(mode, current, action.expectedHash)
    : { code: 'not_found', detail: 'There is no note at this path; a targeted write changes an existing note.' };
  const outcome = current && !problem ? applyTarget(current.content, action.target!, action.content) : undefined;
  if (outcome && !outcome.ok) problem = outcome.problem;
  if (outcome?.ok && Buffer.byteLength(outcome.content, 'utf8') > MAX_NOTE_BYTES) {
    problem = { code: 'payload_too_large', detail: `The note would hold more than ${MAX_NOTE_BYTES} bytes.`, details: { limit: MAX_NOTE_BYTES } };
  }
  if (!current || !outcome?.ok || problem) {
    const conflict = problem!;
    return { result: { ...base, status: 'conflict', beforeRevision, afterRevision: beforeRevision, problem: conflict }, problem: conflict };
  }
  const write = writeOf(current.path, action.pathKey, outcome.content);
  const unchanged = current.contentHash === write.contentHash;
  return {
    result: {
      ...base,
      status: unchanged ? 'no-op' : 'update',
      beforeRevision,
      afterRevision: write.contentHash,
      ...(withDiff ? unifiedDiff(current.path, current.content, outcome.content) : {}),
      ...(mode === 'preview' && withDiff ? { resultContent: outcome.content } : {}),
    },
    ...(unchanged ? {} : { effect: { kind: 'write', write, before: current } }),
  };
}

type MoveAction = Extract<CanonicalAction, { type: 'move-note' }>;

function planMove(action: MoveAction, index: number, state: PlanState, mode: PlanMode, withDiff: boolean): PlannedAction {
  const current = state.notes.get(action.pathKey);
  // The note's own path, which may differ in letter case from the requested one.
  const path = current?.path ?? action.path;
  const base = { index, type: action.type, path, newPath: action.newPath };
  let problem: { code: ErrorCode; detail: string } | undefined = current
    ? checkHash(mode, current, action.expectedHash)
    : { code: 'not_found', detail: 'There is no note at this path.' };
  // Paths are unique up to letter case: only the note itself may hold the new path's key (a case-only rename).
  if (!problem && action.newPathKey !== action.pathKey && state.notes.has(action.newPathKey)) {
    problem = { code: 'conflict', detail: `A note already exists at ${state.notes.get(action.newPathKey)!.path}.` };
  }
  const revision = current?.contentHash ?? null;
  if (!current || problem) {
    const conflict = problem!;
    return { result: { ...base, status: 'conflict', beforeRevision: revision, afterRevision: revision, problem: conflict }, problem: conflict };
  }
  const diff = withDiff ? unifiedDiff(current.path, current.content, current.content, action.newPath) : {};
  if (current.path === action.newPath) {
    return { result: { ...base, status: 'no-op', beforeRevision: revision, afterRevision: revision, ...diff } };
  }
  const write = writeOf(action.newPath, action.newPathKey, current.content);
  return {
    result: { ...base, status: 'move', beforeRevision: revision, afterRevision: write.contentHash, ...diff },
    effect: { kind: 'move', note: current, write },
  };
}

/**
 * Plans a transaction against the current state, without side effects: per action its status, revisions,
 * optional diff, and the problem that would make applying it fail; after them, one entry per other note whose
 * links a move-note rewrites (see plan-link-rewrites.ts). Pure, so that preview and apply share it.
 */
export function planTransaction(
  actions: readonly CanonicalAction[],
  state: PlanState,
  mode: PlanMode,
  options: { withDiff: boolean },
): PlannedAction[] {
  const planned = actions.map((action, index) => planOne(action, index, state, mode, options.withDiff));
  return planLinkRewrites(actions, planned, state, options).planned;
}

/**
 * The ids of the notes whose content the link rewrites of this transaction need, found from the stored links of
 * `state.links` (the first planning pass): the caller loads them into `state.links.loaded` and plans again.
 */
export function notesToRewrite(actions: readonly CanonicalAction[], state: PlanState, mode: PlanMode): Set<string> {
  const planned = actions.map((action, index) => planOne(action, index, state, mode, false));
  return planLinkRewrites(actions, planned, state, { withDiff: false }).needed;
}
