import { z } from 'zod';
import { ContentHashSchema } from '../../domains/notes/index.ts';
import {
  MAX_PROPOSAL_PAGE,
  MAX_PROPOSAL_TEXT,
  MAX_PROPOSAL_TITLE,
  ProposalSchema,
  ProposalStateSchema,
  type Proposal,
} from '../../domains/proposals/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import { AUTOMATION_READ, AUTOMATION_WRITE } from './automation-fields.ts';
import { MappingIdSchema, NotePathSchema } from './fields.ts';
import { defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

// Proposals from the automation gateway (docs/proposals.md, docs/automation.md): a bridge proposes note changes for a
// person to approve on the workspace page, exactly as propose_action does, marked with its origin and source. Nothing
// here approves or executes: the automation executor runs what a person approved, as that person.

const WriteNote = z.strictObject({
  type: z.literal('write-note'),
  path: NotePathSchema,
  content: z.string().describe('The whole new Markdown content'),
  expectedHash: ContentHashSchema.optional(),
});
const DeleteNote = z.strictObject({ type: z.literal('delete-note'), path: NotePathSchema, expectedHash: ContentHashSchema.optional() });

const ProposeInput = z.strictObject({
  workspaceId: z.uuid(),
  mappingId: MappingIdSchema,
  title: z.string().min(1).max(MAX_PROPOSAL_TITLE),
  rationale: z.string().max(MAX_PROPOSAL_TEXT).optional(),
  source: z.string().min(1).max(200).describe('The bridge or producer proposing, in its own words (n8n, zapier)'),
  actions: z.array(z.discriminatedUnion('type', [WriteNote, DeleteNote])).min(1).max(100),
});

/** The workspace page of a proposal, as proposal-operations.ts builds it. */
function reviewUrl(ctx: OperationContext, proposal: Proposal): string {
  return new URL(`/workspace/vaults/${encodeURIComponent(proposal.mappingId)}/proposals/${proposal.id}`, ctx.services.links.baseUrl).toString();
}

/** What proposing stored: the proposal, and whether it is new. */
interface Proposed {
  proposal: Proposal;
  created: boolean;
}

/** Checks the mapping is of the named workspace, then proposes its actions as an automation proposal. */
async function proposeFor(ctx: OperationContext, input: z.output<typeof ProposeInput>): Promise<Proposed> {
  const actor = ctx.principal.actor;
  // A mapping of another workspace looks the same as one that does not exist.
  const mapping = await ctx.services.vaults.resolveMapping(actor.accountId, input.mappingId, 'read');
  if (mapping.workspaceId !== input.workspaceId) throw new KgateError('not_found', 'No such mapping in this workspace.');
  const writes = input.actions.flatMap((a) => (a.type === 'write-note' ? [{ path: a.path, content: a.content, expectedHash: a.expectedHash }] : []));
  const deletions = input.actions.flatMap((a) => (a.type === 'delete-note' ? [{ path: a.path, expectedHash: a.expectedHash }] : []));
  return ctx.services.proposals.propose({
    actor,
    capability: 'direct',
    mappingId: input.mappingId,
    kind: 'action',
    title: input.title,
    rationale: input.rationale,
    writes,
    deletions,
    origin: 'automation',
    automationSource: input.source,
  });
}

/** POST /proposals. */
export const proposeAutomationAction = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'proposeAutomationAction',
  summary: 'Propose note changes from an automation',
  description:
    'Previews note writes and deletions on a mapping of the workspace through the guarded transaction service and ' +
    'stores them as a proposal of origin automation, naming its source. Nothing is applied: a person approves or ' +
    'rejects it on the workspace page (reviewUrl), and an approved one is executed by POST /process as that person. ' +
    'Needs write access to the mapping. When created, a proposal.created webhook is queued.',
  idempotency: 'always',
  cost: 'heavy',
  input: ProposeInput,
  output: z.object({
    proposal: ProposalSchema,
    created: z.boolean().describe('False when the same change was already waiting: that proposal is answered'),
    reviewUrl: z.string().describe('The workspace page where a person reviews it'),
  }),
  errors: [
    'invalid_request',
    'invalid_path',
    'not_found',
    'forbidden',
    'mapping_read_only',
    'mcp_changes_disabled',
    'device_encrypted',
    'mapping_pull_only',
    'stale_revision',
    'payload_too_large',
    'idempotency_key_required',
    'idempotency_key_reused',
    'idempotency_key_in_flight',
    'unavailable',
  ],
  rest: [{ method: 'POST', path: '/proposals' }],
  // The proposal is stored by the proposals domain in a transaction of its own, which must not open inside the
  // request's idempotent commit (one embedded database connection would wait on itself): it is made in the stage,
  // once the key is claimed, and the commit then holds the key's outcome and the proposal.created webhook.
  stage: (ctx, input) => proposeFor(ctx, input),
  async run(ctx, input) {
    const staged = (ctx.commit?.staged as Proposed | undefined) ?? (await proposeFor(ctx, input));
    const { proposal, created } = staged;
    const url = reviewUrl(ctx, proposal);
    if (created && ctx.services.webhooks && ctx.commit) {
      await ctx.services.webhooks.enqueue(ctx.commit.sql, {
        workspaceId: input.workspaceId,
        eventType: 'proposal.created',
        data: { proposalId: proposal.id, mappingId: proposal.mappingId, title: proposal.title, state: proposal.state, source: input.source, reviewUrl: url },
      });
    }
    return { proposal, created, reviewUrl: url };
  },
});

/** GET /proposals. */
export const listAutomationProposals = defineOperation({
  ...AUTOMATION_READ,
  id: 'listAutomationProposals',
  summary: 'List automation proposals',
  description: 'The automation proposals of a workspace’s mappings you may read, newest first, optionally of some states.',
  input: z.strictObject({
    workspaceId: z.uuid(),
    state: z.array(ProposalStateSchema).max(7).optional().describe('Only these states (repeat the parameter)'),
    limit: z.number().int().min(1).max(MAX_PROPOSAL_PAGE).optional(),
    cursor: z.string().max(200).optional(),
  }),
  output: z.object({ proposals: z.array(ProposalSchema), nextCursor: z.string().nullable() }),
  errors: ['invalid_request', 'not_found', 'unavailable'],
  rest: [{ method: 'GET', path: '/proposals' }],
  async run(ctx, input) {
    const page = await ctx.services.proposals.listWorkspace(ctx.principal.actor, input.workspaceId, {
      states: input.state,
      origin: 'automation',
      limit: input.limit,
      cursor: input.cursor,
    });
    return { proposals: page.proposals, nextCursor: page.nextCursor };
  },
});

/** The automation gateway's proposal operations, in route order. */
export const AUTOMATION_PROPOSAL_OPERATIONS: readonly AnyOperation[] = [proposeAutomationAction, listAutomationProposals];
