import { z } from 'zod';
import { ActionResultSchema } from '../notes/index.ts';

/** Longest proposal title. */
export const MAX_PROPOSAL_TITLE = 200;
/** Longest rationale an agent gives, and longest comment a reviewer leaves. */
export const MAX_PROPOSAL_TEXT = 4000;
/** How long a proposal waits for a person, and then for its execution, before it expires. */
export const PROPOSAL_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Most proposals of one mapping waiting for a person at once; more are refused until some are decided. */
export const MAX_PENDING_PROPOSALS = 500;
/** Proposals per page of a list, by default and at most. */
export const DEFAULT_PROPOSAL_PAGE = 50;
export const MAX_PROPOSAL_PAGE = 200;

/**
 * Where a proposal is in its life (docs/proposals.md): `proposed` waits for a person; `approved` and `rejected` are
 * a person's verdict; `expired` waited too long; `executed` applied exactly the approved actions; `failed` could not
 * (a note changed since the preview, nothing applied); `undone` was executed and then reverted.
 */
export const ProposalStateSchema = z.enum(['proposed', 'approved', 'rejected', 'expired', 'executed', 'failed', 'undone']);
/** See ProposalStateSchema. */
export type ProposalState = z.infer<typeof ProposalStateSchema>;

/** What a proposal is: a scope-bound knowledge change (`propose_knowledge_change`) or a governed action (`propose_action`). */
export const ProposalKindSchema = z.enum(['knowledge-change', 'action']);
/** See ProposalKindSchema. */
export type ProposalKind = z.infer<typeof ProposalKindSchema>;

/** One action of a proposal as it will be applied: the exact path and content, and the hash it was previewed against. */
export const ProposedActionSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('write-note'),
    path: z.string(),
    content: z.string(),
    expectedHash: z.string().optional().describe('The revision previewed; absent for a note that did not exist'),
  }),
  z.object({ type: z.literal('delete-note'), path: z.string(), expectedHash: z.string() }),
]);
/** See ProposedActionSchema. */
export type ProposedAction = z.infer<typeof ProposedActionSchema>;

/** Who did a step: the account, and how it proved it (a person's session, a token, a connected client). */
export const StepActorSchema = z.object({
  accountId: z.uuid().nullable(),
  credentialKind: z.string(),
  client: z.string().nullable(),
});

/** One step of a proposal's life, with its receipt: who moved it from which state to which, when, with what. */
export const ProposalStepSchema = z.object({
  step: z.enum(['propose', 'approve', 'reject', 'expire', 'execute', 'fail', 'undo', 'undo-failed']),
  fromState: ProposalStateSchema.nullable(),
  toState: ProposalStateSchema,
  by: StepActorSchema,
  at: z.string(),
  receipt: z.record(z.string(), z.unknown()).describe('What the step recorded: hashes, idempotency key, results, reasons'),
});
/** See ProposalStepSchema. */
export type ProposalStep = z.infer<typeof ProposalStepSchema>;

/** Why an execution or an undo did not apply: a stable code and what it found. */
export const ProposalFailureSchema = z.object({
  code: z.string(),
  detail: z.string(),
  problems: z.array(z.unknown()).optional(),
});

/** A proposal as callers read it. */
export const ProposalSchema = z.object({
  id: z.uuid(),
  mappingId: z.uuid(),
  contextScopeId: z.uuid().nullable(),
  kind: ProposalKindSchema,
  origin: z.enum(['agent', 'automation']).describe('Who proposed it: an agent (MCP, REST) or the automation gateway'),
  automationSource: z.string().nullable().describe('An automation proposal: the bridge or producer that sent it'),
  state: ProposalStateSchema,
  title: z.string(),
  rationale: z.string(),
  actions: z.array(ProposedActionSchema).describe('Exactly what an execution applies'),
  preview: z.array(ActionResultSchema).describe('What the preview answered for each action, with its diff'),
  notesHash: z.string().describe('sha256 of the exact actions (as in a preview receipt)'),
  againstHash: z.string().describe('sha256 of the revisions they were previewed against'),
  proposedBy: StepActorSchema,
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedAt: z.string().nullable(),
  decisionComment: z.string().nullable(),
  executedAt: z.string().nullable(),
  result: z.array(ActionResultSchema).nullable().describe('What the execution applied (revisions after)'),
  failure: ProposalFailureSchema.nullable(),
  undoneAt: z.string().nullable(),
  reversible: z.boolean().optional().describe('One proposal read: true when it is executed and can be undone now (every note still as the execution left it)'),
});
/** See ProposalSchema. */
export type Proposal = z.infer<typeof ProposalSchema>;
