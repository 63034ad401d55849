/**
 * Knowledge: records compiled deterministically from note content (docs/knowledge.md). Only the pure compiler and
 * its change events exist so far; storage, scopes and the read tools follow (issue 15), and nothing is published
 * before it works.
 */
export { compileNote, RELATION_KEYS } from './compile.ts';
export { knowledgeChanges } from './changes.ts';
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
