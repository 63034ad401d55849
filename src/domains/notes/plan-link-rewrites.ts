import { createLinkResolver, parseMarkdown, retargetLinks, type LinkMove, type MarkdownModel } from '../markdown/index.ts';
import { unifiedDiff } from './diff.ts';
import { targetNameKey } from './note-index.ts';
import { writeOf, type CandidateLink, type CanonicalAction, type PlannedAction, type PlanProblem, type PlanState } from './plan-model.ts';
import type { StoredNote } from './store.ts';
import { MAX_LINK_REWRITE_CANDIDATES, MAX_LINK_REWRITE_NOTES, type ActionResult } from './transaction-contract.ts';

/**
 * A note as the rewrite sees it while the transaction's actions are replayed in order: where it is and what it
 * holds at the current step.
 */
interface SimNote {
  /** The stored note, if it exists before the transaction. */
  stored: StoredNote | undefined;
  /** Where it is now; null while it does not exist (not created or restored yet, or deleted). */
  path: string | null;
  content: string;
  /**
   * Whether a rewrite may change it: moved notes and notes no action names may; a note another action writes,
   * deletes or restores may not (the transaction is refused instead: that action was planned without the rewrite).
   */
  rewritable: boolean;
  /** The action that names it; for other notes, the first move whose rewrite changed it. */
  index: number;
  linksRewritten: number;
  linksSkipped: number;
}

/** A parsed content and the file names its links name. */
interface Parsed {
  model: MarkdownModel;
  names: Set<string>;
}

/** The lower-cased file name a link target names (`[[Folder/Name/]]` names `name`). */
function linkNameKey(target: string): string {
  return targetNameKey(target.replace(/[\s/]+$/, ''));
}

/** The name keys a path of `name` can be reached by: `x.md.md` is `[[x.md]]`, and `[[x.md]]` may find `x.md.md`. */
function nameVariants(name: string): string[] {
  return name.endsWith('.md') ? [name, `${name}.md`, name.slice(0, -3)] : [name, `${name}.md`];
}

