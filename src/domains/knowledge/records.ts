/**
 * Knowledge records as compiled from one note (docs/knowledge.md). Pure data: no I/O. A record's id is stable
 * across recompilations of the same content, so that a change to a note yields exactly the change events it
 * implies.
 */

/** Where a record comes from: the note, its revision, the 1-based lines, and the block id when the source has one. */
export interface Evidence {
  path: string;
  revision: string;
  lines: [number, number];
  blockId?: string;
}

/** The status a decision has in its note; only a person confirms it (docs/knowledge.md, "Decisions"). */
export type DecisionStatus = 'proposed' | 'accepted' | 'rejected' | 'superseded' | 'deprecated';

/** A decision written in a note: frontmatter `type: decision`, or a `> [!decision]` callout. */
export interface DecisionRecord {
  kind: 'decision';
  id: string;
  title: string;
  statusInNote: DecisionStatus;
  subject: string | null;
  decided: string | null;
  validFrom: string | null;
  validUntil: string | null;
  /** Targets of `supersedes`, as written (the graph resolves them). */
  supersedes: string[];
  evidence: Evidence;
}

/** A task: `- [ ] text`, with an owner (`owner:: ...`) and a due date (`📅 YYYY-MM-DD` or `due:: YYYY-MM-DD`). */
export interface CommitmentRecord {
  kind: 'commitment';
  id: string;
  text: string;
  closed: boolean;
  owner: string | null;
  due: string | null;
  evidence: Evidence;
}

/** An open question: a `> [!question]` callout, or a note with frontmatter `type: question`. */
export interface QuestionRecord {
  kind: 'question';
  id: string;
  text: string;
  /** A question note with `status: answered` (or `resolved`, `closed`); callouts stay open until removed. */
  answered: boolean;
  evidence: Evidence;
}

/** One property of an entity note (frontmatter `type` and `id`), with the time it is valid from when the note says. */
export interface AssertionRecord {
  kind: 'assertion';
  id: string;
  entityType: string;
  entityId: string;
  property: string;
  /** The value as JSON text, so that any YAML value compares and stores alike. */
  value: string;
  validFrom: string | null;
  evidence: Evidence;
}

/** A typed link from frontmatter: `supersedes`, `contradicts`, `depends_on`, `blocks`, `part_of`, `relates_to`. */
export interface RelationRecord {
  kind: 'relation';
  id: string;
  type: string;
  /** The target as written, without brackets. */
  target: string;
  evidence: Evidence;
}

/** Any record. */
export type KnowledgeRecord = DecisionRecord | CommitmentRecord | QuestionRecord | AssertionRecord | RelationRecord;

/** A change of the records of one note between two revisions, in a deterministic order. */
export interface KnowledgeChange {
  type:
    | 'record.added'
    | 'record.removed'
    | 'record.updated'
    | 'decision.status_changed'
    | 'commitment.closed'
    | 'commitment.reopened'
    | 'assertion.superseded';
  recordId: string;
  recordKind: KnowledgeRecord['kind'];
  path: string;
  beforeRevision: string | null;
  afterRevision: string | null;
  /** For a changed value: what it was and what it is (a status, a value). */
  before?: string;
  after?: string;
}
