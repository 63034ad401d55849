import { retargetLinks, type LinkRewrite } from '../markdown/index.ts';
import { unnamedCandidates } from './link-rewrite-candidates.ts';
import type { LinkRewriteReplay, MoveStep, SimNote } from './link-rewrite-replay.ts';
import type { PlanProblem } from './plan-model.ts';
import { MAX_LINK_REWRITE_NOTES } from './transaction-contract.ts';

/** A note's new content under one move. */
interface NoteRewrite {
  sim: SimNote;
  content: string;
  changed: number;
  skipped: number;
}

/** What one move's rewrite would do, before it is bounded or refused. */
interface MoveRewrite {
  /** Notes it may change, with their new content. */
  changes: NoteRewrite[];
  /** Notes it would change that other actions act on, as named in the conflict. */
  blocked: string[];
  /** Notes it changes that must be loaded first (see UnnamedCandidates). */
  newlyUnloaded: string[];
}

/**
 * Rewrites every note whose links this move changes, and records the notes still to load; a problem instead,
 * with nothing changed, when it may not: `conflict` when a note another action acts on would change,
 * `invalid_request` when more than MAX_LINK_REWRITE_NOTES notes would be rewritten.
 */
export function rewriteLinksOfMove(replay: LinkRewriteReplay, step: MoveStep): PlanProblem | undefined {
  const rewrite = computeMoveRewrite(replay, step);
  const refusal = refusalOf(replay, rewrite);
  if (refusal) return refusal;
  commitMoveRewrite(replay, rewrite);
  return undefined;
}

/** The rewrite of every note the move may change: those the actions name, those rewritten before, candidates. */
function computeMoveRewrite(replay: LinkRewriteReplay, step: MoveStep): MoveRewrite {
  const { loaded, newlyUnloaded } = unnamedCandidates(replay, step);
  const rewrite: MoveRewrite = { changes: [], blocked: [], newlyUnloaded };
  for (const sim of [...replay.named.all, ...replay.rewritten.values(), ...loaded]) {
    if (sim.path === null) continue;
    // The moved note's links are read as from where it was; the move itself takes them to its new folder.
    const result = retargetNote(replay, step, sim, sim === step.moved ? step.move.from : sim.path);
    if (!result) continue;
    if (sim.rewritable) rewrite.changes.push({ sim, content: result.content, changed: result.changed, skipped: result.skipped });
    else if (result.changed > 0) rewrite.blocked.push(`${sim.path} (action ${sim.index})`);
  }
  return rewrite;
}

/** One note's links under the move, read as the note at `sourcePath`; undefined when the move touches none. */
function retargetNote(replay: LinkRewriteReplay, step: MoveStep, sim: SimNote, sourcePath: string): LinkRewrite | undefined {
  const { model, names } = replay.parse(sim.content);
  if (sim !== step.moved && ![...names].some((name) => step.movedNames.has(name))) return undefined;
  const result = retargetLinks(sim.content, model, { ...step.move, sourcePath });
  return result.changed === 0 && result.skipped === 0 ? undefined : result;
}

/** Why the rewrite may not happen: notes other actions act on would change, or too many notes would. */
function refusalOf(replay: LinkRewriteReplay, rewrite: MoveRewrite): PlanProblem | undefined {
  if (rewrite.blocked.length > 0) {
    return {
      code: 'conflict',
      detail: `The link rewrite would change notes that other actions of this transaction act on: ${rewrite.blocked.join(', ')}. Write their new links in those actions, or move in a separate transaction.`,
    };
  }
  const { storedIds } = replay.named;
  const fresh = rewrite.changes.filter((c) => c.sim.stored && !storedIds.has(c.sim.stored.id) && !replay.rewritten.has(c.sim.stored.id)).length;
  if (replay.rewritten.size + replay.unloaded.size + fresh + rewrite.newlyUnloaded.length > MAX_LINK_REWRITE_NOTES) {
    return {
      code: 'invalid_request',
      detail: `The moves would rewrite the links of more than ${MAX_LINK_REWRITE_NOTES} notes; at most ${MAX_LINK_REWRITE_NOTES} per transaction. Move without rewriteLinks, or move fewer notes at once.`,
    };
  }
  return undefined;
}

/** Applies the rewrite to the replay: new contents and counts, notes rewritten, notes to load. */
function commitMoveRewrite(replay: LinkRewriteReplay, rewrite: MoveRewrite): void {
  for (const { sim, content, changed, skipped } of rewrite.changes) {
    sim.content = content;
    sim.linksRewritten += changed;
    sim.linksSkipped += skipped;
    if (sim.stored && !replay.named.storedIds.has(sim.stored.id)) replay.rewritten.set(sim.stored.id, sim);
  }
  for (const noteId of rewrite.newlyUnloaded) replay.unloaded.add(noteId);
}