const samePath = (a: string | undefined, b: string) => a !== undefined && a.toLowerCase() === b.toLowerCase();

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
  const needed = new Set<string>();
  const rewriting = actions.some((a, i) => a.type === 'move-note' && a.rewriteLinks && planned[i]!.effect);
  if (!links || !rewriting) return { planned: out, needed };

  const parsedByContent = new Map<string, Parsed>();
  const parse = (content: string): Parsed => {
    let parsed = parsedByContent.get(content);
    if (!parsed) {
      const model = parseMarkdown(content);
      const names = new Set<string>();
      for (const link of model.wikiLinks) names.add(linkNameKey(link.target));
      for (const link of model.links) if (!link.external && link.path !== undefined) names.add(linkNameKey(link.path));
      parsed = { model, names };
      parsedByContent.set(content, parsed);
    }
    return parsed;
  };

  // The vault's paths, by key, each with its file name key, as the replay moves them.
  const paths = new Map<string, { path: string; name: string }>();
  const addPath = (path: string) => paths.set(path.toLowerCase(), { path, name: targetNameKey(path) });
  for (const path of links.paths) addPath(path);
  const pathsNamed = (names: ReadonlySet<string>) => [...paths.values()].flatMap((p) => (names.has(p.name) ? [p.path] : []));

  // The notes the actions name, as they stand before the first action.
  const sims: SimNote[] = [];
  const simOf = new Map<number, SimNote>();
  const simIds = new Set<string>();
  const track = (sim: SimNote) => {
    sims.push(sim);
    if (sim.stored) simIds.add(sim.stored.id);
    return sim;
  };
  actions.forEach((action, index) => {
    const effect = planned[index]!.effect;
    const stored = effect?.kind === 'move' || effect?.kind === 'delete' ? effect.note : effect?.kind === 'write' ? effect.before : undefined;
    const named = effect ? stored : state.notes.get(action.pathKey);
    const base = { stored: named, path: named?.path ?? null, content: named?.content ?? '', index, linksRewritten: 0, linksSkipped: 0 };
    simOf.set(index, track({ ...base, rewritable: effect?.kind === 'move' }));
    // A move refused because its new path is taken names that note too.
    const occupant = action.type === 'move-note' && !effect ? state.notes.get(action.newPathKey) : undefined;
    if (occupant && occupant.pathKey !== action.pathKey) {
      track({ ...base, stored: occupant, path: occupant.path, content: occupant.content, rewritable: false });
    }
  });

  const rowsByName = new Map<string, CandidateLink[]>();
  for (const row of links.candidates) {
    const list = rowsByName.get(row.nameKey);
    if (list) list.push(row);
    else rowsByName.set(row.nameKey, [row]);
  }
  // Notes no action names whose links change: rewritten ones by id, and those known from stored links only.
  const rewritten = new Map<string, SimNote>();
  const unloaded = new Set<string>();

  actions.forEach((action, index) => {
    const effect = out[index]!.effect;
    const sim = simOf.get(index)!;
    if (!effect) return;
    if (effect.kind === 'delete') {
      paths.delete(effect.note.pathKey);
      sim.path = null;
      return;
    }
    if (effect.kind !== 'move') {
      if (effect.kind === 'write' && effect.before) paths.delete(effect.before.pathKey);
      addPath(effect.write.path);
      sim.path = effect.write.path;
      sim.content = effect.write.content;
      return;
    }
    const from = effect.note.path;
    const to = effect.write.path;
    const rewrite = action.type === 'move-note' && action.rewriteLinks;
    const movedNames = new Set([...nameVariants(targetNameKey(from)), ...nameVariants(targetNameKey(to))]);
    // A resolver needs only the files of the names it is asked about, so a move builds two small ones: for the
    // names of the moved file, and of every link of the moved note (whose own links are resolved from a new folder).
    const names = new Set(movedNames);
    if (rewrite) for (const name of parse(sim.content).names) for (const variant of nameVariants(name)) names.add(variant);
    const before = rewrite ? pathsNamed(names) : [];
    paths.delete(effect.note.pathKey);
    addPath(to);
    sim.path = to;
    if (!rewrite) return;
    const move: LinkMove = { sourcePath: from, from, to, before: createLinkResolver(before), after: createLinkResolver(pathsNamed(names)) };
    const problem = links.candidatesTruncated
      ? {
          code: 'invalid_request' as const,
          detail: `More than ${MAX_LINK_REWRITE_CANDIDATES} stored links name the moved notes' file names, so the links to rewrite cannot all be found. Move without rewriteLinks.`,
        }
      : rewriteFor(index, move, movedNames, sim);
    if (problem) out[index] = { result: { ...out[index]!.result, status: 'conflict', problem }, problem };
  });

  /** Rewrites every note whose links this move changes; a problem instead when it may not. */
  function rewriteFor(index: number, move: LinkMove, movedNames: ReadonlySet<string>, moved: SimNote): PlanProblem | undefined {
    const changes: Array<{ sim: SimNote; content: string; changed: number; skipped: number }> = [];
    const blocked: string[] = [];
    const consider = (sim: SimNote, sourcePath: string) => {
      const { model, names } = parse(sim.content);
      if (sim !== moved && ![...names].some((name) => movedNames.has(name))) return;
      const result = retargetLinks(sim.content, model, { ...move, sourcePath });
      if (result.changed === 0 && result.skipped === 0) return;
      if (sim.rewritable) changes.push({ sim, content: result.content, changed: result.changed, skipped: result.skipped });
      else if (result.changed > 0) blocked.push(`${sim.path} (action ${sim.index})`);
    };
    for (const sim of [...sims, ...rewritten.values()]) {
      if (sim.path !== null) consider(sim, sim === moved ? move.from : sim.path);
    }
    const newlyUnloaded: string[] = [];
    for (const [noteId, rows] of candidatesOf(movedNames)) {
      if (simIds.has(noteId) || rewritten.has(noteId)) continue;
      const note = links!.loaded?.get(noteId);
      if (note) {
        consider({ stored: note, path: note.path, content: note.content, rewritable: true, index, linksRewritten: 0, linksSkipped: 0 }, note.path);
      } else if (!unloaded.has(noteId) && rows.some((row) => linkMoves(row, move))) {
        newlyUnloaded.push(noteId);
      }
    }
    if (blocked.length > 0) {
      return {
        code: 'conflict',
        detail: `The link rewrite would change notes that other actions of this transaction act on: ${blocked.join(', ')}. Write their new links in those actions, or move in a separate transaction.`,
      };
    }
    const fresh = changes.filter((c) => c.sim.stored && !simIds.has(c.sim.stored.id) && !rewritten.has(c.sim.stored.id)).length;
    if (rewritten.size + unloaded.size + fresh + newlyUnloaded.length > MAX_LINK_REWRITE_NOTES) {
      return {
        code: 'invalid_request',
        detail: `The moves would rewrite the links of more than ${MAX_LINK_REWRITE_NOTES} notes; at most ${MAX_LINK_REWRITE_NOTES} per transaction. Move without rewriteLinks, or move fewer notes at once.`,
      };
    }
    for (const { sim, content, changed, skipped } of changes) {
      sim.content = content;
      sim.linksRewritten += changed;
      sim.linksSkipped += skipped;
      if (sim.stored && !simIds.has(sim.stored.id)) rewritten.set(sim.stored.id, sim);
    }
    for (const noteId of newlyUnloaded) {
      unloaded.add(noteId);
      needed.add(noteId);
    }
    return undefined;
  }

  /** The stored links naming these file names, grouped by note (notes the actions name included). */
  function candidatesOf(movedNames: ReadonlySet<string>): Map<string, CandidateLink[]> {
    const byNote = new Map<string, CandidateLink[]>();
    for (const name of movedNames) {
      for (const row of rowsByName.get(name) ?? []) {
        const list = byNote.get(row.noteId);
        if (list) list.push(row);
        else byNote.set(row.noteId, [row]);
      }
    }
    return byNote;
  }

  finishMoves(actions, out, simOf, options.withDiff);
  const entries = [...rewritten.values()]
    .map((sim) => rewriteEntry(sim, options.withDiff))
    .sort((a, b) => a.result.index - b.result.index || (a.result.path < b.result.path ? -1 : a.result.path > b.result.path ? 1 : 0));
  return { planned: [...out, ...entries], needed };
}

/** Whether a stored link would change under `move`: the test retargetLinks makes, on the stored target. */
function linkMoves(row: CandidateLink, move: LinkMove): boolean {
  if (row.target === '') return false;
  const was = move.before.resolve(row.target, row.path);
  if (was === undefined) return false;
  const want = samePath(was, move.from) ? move.to : was;
  return !samePath(move.after.resolve(row.target, row.path), want);
}

/** Puts the rewritten content of moved notes into their effect and result. */
function finishMoves(actions: readonly CanonicalAction[], out: PlannedAction[], simOf: ReadonlyMap<number, SimNote>, withDiff: boolean): void {
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
