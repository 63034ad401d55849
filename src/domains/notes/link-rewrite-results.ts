import { unifiedDiff } from './diff.ts';
import type { SimNote } from './link-rewrite-replay.ts';
import { writeOf, type CanonicalAction, type PlannedAction } from './plan-model.ts';
import type { ActionResult } from './transaction-contract.ts';

/** Puts the rewritten content of moved notes, and their link counts, into their effect and result. */
export function finishMoves(actions: readonly CanonicalAction[], out: PlannedAction[], simOf: ReadonlyMap<number, SimNote>, withDiff: boolean): void {
  actions.forEach((action, index) => {
    const planned = out[index]!;
    const sim = simOf.get(index)!;
    if (action.type !== 'move-note' || planned.effect?.kind !== 'move') return;
    const counts = action.rewriteLinks || sim.linksRewritten + sim.linksSkipped > 0 ? { linksRewritten: sim.linksRewritten, linksSkipped: sim.linksSkipped } : {};
    const { note, write } = planned.effect;
    if (sim.content === write.content) {
      out[index] = { ...planned, result: { ...planned.result, ...counts } };
      return;
    }
    const rewrittenWrite = writeOf(write.path, write.pathKey, sim.content);
    const diff = withDiff ? unifiedDiff(note.path, note.content, sim.content, write.path) : {};
    out[index] = {
      ...planned,
      result: { ...planned.result, afterRevision: rewrittenWrite.contentHash, ...diff, ...counts },
      effect: { kind: 'move', note, write: rewrittenWrite },
    };
  });
}

/** One `rewrite-links` entry per other note whose links the moves rewrite, by the move that first did, then path. */
export function rewriteEntries(rewritten: Iterable<SimNote>, withDiff: boolean): PlannedAction[] {
  return [...rewritten]
    .map((sim) => rewriteEntry(sim, withDiff))
    .sort((a, b) => a.result.index - b.result.index || (a.result.path < b.result.path ? -1 : a.result.path > b.result.path ? 1 : 0));
}

/** The result (and effect) of another note whose links the moves rewrite. */
function rewriteEntry(sim: SimNote, withDiff: boolean): PlannedAction {
  const note = sim.stored!;
  const write = writeOf(note.path, note.pathKey, sim.content);
  const changed = write.contentHash !== note.contentHash;
  const result: ActionResult = {
    index: sim.index,
    type: 'rewrite-links',
    path: note.path,
    status: changed ? 'update' : 'no-op',
    beforeRevision: note.contentHash,
    afterRevision: write.contentHash,
    ...(withDiff ? unifiedDiff(note.path, note.content, sim.content) : {}),
    linksRewritten: sim.linksRewritten,
    linksSkipped: sim.linksSkipped,
  };
  return changed ? { result, effect: { kind: 'rewrite', note, write } } : { result };
}
