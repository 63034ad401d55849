import { createLinkResolver, type LinkMove } from '../markdown/index.ts';
import { groupByName } from './link-rewrite-candidates.ts';
import { createLinkParser, notesTheActionsName, VaultPaths, type LinkRewriteReplay, type SimNote } from './link-rewrite-replay.ts';
import { finishMoves, rewriteEntries } from './link-rewrite-results.ts';
import { targetNameKey } from './note-index.ts';
import type { CanonicalAction, Effect, PlannedAction, PlanProblem, PlanState } from './plan-model.ts';
import { rewriteLinksOfMove } from './rewrite-move-links.ts';
import { MAX_LINK_REWRITE_CANDIDATES } from './transaction-contract.ts';

/** The result of planning the link rewrites: the plan with rewrite entries, and the notes it needs loaded. */
export interface LinkRewritePlan {
  planned: PlannedAction[];
  needed: Set<string>;
}

/**
 * Rewrites the links that the transaction's moves would break, for each move-note with `rewriteLinks`, by
 * replaying the actions in order over the vault's paths: each move's rewrite sees the paths as the actions before
 * it left them. A note's links are rewritten when they resolved (Obsidian rules) to the moved note, or would now
 * resolve to it instead of the note they meant; the moved note's own links follow it to its new folder. Moved notes
 * may be rewritten by other moves too. A note another action writes, deletes or restores is never rewritten: if a
 * rewrite would change it, that move gets a `conflict` problem. More than MAX_LINK_REWRITE_NOTES rewritten notes,
 * or more candidate links than were read, give `invalid_request`. A move with a problem rewrites nothing.
 *
 * Candidates other than the actions' own notes come from the stored links naming the moved file's name before or
 * after the move. Until their content is loaded (`state.links.loaded`), the stored links decide whether a note
 * changes, and its id is returned in `needed`.
 */
export function planLinkRewrites(
  actions: readonly CanonicalAction[],
  planned: readonly PlannedAction[],
  state: PlanState,
  options: { withDiff: boolean },
): LinkRewritePlan {
  const links = state.links;
  const out = [...planned];
  const rewriting = actions.some((a, i) => a.type === 'move-note' && a.rewriteLinks && planned[i]!.effect);
  if (!links || !rewriting) return { planned: out, needed: new Set() };

  const replay: LinkRewriteReplay = {
    links,
    parse: createLinkParser(),
    paths: new VaultPaths(links.paths),
    named: notesTheActionsName(actions, planned, state),
    candidatesByName: groupByName(links.candidates),
    rewritten: new Map(),
    unloaded: new Set(),
  };
  actions.forEach((action, index) => {
    const effect = out[index]!.effect;
    if (!effect) return;
    const problem = replayAction(replay, action, index, effect);
    if (problem) out[index] = { result: { ...out[index]!.result, status: 'conflict', problem }, problem };
  });

  finishMoves(actions, out, replay.named.byAction, options.withDiff);
  return { planned: [...out, ...rewriteEntries(replay.rewritten.values(), options.withDiff)], needed: replay.unloaded };
}

/** One action's step of the replay: the paths and the named note as it leaves them; a rewriting move's problem. */
function replayAction(replay: LinkRewriteReplay, action: CanonicalAction, index: number, effect: Effect): PlanProblem | undefined {
  const sim = replay.named.byAction.get(index)!;
  if (effect.kind === 'delete') {
    replay.paths.remove(effect.note.pathKey);
    sim.path = null;
    return undefined;
  }
  if (effect.kind !== 'move') {
    if (effect.kind === 'write' && effect.before) replay.paths.remove(effect.before.pathKey);
    replay.paths.add(effect.write.path);
    sim.path = effect.write.path;
    sim.content = effect.write.content;
    return undefined;
  }
  return replayMove(replay, action, index, effect, sim);
}

/** A move's step: the moved note takes its new path, and with `rewriteLinks`, the links it breaks are rewritten. */
function replayMove(
  replay: LinkRewriteReplay,
  action: CanonicalAction,
  index: number,
  effect: Extract<Effect, { kind: 'move' }>,
  sim: SimNote,
): PlanProblem | undefined {
  const from = effect.note.path;
  const to = effect.write.path;
  const rewrite = action.type === 'move-note' && action.rewriteLinks;
  const movedNames = new Set([...nameVariants(targetNameKey(from)), ...nameVariants(targetNameKey(to))]);
  // A resolver needs only the files of the names it is asked about, so a move builds two small ones: for the
  // names of the moved file, and of every link of the moved note (whose own links are resolved from a new folder).
  const names = new Set(movedNames);
  if (rewrite) for (const name of replay.parse(sim.content).names) for (const variant of nameVariants(name)) names.add(variant);
  const before = rewrite ? replay.paths.named(names) : [];
  replay.paths.remove(effect.note.pathKey);
  replay.paths.add(to);
  sim.path = to;
  if (!rewrite) return undefined;
  const move: LinkMove = { sourcePath: from, from, to, before: createLinkResolver(before), after: createLinkResolver(replay.paths.named(names)) };
  if (replay.links.candidatesTruncated) {
    return {
      code: 'invalid_request',
      detail: `More than ${MAX_LINK_REWRITE_CANDIDATES} stored links name the moved notes' file names, so the links to rewrite cannot all be found. Move without rewriteLinks.`,
    };
  }
  return rewriteLinksOfMove(replay, { index, move, movedNames, moved: sim });
}

/** The name keys a path of `name` can be reached by: `x.md.md` is `[[x.md]]`, and `[[x.md]]` may find `x.md.md`. */
function nameVariants(name: string): string[] {
  return name.endsWith('.md') ? [name, `${name}.md`, name.slice(0, -3)] : [name, `${name}.md`];
}
