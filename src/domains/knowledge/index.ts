/**
 * Knowledge: records compiled deterministically from note content (docs/knowledge.md), stored with their change
 * events and observation receipts. Compiling on every applied change, scopes and the read tools follow (issue 15);
 * nothing is published before it works.
 */
export { KNOWLEDGE_COMPILER_VERSION, compileNote, RELATION_KEYS } from './compile.ts';
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
export { createKnowledgeService } from './service.ts';
export type { KnowledgeService, NoteTransition } from './service.ts';
