import { z } from 'zod';
import { DEFAULT_KNOWLEDGE_LIMIT, MAX_KNOWLEDGE_LIMIT } from '../../domains/knowledge/index.ts';
import {
  MAX_SESSION_BYTES,
  MAX_SESSION_REFERENCES,
  MAX_STEP_REFERENCES,
  MAX_TRACE_STEPS,
  ResolvedReferenceSchema,
  SessionIdSchema,
  TraceStepInputSchema,
  type TraceSessionSummary,
} from '../../domains/traces/index.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import { KgateError } from '../../kernel/errors.ts';
import { DryRunSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation } from './operation.ts';
import { SCOPE_BOUND_FIELDS, authorizedScope } from './scope-fields.ts';

// Execution traces (docs/traces.md): owners publish work sessions over REST; get_execution_trace reconstructs one
// under the caller's authorization now, every reference that no longer resolves reported as a gap.

/** Scripts (personal access tokens) and the person's own session publish; connected agents read only. */
const PUBLISH_CREDENTIALS: readonly CredentialKind[] = ['personal_access_token', 'session'];

const PageFields = {
  limit: z.number().int().min(1).max(MAX_KNOWLEDGE_LIMIT).optional().describe(`Most items, 1 to ${MAX_KNOWLEDGE_LIMIT}; default ${DEFAULT_KNOWLEDGE_LIMIT}`),
  cursor: z.string().max(2048).optional().describe('nextCursor of the previous page'),
};

const SessionOut = z.object({
  sessionId: z.string(),
  title: z.string(),
  agent: z.string().nullable(),
  startedAt: z.iso.datetime().nullable(),
  endedAt: z.iso.datetime().nullable(),
  stepCount: z.number().int(),
  referenceCount: z.number().int(),
  publishedAt: z.iso.datetime(),
  publishedByYou: z.boolean(),
});

function presentSession(s: TraceSessionSummary, accountId: string): z.input<typeof SessionOut> {
  return {
    sessionId: s.sessionId,
    title: s.title,
    agent: s.agent,
    startedAt: s.startedAt?.toISOString() ?? null,
    endedAt: s.endedAt?.toISOString() ?? null,
    stepCount: s.stepCount,
    referenceCount: s.referenceCount,
    publishedAt: s.publishedAt.toISOString(),
    publishedByYou: s.publishedBy === accountId,
  };
}

const pageOf = (input: { limit?: number | undefined; cursor?: string | undefined }) => ({
  ...(input.limit !== undefined ? { limit: input.limit } : {}),
  ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
});

/** Publishes a work session into a scope (REST only). */
export const publishTraceSession = defineOperation({
  id: 'publishTraceSession',
  summary: 'Publish a work session (execution trace)',
  description:
    'Publishes a work session into a context scope: a session id of your own, a title, and ordered steps, each ' +
    'referencing what it worked with as you saw it: notes (path and revision), knowledge records (recordId, optionally ' +
    'the revision of its note), action proposals (proposalId), and work done outside this service that was not ' +
    `published here (kind local). Bounded: 1 to ${MAX_TRACE_STEPS} steps, ${MAX_STEP_REFERENCES} references a step, ` +
    `${MAX_SESSION_REFERENCES} in all, ${MAX_SESSION_BYTES} bytes of steps. A session is published once (its session ` +
    'id taken in the scope is 409 conflict). By default only previews (every check, nothing stored); publishing needs ' +
    'dryRun false and an Idempotency-Key header, and a retry with it replays the answer. Members whose role writes the vault only. Readers see it through get_execution_trace, resolved under ' +
    'their authorization at the time they read.',
  tags: ['traces'],
  credentials: PUBLISH_CREDENTIALS,
  scope: 'mcp:write',
  allowance: 'operation',
  idempotency: 'when-applying',
  // Not a note change, but a body of up to 256 KiB to validate and normalize: such calls take turns on the request thread.
  cost: 'heavy',
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    sessionId: SessionIdSchema,
    title: z.string().trim().min(1).max(200),
    agent: z.string().trim().min(1).max(200).optional().describe('The agent or tool that did the work, as you name it'),
    startedAt: z.iso.datetime({ offset: true }).optional(),
    endedAt: z.iso.datetime({ offset: true }).optional(),
    steps: z.array(TraceStepInputSchema).min(1).max(MAX_TRACE_STEPS),
    dryRun: DryRunSchema,
  }),
  output: z.object({
    dryRun: z.boolean().describe('True for a preview: nothing was stored'),
    applied: z.boolean().describe('True when the session was published'),
    mappingId: z.uuid(),
    contextScopeId: z.uuid(),
    session: SessionOut.describe('The session as published (a preview: as publishing now would store it)'),
  }),
  errors: ['invalid_request', 'not_found', 'forbidden', 'conflict', 'device_encrypted', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_flight'],
  rest: [{ method: 'POST', path: '/traces/sessions' }],
  async run(ctx, input) {
    const { mappingId, contextScopeId: _scope, dryRun, ...session } = input;
    if (!dryRun && !ctx.commit) throw new KgateError('idempotency_key_required', 'Publishing a session needs an Idempotency-Key header.');
    // Applying reads in the request's transaction: on the embedded engine a read beside an open transaction waits for it.
    const sql = dryRun ? undefined : ctx.commit?.sql;
    const authorized = await ctx.services.scopes.authorize(ctx.principal.actor, mappingId, input.contextScopeId, sql);
    if (authorized.mapping.deviceEncrypted) throw new KgateError('device_encrypted', 'Note bodies of this mapping are encrypted on the device; nothing is published into its scopes.');
    const stored = await ctx.services.traces.publish(ctx.principal.actor, authorized, session, dryRun ? { dryRun } : { sql: sql! });
    return { dryRun, applied: !dryRun, mappingId, contextScopeId: authorized.scope.id, session: presentSession(stored, ctx.principal.actor.accountId) };
  },
});

