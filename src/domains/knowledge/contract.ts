import { z } from 'zod';

// The shapes knowledge reads answer with (docs/knowledge.md). Times are ISO 8601 strings; dates a note states
// (decided, due, valid from) stay as written there, YYYY-MM-DD.

const Timestamp = z.iso.datetime();
const NoteDate = z.string().describe('A date as the note states it, YYYY-MM-DD');

/** Where a record comes from, in the note as it is now. */
export const EvidenceSchema = z.object({
  path: z.string().describe('The note'),
  revision: z.string().describe('The note revision the record was compiled from (its current revision)'),
  lines: z.array(z.number().int().positive()).length(2).describe('First and last line, 1-based, inclusive'),
  blockId: z.string().optional().describe('The block id (^id) at its end, when there is one'),
});

/** When this replica came to know a record's current version; null for content stored before receipts existed. */
const KnownFrom = Timestamp.nullable().describe(
  "When this replica first stored the change that made this version (its observation receipt); null when the content was stored before receipts existed, so its earlier availability is unknown",
);

/** A person's latest review of a decision. */
export const DecisionReviewSchema = z.object({
  verdict: z.enum(['confirmed', 'rejected', 'superseded']),
  reviewedAt: Timestamp,
  comment: z.string(),
  supersededBy: z.string().nullable().describe('The id of the decision that supersedes it (verdict superseded)'),
});

/** A decision: confirmed, rejected or superseded by a person, or a candidate found in a note that no person reviewed. */
export const DecisionSchema = z.object({
  id: z.string(),
  title: z.string(),
  status: z
    .enum(['confirmed', 'superseded', 'rejected', 'candidate'])
    .describe('What a person decided; candidate: found in a note, not confirmed by anyone (or changed since it was reviewed)'),
  candidate: z.boolean().describe('True for a draft found in a note: not a decision of the team until a person confirms it'),
  statusInNote: z.enum(['proposed', 'accepted', 'rejected', 'superseded', 'deprecated']).describe('What the note says; not authority'),
  subject: z.string().nullable(),
  decided: NoteDate.nullable(),
  validFrom: NoteDate.nullable().describe('Start of validity: the note\'s valid_from, else its decided date'),
  validUntil: z.string().nullable().describe("End of validity: the note's valid_until, else when a person marked it superseded"),
  supersedes: z.array(z.string()).describe('What the note says it supersedes, as written'),
  review: DecisionReviewSchema.nullable().describe('The latest review that still holds; null for a candidate'),
  knownFrom: KnownFrom,
  evidence: EvidenceSchema,
});
/** See DecisionSchema. */
export type Decision = z.infer<typeof DecisionSchema>;

/** A commitment: a task with its owner and due date, and where it was written. */
export const CommitmentSchema = z.object({
  id: z.string(),
  text: z.string(),
  closed: z.boolean(),
  owner: z.string().nullable(),
  due: NoteDate.nullable(),
  knownFrom: KnownFrom,
  evidence: EvidenceSchema,
});
/** See CommitmentSchema. */
export type Commitment = z.infer<typeof CommitmentSchema>;

/** An open (or answered) question. */
export const QuestionSchema = z.object({
  id: z.string(),
  text: z.string(),
  answered: z.boolean(),
  knownFrom: KnownFrom,
  evidence: EvidenceSchema,
});
/** See QuestionSchema. */
export type Question = z.infer<typeof QuestionSchema>;

/** One version of an assertion about an entity, with its valid time (the note's) and known time (this replica's). */
export const TemporalRecordSchema = z.object({
  recordId: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  property: z.string(),
  value: z.unknown().describe('The value as the note states it (any YAML value)'),
  validFrom: NoteDate.nullable().describe("The note's valid_from (or as_of): a claim of the author, never proof of when it was known"),
  validUntil: NoteDate.nullable().describe('The next version\'s valid_from, when a later version states one'),
  knownFrom: KnownFrom,
  knownUntil: Timestamp.nullable().describe('When this replica stored the change that ended this version; null while current'),
  current: z.boolean(),
  evidence: EvidenceSchema,
});
/** See TemporalRecordSchema. */
export type TemporalRecord = z.infer<typeof TemporalRecordSchema>;

/** An assertion whose known time this replica cannot establish (content stored before receipts existed). */
export const UnavailableRecordSchema = z.object({
  recordId: z.string(),
  entityType: z.string(),
  entityId: z.string(),
  property: z.string(),
  reason: z.literal('observed_before_receipts'),
});

/** A knowledge change event. */
export const KnowledgeChangeEventSchema = z.object({
  cursor: z.string().describe('Pass as `after` to read the events that follow this one'),
  type: z.enum(['record.added', 'record.removed', 'record.updated', 'decision.status_changed', 'commitment.closed', 'commitment.reopened', 'assertion.superseded']),
  recordId: z.string(),
  recordKind: z.enum(['decision', 'commitment', 'question', 'assertion', 'relation']),
  path: z.string(),
  beforeRevision: z.string().nullable(),
  afterRevision: z.string().nullable(),
  before: z.string().nullable().describe('For a changed status or value: what it was'),
  after: z.string().nullable().describe('For a changed status or value: what it is'),
  recordedAt: Timestamp.describe('When this replica stored the change'),
});
/** See KnowledgeChangeEventSchema. */
export type KnowledgeChangeEvent = z.infer<typeof KnowledgeChangeEventSchema>;
