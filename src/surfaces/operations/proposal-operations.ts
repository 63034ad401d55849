import { z } from 'zod';
import { ContentHashSchema, MAX_TRANSACTION_ACTIONS, NoteTargetSchema } from '../../domains/notes/index.ts';
import {
  MAX_PROPOSAL_PAGE,
  MAX_PROPOSAL_TEXT,
  MAX_PROPOSAL_TITLE,
  ProposalSchema,
  ProposalStateSchema,
  ProposalStepSchema,
  type Proposal,
  type ProposalKind,
} from '../../domains/proposals/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import { MappingIdSchema, NotePathSchema } from './fields.ts';
import { AGENT_NOTE_CHANGE_ERRORS } from './note-transaction.ts';
import { ACCOUNT_CREDENTIALS, defineOperation, type AnyOperation, type OperationContext } from './operation.ts';
import { ContextScopeIdSchema } from './scope-fields.ts';

// Governed proposals (docs/proposals.md): agents and scripts propose; a person approves or rejects on the workspace
// page, and executes what they approved there. No operation here approves, rejects, executes or undoes: those are
// people's acts, and the proposals domain refuses them to every credential but a web session.

const WriteEntry = z.strictObject({
  path: NotePathSchema,
  content: z.string().describe('The whole new Markdown content; with target, the new content of that part of the note'),
  expectedHash: ContentHashSchema.optional(),
  target: NoteTargetSchema.optional().describe('Change only this part of the existing note; the proposal stores the whole note it makes (docs/api.md#section-level-writes)'),
});
const DeleteEntry = z.strictObject({ path: NotePathSchema, expectedHash: ContentHashSchema.optional() });

const PROPOSAL_FIELDS = {
  mappingId: MappingIdSchema,
  title: z.string().min(1).max(MAX_PROPOSAL_TITLE).describe('What the change does, in a line a person reads in the review list'),
  rationale: z.string().max(MAX_PROPOSAL_TEXT).optional().describe('Why: what the person should know to decide'),
  notes: z
    .array(WriteEntry)
    .max(MAX_TRANSACTION_ACTIONS)
    .default([])
    .describe('Notes to create or replace, as in preview_note_writes (expectedHash optional: the preview answers it)'),
  deletions: z.array(DeleteEntry).max(MAX_TRANSACTION_ACTIONS).default([]).describe('Notes to move to the trash, as in preview_note_deletions'),
};

const ProposedOut = z.object({
  proposal: ProposalSchema,
  created: z.boolean().describe('False when the same change, by the same credential, against the same revisions, was already waiting: that proposal is answered'),
  reviewUrl: z.string().describe('The workspace page where a person reviews it: show it to the human'),
});

const PROPOSE_ERRORS = [...AGENT_NOTE_CHANGE_ERRORS.filter((c) => !c.startsWith('idempotency_key')), 'forbidden'] as const;

const PROPOSE_TOOL = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const PROPOSE_ADVICE =
  'This never changes a note: it records the previewed change for a person to approve in the workspace. Give the ' +
  'person the reviewUrl. Follow it with get_knowledge_events (proposal.approved, proposal.executed, ' +
  'proposal.rejected) or GET /api/dev/proposals/item; never apply the same change yourself.';

/** The workspace page of a proposal. */
function reviewUrl(ctx: OperationContext, proposal: Proposal): string {
  return new URL(`/workspace/vaults/${encodeURIComponent(proposal.mappingId)}/proposals/${proposal.id}`, ctx.services.links.baseUrl).toString();
}

async function propose(
  ctx: OperationContext,
  kind: ProposalKind,
  input: { mappingId: string; contextScopeId?: string | undefined; title: string; rationale?: string | undefined; notes: Array<z.output<typeof WriteEntry>>; deletions: Array<z.output<typeof DeleteEntry>> },
): Promise<z.input<typeof ProposedOut>> {
  const { proposal, created } = await ctx.services.proposals.propose({
    actor: ctx.principal.actor,
    capability: ctx.noteChanges,
    mappingId: input.mappingId,
    kind,
    contextScopeId: input.contextScopeId,
    title: input.title,
    rationale: input.rationale,
    writes: input.notes,
    deletions: input.deletions,
  });
  return { proposal, created, reviewUrl: reviewUrl(ctx, proposal) };
}

