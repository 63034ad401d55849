import type { ErrorCode } from '../../kernel/error-codes.ts';
import { contentHash } from '../../kernel/hashing.ts';
import type { NoteWrite, StoredNote } from './store.ts';
import { noteTitle } from './title.ts';
import type { TrashEntry } from './trash-store.ts';
import type { ActionResult, MoveNoteAction, NoteAction } from './transaction-contract.ts';

/**
 * An action whose paths are already canonical (NFC), with their uniqueness keys. A write may carry its row made
 * ahead (hash, title and Markdown model), so that an apply does that work before it takes the vault's lock.
 */
export type CanonicalAction =
  | (Extract<NoteAction, { type: 'write-note' }> & { pathKey: string; prepared?: NoteWrite })
  | (Exclude<NoteAction, MoveNoteAction | { type: 'write-note' }> & { pathKey: string })
  | (MoveNoteAction & { pathKey: string; newPathKey: string });

/** A stored link (a row of note_links) that may have to follow a move, with the id and path of its note. */
export interface CandidateLink {
  noteId: string;
  /** The linking note's stored path. */
  path: string;
  /** The target as written (the path part), and the lower-cased file name it names. */
  target: string;
  nameKey: string;
}

/** What planning a link rewrite needs; loaded only when a move-note asks for `rewriteLinks`. */
export interface LinkRewriteState {
  /** Every note path of the vault before the transaction. */
  paths: readonly string[];
  /** Stored links that name a moved note's file name, before or after its move (at most the bound). */
  candidates: readonly CandidateLink[];
  /** True when more such links exist than were read: the rewrite cannot be complete, so it is refused. */
  candidatesTruncated: boolean;
  /**
   * Whole notes whose links change, by id. Undefined in the first planning pass, which finds them from the stored
   * links; the second pass rewrites their content.
   */
  loaded?: ReadonlyMap<string, StoredNote>;
}

/** What the vault holds for the paths and trash ids a transaction touches. */
export interface PlanState {
  notes: ReadonlyMap<string, StoredNote>;
  trash: ReadonlyMap<string, TrashEntry>;
  links?: LinkRewriteState;
}

/** The change an action makes when applied. */
export type Effect =
  | { kind: 'write'; write: NoteWrite; before: StoredNote | undefined }
  | { kind: 'delete'; note: StoredNote; trashId: string }
  | { kind: 'restore'; entry: TrashEntry; write: NoteWrite }
  /** `write` is the note at its new path, with its links rewritten when a rewrite changed them. */
  | { kind: 'move'; note: StoredNote; write: NoteWrite }
  /** Another note whose links a move rewrites. */
  | { kind: 'rewrite'; note: StoredNote; write: NoteWrite };

/** A problem that makes applying fail. */
export interface PlanProblem {
  code: ErrorCode;
  detail: string;
  /** What the refusal's details add (a target's problem names the target, and the lines of ambiguous matches). */
  details?: Record<string, unknown>;
}

/** One planned action: its result for the caller, and its effect (absent for no-ops and conflicts). */
export interface PlannedAction {
  result: ActionResult;
  effect?: Effect;
  problem?: PlanProblem;
}

/** Previews may leave out expected hashes (and learn them from `beforeRevision`); applying may not. */
export type PlanMode = 'preview' | 'apply';

/** The row to write for `content` at `path`. */
export function writeOf(path: string, pathKey: string, content: string): NoteWrite {
  return { path, pathKey, content, contentHash: contentHash(content), size: Buffer.byteLength(content, 'utf8'), title: noteTitle(path, content) };
}
