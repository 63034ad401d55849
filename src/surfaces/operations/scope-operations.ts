import { z } from 'zod';
import { MAX_SCOPE_FILTERS, MAX_SCOPE_NAME_LENGTH, type ContextScope, type ScopeChangeOptions } from '../../domains/scopes/index.ts';
import { WorkspaceRoleSchema } from '../../domains/workspaces/index.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import { DryRunSchema, MappingIdSchema } from './fields.ts';
import { defineOperation, type AnyOperation, type OperationContext } from './operation.ts';

// Managing context scopes (docs/knowledge.md, "Context scopes"): Developer REST API only; the MCP tool set of the
// spec has no scope management tool. A change previews by default and applies with dryRun false and an
// Idempotency-Key, as every changing REST operation does, so that a retried creation never makes a second scope.

/**
 * Scripts (personal access tokens) and the person's own session (the workspace pages). Never OAuth: a connected
 * agent does not decide who may read what.
 */
const SCOPE_CREDENTIALS: readonly CredentialKind[] = ['personal_access_token', 'session'];

const CHANGE = { credentials: SCOPE_CREDENTIALS, scope: 'mcp:write', allowance: 'operation', idempotency: 'when-applying', tags: ['scopes'] } as const;

const CHANGE_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'not_found',
  'forbidden',
  'conflict',
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
];

/**
 * A scope to change or delete. Any string is taken here, so that a malformed id, a guessed one and another
 * mapping's get the same answer: `not_found`.
 */
const ScopeIdSchema = z.string().min(1).max(100).describe('The scope (its id, as listScopes gives it)');

const AudienceIn = z.strictObject({
  minimumRole: WorkspaceRoleSchema.describe('The lowest workspace role that may read through the scope: owner, admin, editor or viewer'),
  agents: z.boolean().describe('true: also through tokens and connected agents; false: only a signed-in person (a web session)'),
});

const DEFAULT_AUDIENCE = { minimumRole: 'viewer', agents: true } as const;

/** The definition fields; `create` gives defaults, `update` replaces the whole definition and takes every field. */
const DEFINITION = {
  name: z
    .string()
    .min(1)
    .max(MAX_SCOPE_NAME_LENGTH)
    .describe(`1 to ${MAX_SCOPE_NAME_LENGTH} characters (trimmed), unique in the mapping whatever the letter case`),
  pathPrefixes: z
    .array(z.string().max(1000))
    .max(MAX_SCOPE_FILTERS)
    .describe(`At most ${MAX_SCOPE_FILTERS} folders (Projects/Tidewater); a note under any of them is in the scope. None: every path`),
  tags: z
    .array(z.string().max(200))
    .max(MAX_SCOPE_FILTERS)
    .describe(`At most ${MAX_SCOPE_FILTERS} tags, with or without #; a note with any of them (or a tag nested under one) is in the scope. None: every note`),
  audience: AudienceIn,
};