/** What the two propose operations share: who may call them, what they cost, what they answer. */
const PROPOSE = {
  tags: ['proposals'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:write',
  allowance: 'operation',
  idempotency: 'none',
  cost: 'heavy',
  output: ProposedOut,
  errors: PROPOSE_ERRORS,
} as const;

/** `propose_knowledge_change`: a scope-bound change of notes, previewed and stored for a person to approve. */
export const proposeKnowledgeChange = defineOperation({
  ...PROPOSE,
  id: 'proposeKnowledgeChange',
  summary: 'Propose a change to notes in a context scope',
  description:
    'Previews note changes inside a context scope through the same guarded transaction service as the write tools, ' +
    'and stores them as a proposal: the exact notes, the revisions they were previewed against, and the diff. Every ' +
    'note must be in the scope (its folders, its tags). A change that could not apply now is refused. A person ' +
    'approves or rejects it in the workspace and applies exactly what was approved.',
  input: z.strictObject({ ...PROPOSAL_FIELDS, contextScopeId: ContextScopeIdSchema }),
  rest: [{ method: 'POST', path: '/proposals/knowledge-change' }],
  mcp: { name: 'propose_knowledge_change', title: 'Propose a knowledge change', advice: PROPOSE_ADVICE, annotations: PROPOSE_TOOL },
  run: (ctx, input) => propose(ctx, 'knowledge-change', input),
});

/** `propose_action`: a governed action proposal containing a guarded note-change preview. */
export const proposeAction = defineOperation({
  ...PROPOSE,
  id: 'proposeAction',
  summary: 'Propose a governed action',
  description:
    'Creates a governed action proposal: note writes and deletions, previewed now through the guarded transaction ' +
    'service and stored with the revisions they were previewed against and the diff. Nothing is applied: a person ' +
    'approves or rejects it in the workspace, and executing applies exactly the approved notes against those ' +
    'revisions (a note changed since fails the execution, with nothing applied). On a mapping whose approval policy ' +
    'is people-approve this is how an agent changes notes. contextScopeId, when given, keeps every note in that scope.',
  input: z.strictObject({ ...PROPOSAL_FIELDS, contextScopeId: ContextScopeIdSchema.optional() }),
  rest: [{ method: 'POST', path: '/proposals' }],
  mcp: { name: 'propose_action', title: 'Propose a governed action', advice: PROPOSE_ADVICE, annotations: PROPOSE_TOOL },
  run: (ctx, input) => propose(ctx, 'action', input),
});

/** A mapping's proposals, newest first: REST only (the spec's tool set has no such tool), for scripts to follow what they proposed. */
export const listProposals = defineOperation({
  id: 'listProposals',
  summary: 'List proposals',
  description: "A mapping's proposals, newest first, optionally of some states, with a cursor. Any member who may read the mapping sees them.",
  tags: ['proposals'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    state: z
      .string()
      .max(200)
      .optional()
      .describe('Comma-separated states: proposed, approved, rejected, expired, executed, failed, undone'),
    limit: z.number().int().min(1).max(MAX_PROPOSAL_PAGE).optional(),
    cursor: z.string().max(200).optional(),
  }),
  output: z.object({ proposals: z.array(ProposalSchema), truncated: z.boolean(), nextCursor: z.string().nullable() }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/proposals' }],
  run(ctx, input) {
    const states = input.state?.split(',').map((name) => {
      const state = ProposalStateSchema.safeParse(name.trim());
      if (!state.success) throw new KgateError('invalid_request', `Unknown proposal state "${name.trim()}".`, { allowed: ProposalStateSchema.options });
      return state.data;
    });
    return ctx.services.proposals.list(ctx.principal.actor, input.mappingId, {
      ...(states ? { states } : {}),
      ...(input.limit === undefined ? {} : { limit: input.limit }),
      ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
    });
  },
});

/** One proposal with every step and its receipt. */
export const getProposal = defineOperation({
  id: 'getProposal',
  summary: 'Read a proposal',
  description: 'One proposal of a mapping, with its steps (who moved it from which state to which, when, with what receipt). Any other id is not_found.',
  tags: ['proposals'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({ mappingId: MappingIdSchema, id: z.string().min(1).max(100).describe('The proposal id') }),
  output: z.object({ proposal: ProposalSchema, steps: z.array(ProposalStepSchema) }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/proposals/item' }],
  run: (ctx, input) => ctx.services.proposals.get(ctx.principal.actor, input.mappingId, input.id),
});

/** The proposal operations, in the table's order. */
export const PROPOSAL_OPERATIONS: readonly AnyOperation[] = [proposeKnowledgeChange, proposeAction, listProposals, getProposal];
