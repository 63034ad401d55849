import { z } from 'zod';

// Execution traces (docs/traces.md): work sessions an owner publishes into a context scope, and how a read
// reconstructs one under the reader's authorization now.

/** Most steps one session holds. */
export const MAX_TRACE_STEPS = 200;
/** Most references one step makes. */
export const MAX_STEP_REFERENCES = 20;
/** Most references one session makes, over all its steps. */
export const MAX_SESSION_REFERENCES = 1000;
/** Most bytes of a session's steps, as stored JSON. */
export const MAX_SESSION_BYTES = 256 * 1024;
/** Most sessions one scope holds. */
export const MAX_SESSIONS_PER_SCOPE = 10_000;

/** The owner's own name for a session (an agent's session id): 1 to 128 of letters, digits and `.`, `_`, `:`, `-`. */
export const SessionIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only')
  .describe('The session id the owner published it under (1 to 128 letters, digits, ".", "_", ":" or "-")');

const Text = (max: number) => z.string().trim().min(1).max(max);

/** A reference of a step, as published: what the owner worked with, as they saw it then. */
export const TraceReferenceInputSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('note'),
    path: z.string().min(1).max(1024).describe('The note, vault-relative'),
    revision: z.string().min(1).max(200).describe('The revision of the note the step saw (its contentHash for a hosted note)'),
  }),
  z.strictObject({
    kind: z.literal('record'),
    recordId: z.string().min(1).max(100).describe('A knowledge record id (get_decisions, get_commitments, ...)'),
    revision: z.string().min(1).max(200).optional().describe('The revision of its note the step saw; when given, a record compiled from another revision now is stale'),
  }),
  z.strictObject({
    kind: z.literal('proposal'),
    proposalId: z.string().min(1).max(100).describe('An action proposal id (propose_action)'),
  }),
  z.strictObject({
    kind: z.literal('local'),
    label: Text(200).describe('Work done outside this service (a local agent run) whose records were not published here'),
  }),
]);
/** See TraceReferenceInputSchema. */
export type TraceReferenceInput = z.infer<typeof TraceReferenceInputSchema>;

/** A step of a session as published. */
export const TraceStepInputSchema = z.strictObject({
  summary: Text(1000).describe('What the step did'),
  at: z.iso.datetime({ offset: true }).optional().describe('When it happened, as the owner says (ISO 8601)'),
  references: z.array(TraceReferenceInputSchema).max(MAX_STEP_REFERENCES).default([]),
});
/** See TraceStepInputSchema. */
export type TraceStepInput = z.infer<typeof TraceStepInputSchema>;

/** A session as an owner publishes it. */
export interface TraceSessionInput {
  sessionId: string;
  title: string;
  agent?: string | undefined;
  startedAt?: string | undefined;
  endedAt?: string | undefined;
  steps: readonly TraceStepInput[];
}

/** A published session, without its steps. */
export interface TraceSessionSummary {
  id: string;
  sessionId: string;
  title: string;
  agent: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
  stepCount: number;
  referenceCount: number;
  publishedBy: string | null;
  publishedAt: Date;
}

/** Why a reference is not resolved: each is reported, never filled in. */
export const GAP_REASONS = ['not_found', 'outside_scope', 'stale', 'unpublished'] as const;
/** One of GAP_REASONS. */
export type GapReason = (typeof GAP_REASONS)[number];

/** A reference as a read resolves it now. */
export const ResolvedReferenceSchema = z.object({
  kind: z.enum(['note', 'record', 'proposal', 'local']),
  status: z
    .enum(['resolved', 'gap', 'unresolved'])
    .describe('resolved: found in your scope now as the step saw it; gap: see reason; unresolved: a reference of a kind this server cannot check (none today)'),
  reason: z.enum(GAP_REASONS).nullable().describe('For a gap: not_found, outside_scope, stale or unpublished'),
  path: z.string().nullable().describe('note: the path as published; record: its note now (only when resolved or stale)'),
  revision: z.string().nullable().describe('The revision the step saw, as published'),
  currentRevision: z.string().nullable().describe('For a resolved or stale note or record: its revision now'),
  recordId: z.string().nullable(),
  recordKind: z.string().nullable().describe('record: its kind now (only when resolved or stale)'),
  proposalId: z.string().nullable(),
  proposalState: z.string().nullable().describe('proposal: its state now (proposed, approved, executed, ...), when resolved'),
  label: z.string().nullable().describe('local: what the owner said was done outside this service; proposal: its title, when resolved'),
});
/** See ResolvedReferenceSchema. */
export type ResolvedReference = z.infer<typeof ResolvedReferenceSchema>;

/** A step as a read reconstructs it. */
export interface ReconstructedStep {
  index: number;
  summary: string;
  at: string | null;
  references: ResolvedReference[];
}