const ScopeOut = z.object({
  id: z.uuid().describe('Pass it as scopeId to change or delete the scope, and as contextScopeId to the scope-bound tools'),
  mappingId: z.uuid(),
  name: z.string(),
  pathPrefixes: z.array(z.string()).describe('Folders, each ending in /; empty: every path'),
  tags: z.array(z.string()).describe('Tag keys (lowercase, without #); empty: every note'),
  audience: z.object({ minimumRole: WorkspaceRoleSchema, agents: z.boolean() }),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

const CHANGE_FLAGS = {
  dryRun: z.boolean().describe('True for a preview: nothing was changed'),
  applied: z.boolean().describe('True when the change was made'),
};

function presentScope(scope: ContextScope): z.input<typeof ScopeOut> {
  return {
    id: scope.id,
    mappingId: scope.mappingId,
    name: scope.name,
    pathPrefixes: scope.pathPrefixes,
    tags: scope.tags,
    audience: { minimumRole: scope.audience.minimumRole, agents: scope.audience.agents },
    createdAt: scope.createdAt.toISOString(),
    updatedAt: scope.updatedAt.toISOString(),
  };
}

/** A preview checks what applying would (authority, limits, names) and writes nothing; applying runs in the request's commit. */
function changeOptions(ctx: OperationContext, dryRun: boolean): ScopeChangeOptions {
  if (dryRun) return { dryRun: true };
  if (!ctx.commit) throw new KgateError('idempotency_key_required', 'Applying a change needs an idempotency key.');
  return { sql: ctx.commit.sql };
}

/** The scopes of a mapping: all of them for its managers, else those the caller may read through now. */
export const listScopes = defineOperation({
  id: 'listScopes',
  summary: 'List context scopes',
  description:
    "The context scopes of one mapping. The workspace's owners and admins, who manage them, get every scope " +
    "(view: managed); other members get the scopes they may read through now, with this credential (view: usable). " +
    'A mapping has at most 100 scopes, so every one is listed.',
  tags: ['scopes'],
  credentials: SCOPE_CREDENTIALS,
  scope: 'mcp:read',
  allowance: 'operation',
  idempotency: 'none',
  input: z.strictObject({ mappingId: MappingIdSchema }),
  output: z.object({
    view: z.enum(['managed', 'usable']).describe('managed: every scope of the mapping (you manage them). usable: only those you may read through now'),
    scopes: z.array(ScopeOut).describe('By name'),
    truncated: z.boolean().describe('Always false: a mapping has at most 100 scopes'),
  }),
  errors: ['invalid_request', 'not_found'],
  rest: [{ method: 'GET', path: '/scopes' }],
  async run(ctx, input) {
    const { actor } = ctx.principal;
    const managed = await ctx.services.scopes.listManaged(actor, input.mappingId).catch((error: unknown) => {
      // A member who does not manage the mapping's scopes sees those they may use.
      if (error instanceof KgateError && error.code === 'forbidden') return undefined;
      throw error;
    });
    const scopes = managed ?? (await ctx.services.scopes.listUsable(actor, input.mappingId));
    return { view: managed ? ('managed' as const) : ('usable' as const), scopes: scopes.map(presentScope), truncated: false };
  },
});

/** Creates a scope: a preview by default. */
export const createScope = defineOperation({
  ...CHANGE,
  id: 'createScope',
  summary: 'Create a context scope (preview or apply)',
  description:
    "Creates a named slice of one mapping: the notes under one of pathPrefixes (or any path, when there are none) that " +
    'carry one of tags or a tag nested under one (or any note, when there are none), with an audience: the lowest ' +
    'workspace role that may read through it, and whether agents may (default: viewers and their agents). Owners and ' +
    'admins of the workspace only. By default only previews; applying needs dryRun false and an Idempotency-Key header.',
  input: z.strictObject({
    mappingId: MappingIdSchema,
    name: DEFINITION.name,
    pathPrefixes: DEFINITION.pathPrefixes.default([]),
    tags: DEFINITION.tags.default([]),
    audience: DEFINITION.audience.default(DEFAULT_AUDIENCE),
    dryRun: DryRunSchema,
  }),
  output: z.object({
    ...CHANGE_FLAGS,
    scope: ScopeOut.extend({
      id: z.uuid().nullable().describe('The new scope id; null in a preview, where nothing is stored yet'),
      createdAt: z.iso.datetime().nullable(),
      updatedAt: z.iso.datetime().nullable(),
    }),
  }),
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/scopes' }],
  async run(ctx, input) {
    const { mappingId, dryRun, ...definition } = input;
    const scope = presentScope(await ctx.services.scopes.create(ctx.principal.actor, mappingId, definition, changeOptions(ctx, dryRun)));
    return { dryRun, applied: !dryRun, scope: dryRun ? { ...scope, id: null, createdAt: null, updatedAt: null } : scope };
  },
});

/** Replaces a scope's definition: a preview by default. */
export const updateScope = defineOperation({
  ...CHANGE,
  id: 'updateScope',
  summary: 'Change a context scope (preview or apply)',
  description:
    "Replaces a scope's whole definition (name, pathPrefixes, tags, audience): send every field, as listScopes gives " +
    'them. Owners and admins of the workspace only. By default only previews the scope as applying now would leave ' +
    'it; applying needs dryRun false and an Idempotency-Key header. An unknown scopeId is not_found.',
  input: z.strictObject({ mappingId: MappingIdSchema, scopeId: ScopeIdSchema, ...DEFINITION, dryRun: DryRunSchema }),
  output: z.object({ ...CHANGE_FLAGS, scope: ScopeOut.describe('The scope as changed (a preview: as applying now would change it)') }),
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/scopes/update' }],
  async run(ctx, input) {
    const { mappingId, scopeId, dryRun, ...definition } = input;
    const scope = await ctx.services.scopes.update(ctx.principal.actor, mappingId, scopeId, definition, changeOptions(ctx, dryRun));
    return { dryRun, applied: !dryRun, scope: presentScope(scope) };
  },
});

/** Deletes a scope: a preview by default. */
export const deleteScope = defineOperation({
  ...CHANGE,
  id: 'deleteScope',
  summary: 'Delete a context scope (preview or apply)',
  description:
    'Deletes a scope: callers that read through it get not_found from then on. Notes are not touched. Owners and ' +
    'admins of the workspace only. By default only previews; applying needs dryRun false and an Idempotency-Key header.',
  input: z.strictObject({ mappingId: MappingIdSchema, scopeId: ScopeIdSchema, dryRun: DryRunSchema }),
  output: z.object({ ...CHANGE_FLAGS, scope: ScopeOut.describe('The scope deleted (a preview: that applying would delete)') }),
  errors: CHANGE_ERRORS,
  rest: [{ method: 'DELETE', path: '/scopes' }],
  async run(ctx, input) {
    const scope = await ctx.services.scopes.remove(ctx.principal.actor, input.mappingId, input.scopeId, changeOptions(ctx, input.dryRun));
    return { dryRun: input.dryRun, applied: !input.dryRun, scope: presentScope(scope) };
  },
});

/** Managing context scopes on the Developer REST API. */
export const SCOPE_OPERATIONS: readonly AnyOperation[] = [listScopes, createScope, updateScope, deleteScope];
