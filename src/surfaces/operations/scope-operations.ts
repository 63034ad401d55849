import type { AnyOperation } from './operation.ts';

/** Managing context scopes on the Developer REST API: listed here once each works. */
export const SCOPE_OPERATIONS: readonly AnyOperation[] = [];
