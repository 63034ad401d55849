/**
 * Knowledge: records compiled deterministically from note content at every applied change (docs/knowledge.md),
 * stored with their versions, change events and observation receipts; people's reviews of decisions; and the
 * bounded reads the knowledge tools and pages answer from, each in a context scope's slice.
 */
export { KNOWLEDGE_COMPILER_VERSION, compileNote, RELATION_KEYS } from './compile.ts';
export { knowledgeChanges } from './changes.ts';
export {
  CommitmentSchema,
  DecisionReviewSchema,
  DecisionSchema,
  EvidenceSchema,
  KnowledgeChangeEventSchema,
  QuestionSchema,
  TemporalRecordSchema,
  UnavailableRecordSchema,
} from './contract.ts';
export type { Commitment, Decision, KnowledgeChangeEvent, Question, TemporalRecord } from './contract.ts';
export { MAX_EVIDENCE_CITATIONS, MAX_EVIDENCE_TEXT } from './evidence-reads.ts';
export type { Citation, DecisionEvidence, SourceBlock } from './evidence-reads.ts';
export { DEFAULT_KNOWLEDGE_LIMIT, MAX_KNOWLEDGE_LIMIT, decodeCursor, encodeCursor, limitOf, pageOf } from './page.ts';
export type { KnowledgePage, PageRequest } from './page.ts';
export type { DecisionStatusFilter } from './record-reads.ts';
export type {
  AssertionRecord,
  CommitmentRecord,
  DecisionRecord,
  DecisionStatus,
  Evidence,
  KnowledgeChange,
  KnowledgeRecord,
  QuestionRecord,
  RelationRecord,
} from './records.ts';
export { MAX_REVIEW_COMMENT } from './reviews.ts';
export type { DecisionReviewInput, ReviewHistoryEntry } from './reviews.ts';
export { MAX_TENSION_HISTORY } from './contradiction-reads.ts';
export type { ContradictionsRequest } from './contradiction-reads.ts';
export { LEXICAL_THRESHOLD } from './lexical.ts';
export {
  NoteFreshnessSchema,
  RELATION_TYPES,
  RelatedNoteSchema,
  RelatedPageSchema,
  RelationEvidenceSchema,
  RelationTypeSchema,
  RelationshipExplanationSchema,
  TensionSchema,
} from './relation-contract.ts';
export type { RelatedNote, RelatedPage, RelationType, RelationshipExplanation, Tension } from './relation-contract.ts';
export type { ExplanationRequest } from './relation-explanation.ts';
export { MAX_DERIVED_VIAS } from './relation-reads.ts';
export type { RelatedRequest } from './relation-reads.ts';
export { createKnowledgeService } from './service.ts';
export type { KnowledgeService, NoteTransition } from './service.ts';
export { inSlice, sliceCondition } from './slice.ts';
export type { TemporalAnswer, TemporalMode, TemporalRequest, UnavailableAssertion } from './temporal-reads.ts';
