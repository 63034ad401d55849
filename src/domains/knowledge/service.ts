import type { Database, Sql } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { compileBacklog } from './backlog.ts';
import type { ScopeSlice } from '../scopes/index.ts';
import type { Commitment, Decision, KnowledgeChangeEvent, Question } from './contract.ts';
import { readChanges } from './change-reads.ts';
import { readContradictions, type ContradictionsRequest } from './contradiction-reads.ts';
import { readDecisionEvidence, type DecisionEvidence } from './evidence-reads.ts';
import type { KnowledgePage, PageRequest } from './page.ts';
import { readCommitments, readDecisions, readQuestions, type DecisionStatusFilter } from './record-reads.ts';
import type { KnowledgeChange } from './records.ts';
import { reviewDecision, reviewHistory, type DecisionReviewInput, type ReviewHistoryEntry } from './reviews.ts';
import { readTemporal, type TemporalAnswer, type TemporalRequest } from './temporal-reads.ts';
import { recompile } from './recompile.ts';
import type { RelatedPage, RelationshipExplanation, Tension } from './relation-contract.ts';
import { explainRelationship, type ExplanationRequest } from './relation-explanation.ts';
import { readRelated, type RelatedRequest } from './relation-reads.ts';
import * as store from './store.ts';

/** A note as a change left it at one path: its new revision and content, or null when it is gone from there. */
export interface NoteTransition {
  path: string;
  after: { revision: string; content: string } | null;
}

/** Keeping a vault's knowledge records in step with its notes (docs/knowledge.md). */
export interface KnowledgeService {
  /**
   * Compiles the notes a change left (in the transaction of that change, under the vault's lock), stores their
   * records, record versions and the change events they imply, and receipts the first sighting of each new
   * revision. A revision a note was already compiled at changes nothing and yields no events. Returns the events.
   */
  recordChanges(sql: Sql, vaultId: string, transitions: readonly NoteTransition[]): Promise<KnowledgeChange[]>;
  /** recordChanges for one note. */
  recordNote(sql: Sql, vaultId: string, path: string, note: { revision: string; content: string } | null): Promise<KnowledgeChange[]>;
  /**
   * Compiles, a batch at a time under each vault's lock, notes that were stored before compilation existed or
   * compiled by older rules, until none is left or `shouldStop` says so. Their versions are known from their
   * revision's receipt, or from nothing (content from before receipts). Returns the notes and records compiled.
   */
  compileBacklog(db: Database, shouldStop?: () => boolean): Promise<{ notes: number; records: number }>;
  /** When this replica first saw the note at `revision` (its observation receipt); undefined when it never did. */
  firstSeen(sql: Sql, vaultId: string, path: string, revision: string): Promise<Date | undefined>;

  // Reads: each in a slice of a vault that the caller's context scope admits now (scopes.authorize).

  /** Decisions by status (default: confirmed, superseded, candidates), each labelled with what a person decided. */
  decisions(slice: ScopeSlice, request: PageRequest & { statuses?: DecisionStatusFilter; recordId?: string }): Promise<KnowledgePage<Decision>>;
  /** Commitments, soonest due first: open ones unless `includeClosed`; of one owner, due by a date, if given. */
  commitments(slice: ScopeSlice, request: PageRequest & { includeClosed?: boolean; owner?: string; dueBefore?: string }): Promise<KnowledgePage<Commitment>>;
  /** Questions: open ones unless `includeAnswered`. */
  questions(slice: ScopeSlice, request: PageRequest & { includeAnswered?: boolean }): Promise<KnowledgePage<Question>>;
  /** Assertions by temporal mode (docs/knowledge.md, "Temporal reads"). */
  temporal(slice: ScopeSlice, request: TemporalRequest): Promise<TemporalAnswer>;
  /** Knowledge change events after a cursor. */
  changes(slice: ScopeSlice, request: PageRequest & { recordKinds?: ReadonlyArray<KnowledgeChangeEvent['recordKind']> }): Promise<KnowledgePage<KnowledgeChangeEvent>>;
  /** A decision's source block and the blocks it cites, as the notes are now. */
  decisionEvidence(slice: ScopeSlice, recordId: string): Promise<DecisionEvidence>;
  /** A person's verdict on a decision; only a web session may give one (spec 4.3 rule 8). */
  reviewDecision(input: DecisionReviewInput): Promise<Decision>;
  /** The reviews of a decision, newest first. */
  reviewHistory(slice: ScopeSlice, recordId: string): Promise<ReviewHistoryEntry[]>;
  /** The typed relationships of a note (docs/knowledge.md, "Relations and contradictions"); `not_found` outside the slice. */
  related(slice: ScopeSlice, request: RelatedRequest): Promise<RelatedPage>;
  /** Whether a typed relation holds between two notes now, its evidence and the freshness of both. */
  explainRelationship(slice: ScopeSlice, request: ExplanationRequest): Promise<RelationshipExplanation>;
  /** Recorded tensions (contradicts relations) with both sides and their history. */
  contradictions(slice: ScopeSlice, request: ContradictionsRequest): Promise<KnowledgePage<Tension>>;
}

/** Builds the knowledge service over `db`; `clock` dates receipts, record versions, change events and reviews. */
export function createKnowledgeService(db: Database, clock: Clock): KnowledgeService {
  const recordChanges: KnowledgeService['recordChanges'] = async (sql, vaultId, transitions) => {
    if (transitions.length === 0) return [];
    // One transition per path: the last one says how the change left it.
    const last = new Map(transitions.map((t) => [t.path, t]));
    const at = clock.now();
    const before = await store.loadCompiled(sql, vaultId, [...last.keys()]);
    const notes: store.NoteRecompiled[] = [];
    for (const { path, after } of last.values()) {
      const recompiled = recompile(path, before.get(path), after, at);
      if (recompiled) notes.push(recompiled);
    }
    const observed = [...last.values()].flatMap((t) => (t.after ? [{ path: t.path, revision: t.after.revision }] : []));
    await store.writeCompiled(sql, { vaultId, at, observed, notes });
    return notes.flatMap((n) => n.changes);
  };
  return {
    recordChanges,
    recordNote: (sql, vaultId, path, note) => recordChanges(sql, vaultId, [{ path, after: note }]),
    compileBacklog: (database, shouldStop) => compileBacklog(database, clock, shouldStop),
    firstSeen: (sql, vaultId, path, revision) => store.firstSeen(sql, vaultId, path, revision),
    decisions: (slice, request) => readDecisions(db, slice, request),
    commitments: (slice, request) => readCommitments(db, slice, request),
    questions: (slice, request) => readQuestions(db, slice, request),
    temporal: (slice, request) => readTemporal(db, slice, request),
    changes: (slice, request) => readChanges(db, slice, request),
    decisionEvidence: (slice, recordId) => readDecisionEvidence(db, slice, recordId),
    reviewDecision: (input) => reviewDecision(db, clock, input),
    reviewHistory: (slice, recordId) => reviewHistory(db, slice, recordId),
    related: (slice, request) => readRelated(db, slice, request),
    explainRelationship: (slice, request) => explainRelationship(db, slice, request),
    contradictions: (slice, request) => readContradictions(db, slice, request),
  };
}
