import type { AnyOperation } from './operation.ts';

/** find_related, get_relationship_explanation and get_contradictions: listed here once each works. */
export const RELATION_OPERATIONS: readonly AnyOperation[] = [];
