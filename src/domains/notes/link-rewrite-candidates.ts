import type { LinkMove } from '../markdown/index.ts';
import type { LinkRewriteReplay, MoveStep, SimNote } from './link-rewrite-replay.ts';
import type { CandidateLink } from './plan-model.ts';

/** Notes no action names that a move's rewrite may change. */
export interface UnnamedCandidates {
  /** Those whose content is loaded: their links are rewritten from it. */
  loaded: SimNote[];
  /** Ids of those not loaded yet (nor asked for before) whose stored links show that the move changes them. */
  newlyUnloaded: string[];
}

/** The stored links, grouped by the file name they name. */
export function groupByName(candidates: readonly CandidateLink[]): Map<string, CandidateLink[]> {
  return groupBy(candidates, (row) => row.nameKey);
}

/**
 * Finds the notes, other than those the actions name or earlier moves rewrote, that a move's rewrite may change:
 * those with stored links naming the moved file's name before or after the move.
 */
export function unnamedCandidates(replay: LinkRewriteReplay, step: MoveStep): UnnamedCandidates {
  const found: UnnamedCandidates = { loaded: [], newlyUnloaded: [] };
  for (const [noteId, rows] of linksByNote(replay.candidatesByName, step.movedNames)) {
    if (replay.named.storedIds.has(noteId) || replay.rewritten.has(noteId)) continue;
    const note = replay.links.loaded?.get(noteId);
    if (note) {
      found.loaded.push({ stored: note, path: note.path, content: note.content, rewritable: true, index: step.index, linksRewritten: 0, linksSkipped: 0 });
    } else if (!replay.unloaded.has(noteId) && rows.some((row) => linkMoves(row, step.move))) {
      found.newlyUnloaded.push(noteId);
    }
  }
  return found;
}

/** The stored links naming these file names, grouped by note (notes the actions name included). */
function linksByNote(byName: ReadonlyMap<string, readonly CandidateLink[]>, movedNames: ReadonlySet<string>): Map<string, CandidateLink[]> {
  return groupBy(
    [...movedNames].flatMap((name) => byName.get(name) ?? []),
    (row) => row.noteId,
  );
}

/** Rows grouped by a key, groups and rows in the order met. */
function groupBy<T>(rows: Iterable<T>, keyOf: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const key = keyOf(row);
    const list = groups.get(key);
    if (list) list.push(row);
    else groups.set(key, [row]);
  }
  return groups;
}

const samePath = (a: string | undefined, b: string) => a !== undefined && a.toLowerCase() === b.toLowerCase();

/** Whether a stored link would change under `move`: the test retargetLinks makes, on the stored target. */
function linkMoves(row: CandidateLink, move: LinkMove): boolean {
  if (row.target === '') return false;
  const was = move.before.resolve(row.target, row.path);
  if (was === undefined) return false;
  const want = samePath(was, move.from) ? move.to : was;
  return !samePath(move.after.resolve(row.target, row.path), want);
}
