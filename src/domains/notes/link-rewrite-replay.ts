import { parseMarkdown, type LinkMove, type MarkdownModel } from '../markdown/index.ts';
import { targetNameKey } from './note-index.ts';
import type { CandidateLink, CanonicalAction, LinkRewriteState, PlannedAction, PlanState } from './plan-model.ts';
import type { StoredNote } from './store.ts';

/**
 * A note as the rewrite sees it while the transaction's actions are replayed in order: where it is and what it
 * holds at the current step.
 */
export interface SimNote {
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
export interface ParsedLinks {
  model: MarkdownModel;
  names: Set<string>;
}

/** The notes the actions name, as they stand before the first action. */
export interface NamedNotes {
  all: SimNote[];
  /** The note each action names, by action index. */
  byAction: Map<number, SimNote>;
  /** The ids of those that are stored. */
  storedIds: Set<string>;
}

/** What the replay of a transaction's actions keeps as it goes, shared by its steps. */
export interface LinkRewriteReplay {
  links: LinkRewriteState;
  /** Parses a content once, however many moves look at it. */
  parse: (content: string) => ParsedLinks;
  paths: VaultPaths;
  named: NamedNotes;
  /** Stored links that may have to follow a move, by the file name they name. */
  candidatesByName: ReadonlyMap<string, readonly CandidateLink[]>;
  /** Notes no action names whose links change and whose content is known, by id. */
  rewritten: Map<string, SimNote>;
  /** Notes no action names whose links change, known from stored links only: the caller loads them. */
  unloaded: Set<string>;
}

/** The lower-cased file name a link target names (`[[Folder/Name/]]` names `name`). */
function linkNameKey(target: string): string {
  return targetNameKey(target.replace(/[\s/]+$/, ''));
}

/** A parser that remembers each content's model and the file names its links name. */
export function createLinkParser(): (content: string) => ParsedLinks {
  const parsedByContent = new Map<string, ParsedLinks>();
  return (content) => {
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
}

/** The vault's paths, by lower-cased path, each with its file name key, as the replay moves them. */
export class VaultPaths {
  private readonly byKey = new Map<string, { path: string; name: string }>();

  constructor(paths: Iterable<string>) {
    for (const path of paths) this.add(path);
  }

  add(path: string): void {
    this.byKey.set(path.toLowerCase(), { path, name: targetNameKey(path) });
  }

  remove(pathKey: string): void {
    this.byKey.delete(pathKey);
  }

  /** The paths whose file name is one of `names`: all a link resolver asked about those names needs. */
  named(names: ReadonlySet<string>): string[] {
    return [...this.byKey.values()].flatMap((p) => (names.has(p.name) ? [p.path] : []));
  }
}

/**
 * The notes the actions name, as they stand before the first action: the note each action acts on, and for a move
 * refused because its new path is taken, the note there too. Only moves may be rewritten.
 */
export function notesTheActionsName(actions: readonly CanonicalAction[], planned: readonly PlannedAction[], state: PlanState): NamedNotes {
  const named: NamedNotes = { all: [], byAction: new Map(), storedIds: new Set() };
  const track = (sim: SimNote) => {
    named.all.push(sim);
    if (sim.stored) named.storedIds.add(sim.stored.id);
    return sim;
  };
  actions.forEach((action, index) => {
    const effect = planned[index]!.effect;
    const stored = effect?.kind === 'move' || effect?.kind === 'delete' ? effect.note : effect?.kind === 'write' ? effect.before : undefined;
    const note = effect ? stored : state.notes.get(action.pathKey);
    const base = { stored: note, path: note?.path ?? null, content: note?.content ?? '', index, linksRewritten: 0, linksSkipped: 0 };
    named.byAction.set(index, track({ ...base, rewritable: effect?.kind === 'move' }));
    // A move refused because its new path is taken names that note too.
    const occupant = action.type === 'move-note' && !effect ? state.notes.get(action.newPathKey) : undefined;
    if (occupant && occupant.pathKey !== action.pathKey) {
      track({ ...base, stored: occupant, path: occupant.path, content: occupant.content, rewritable: false });
    }
  });
  return named;
}

/** One rewriting move, as the steps that compute its rewrite see it. */
export interface MoveStep {
  /** The move's action index. */
  index: number;
  move: LinkMove;
  /** The name keys of the moved file before and after the move, with their `.md` variants. */
  movedNames: ReadonlySet<string>;
  /** The moved note. */
  moved: SimNote;
}
