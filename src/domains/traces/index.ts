/**
 * Execution traces: work sessions an owner publishes into a context scope (ordered steps referencing notes, knowledge
 * records and proposals), reconstructed at every read under the reader's authorization now, with every reference
 * that no longer resolves reported as a gap (docs/traces.md).
 */
export {
  GAP_REASONS,
  MAX_SESSION_BYTES,
  MAX_SESSION_REFERENCES,
  MAX_SESSIONS_PER_SCOPE,
  MAX_STEP_REFERENCES,
  MAX_TRACE_STEPS,
  ResolvedReferenceSchema,
  SessionIdSchema,
  TraceReferenceInputSchema,
  TraceStepInputSchema,
} from './contract.ts';
export type { GapReason, ReconstructedStep, ResolvedReference, TraceReferenceInput, TraceSessionInput, TraceSessionSummary, TraceStepInput } from './contract.ts';
export { createTracesService } from './service.ts';
export type { PublishOptions, ReconstructedSession, TracesService } from './service.ts';