/** The sessions published into a scope (REST only). */
export const listTraceSessions = defineOperation({
  id: 'listTraceSessions',
  summary: 'List the work sessions of a scope',
  description:
    'The work sessions published into a context scope, newest first, without their steps (get_execution_trace ' +
    'reconstructs one). Needs a context scope of the mapping that you may use; any other is not_found. ' +
    '`truncated: true` means more exist after nextCursor.',
  tags: ['traces'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, ...PageFields }),
  output: z.object({ mappingId: z.uuid(), contextScopeId: z.uuid(), sessions: z.array(SessionOut), truncated: z.boolean(), nextCursor: z.string().nullable() }),
  errors: ['invalid_request', 'not_found', 'device_encrypted'],
  rest: [{ method: 'GET', path: '/traces/sessions' }],
  async run(ctx, input) {
    const authorized = await authorizedScope(ctx, input);
    const page = await ctx.services.traces.list(authorized, pageOf(input));
    const { accountId } = ctx.principal.actor;
    return { mappingId: input.mappingId, contextScopeId: authorized.scope.id, sessions: page.items.map((s) => presentSession(s, accountId)), truncated: page.truncated, nextCursor: page.nextCursor };
  },
});

const COMPLETENESS =
  'A session without gaps shows only what its owner published and what you may read now: it does not prove that every ' +
  'step was captured, nor give access to source bodies as they were then.';

/** `get_execution_trace`. */
export const getExecutionTrace = defineOperation({
  id: 'getExecutionTrace',
  summary: 'Reconstruct a published work session',
  description:
    'Reconstructs a work session an owner published into a context scope: its steps in order, each reference resolved ' +
    'now under your authorization. A reference that does not resolve is a gap with its reason, never filled in: ' +
    'not_found (no such note or record in your scope now), outside_scope (a note path outside the scope\'s folders), ' +
    'stale (the note or record is at another revision than the step saw), unpublished (work done outside this ' +
    'service whose records were not published here, such as a local agent run). A proposal resolves with its state ' +
    'now when every note it touches is in your scope; otherwise it is outside_scope or not_found. A session id the scope does not hold, or a scope you may not use, is not_found. ' +
    `${COMPLETENESS} \`truncated: true\` means more steps follow after nextCursor.`,
  tags: ['traces'],
  credentials: ACCOUNT_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, sessionId: SessionIdSchema, ...PageFields }),
  output: z.object({
    mappingId: z.uuid(),
    contextScopeId: z.uuid(),
    session: SessionOut,
    steps: z.array(z.object({ index: z.number().int(), summary: z.string(), at: z.iso.datetime().nullable(), references: z.array(ResolvedReferenceSchema) })),
    gaps: z
      .object({ not_found: z.number().int(), outside_scope: z.number().int(), stale: z.number().int(), unpublished: z.number().int() })
      .describe('Gaps among the references of the steps returned, by reason'),
    unresolved: z.number().int().describe('References of the steps returned that this server cannot check (proposals)'),
    complete: z.boolean().describe('True when the steps returned have no gap and nothing unresolved, and no step follows'),
    completeness: z.string(),
    truncated: z.boolean(),
    nextCursor: z.string().nullable(),
  }),
  errors: ['invalid_request', 'not_found', 'device_encrypted'],
  rest: [{ method: 'GET', path: '/traces/session' }],
  mcp: {
    name: 'get_execution_trace',
    title: 'Execution trace of a work session',
    advice: 'Report gaps as gaps with their reasons; never guess what a missing, stale or unpublished reference held.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const authorized = await authorizedScope(ctx, input);
    const trace = await ctx.services.traces.reconstruct(authorized, input.sessionId, pageOf(input));
    const gapCount = Object.values(trace.gaps).reduce((a, b) => a + b, 0);
    return {
      mappingId: input.mappingId,
      contextScopeId: authorized.scope.id,
      session: presentSession(trace.session, ctx.principal.actor.accountId),
      steps: trace.steps,
      gaps: trace.gaps,
      unresolved: trace.unresolved,
      complete: gapCount === 0 && trace.unresolved === 0 && !trace.truncated,
      completeness: COMPLETENESS,
      truncated: trace.truncated,
      nextCursor: trace.nextCursor,
    };
  },
});

/** Execution traces: publishing and listing sessions (REST), and get_execution_trace. */
export const TRACE_OPERATIONS: readonly AnyOperation[] = [getExecutionTrace, listTraceSessions, publishTraceSession];
