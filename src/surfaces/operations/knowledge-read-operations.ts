import type { AnyOperation } from './operation.ts';

/** The scope-bound knowledge reads (decisions, evidence, temporal records, changes, questions, commitments, capabilities). */
export const KNOWLEDGE_READ_OPERATIONS: readonly AnyOperation[] = [];
