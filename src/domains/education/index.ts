/**
 * The education domain (issue 20, docs/education.md): one module per endpoint family. Other modules import it only
 * through this file.
 */
export { PROJECTION_LIMITS, ProjectionInputSchema, ProjectionOutputSchema, evaluateProjection } from './projection/index.ts';
export type { ProjectionInput, ProjectionOutput } from './projection/index.ts';
export * from './connections/index.ts';
export * from './recommend/index.ts';
export * from './crosswalk/index.ts';
export * from './context/index.ts';
