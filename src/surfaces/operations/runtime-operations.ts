import { z } from 'zod';
import { KgateError } from '../../kernel/errors.ts';
import { CommitmentSchema, DecisionSchema, QuestionSchema } from '../../domains/knowledge/index.ts';
import { MAX_MEMORY_PAGE, MemoryCandidateInputSchema, effectiveScopePolicy, type MemoryEntry, RUNTIME_VERSION, RuntimeScopeSchema, VaultGrantAccessSchema } from '../../domains/runtime/index.ts';
import {
  CapabilityAvailabilitySchema,
  ComposedPresentationSchema,
  catalogueAvailability,
  composePresentation,
} from '../../domains/runtime/presentation/index.ts';
import { AudienceSchema } from '../../domains/scopes/index.ts';
import { ApprovalPolicySchema, mappingWriteSummary } from '../../domains/vaults/index.ts';
import { WorkspaceRoleSchema } from '../../domains/workspaces/index.ts';
import { CursorSchema, MappingIdSchema } from './fields.ts';
import { RUNTIME_CREDENTIALS, defineOperation, type AnyOperation, type OperationContext, type RuntimeCallContext } from './operation.ts';

const V1 = '/api/product/v1';
const RUNTIME = { credentials: RUNTIME_CREDENTIALS, scope: 'runtime', allowance: 'operation', idempotency: 'none', tags: ['runtime'] } as const;

/** The chain as the Product Runtime surface resolved it; an operation of this file runs nowhere else. */
function chainOf(ctx: OperationContext): RuntimeCallContext {
  if (!ctx.runtime) throw new KgateError('forbidden', 'This operation is served only by the Product Runtime.');
  return ctx.runtime;
}

/** The context scope a `{scopeId}` route resolved. */
function scopeOf(ctx: OperationContext) {
  const scope = chainOf(ctx).scope;
  if (!scope) throw new KgateError('scope_not_found', 'The route names no context scope.');
  return scope;
}

const ScopeIdSchema = z.uuid().describe('A context scope of a vault granted to your installation');

/** getRuntimeContext: who the caller is, as the server's records say, and how the product presents itself. */
const getRuntimeContext = defineOperation({
  ...RUNTIME,
  id: 'getRuntimeContext',
  summary: 'Runtime context',
  description:
    'The organization, product, installation and service principal behind the access token, its credential scopes, ' +
    'the workspaces the customer assigned to the installation (at most 100; getWorkspace lists the vaults granted in ' +
    'each), and the product\'s presentation (brand, experience pack, domain pack), applied after authorization. ' +
    'Presentation is never a grant.',
  input: z.strictObject({}),
  output: z.object({
    runtimeVersion: z.literal(RUNTIME_VERSION),
    adapter: z.literal('hosted'),
    organization: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
    product: z.object({ id: z.uuid(), slug: z.string(), name: z.string() }),
    installation: z.object({ id: z.uuid() }),
    principal: z.object({ id: z.uuid(), name: z.string(), scopes: z.array(RuntimeScopeSchema) }),
    workspaces: z.array(z.object({ id: z.uuid(), name: z.string() })),
    presentation: ComposedPresentationSchema,
  }),
  errors: [],
  product: [{ method: 'GET', path: `${V1}/context`, operationId: 'getRuntimeContext', kind: 'service.runtime-context', capability: 'runtime.context' }],
  async run(ctx) {
    const { principal } = chainOf(ctx);
    const [sources, workspaces] = await Promise.all([ctx.services.runtime.presentationSources(principal), ctx.services.runtime.assignedWorkspaces(principal)]);
    const presentation = composePresentation(sources);
    return {
      runtimeVersion: RUNTIME_VERSION,
      adapter: 'hosted' as const,
      organization: { id: principal.organization.id, slug: principal.organization.slug, name: principal.organization.name },
      product: { id: principal.product.id, slug: principal.product.slug, name: principal.product.name },
      installation: { id: principal.installationId },
      principal: { id: principal.principalId, name: principal.principalName, scopes: [...principal.scopes] },
      workspaces,
      presentation,
    };
  },
});

/** getCapabilities: each capability of the runtime's catalogue, available here or not, and why. */
const getCapabilities = defineOperation({
  ...RUNTIME,
  id: 'getCapabilities',
  summary: 'Capabilities',
  description:
    'Every capability of the Product Runtime with its availability on this server: a capability is available only ' +
    'when this server serves it (and, for model-backed ones, a model is configured); otherwise it is unavailable with ' +
    'a reason. `granted` says whether the access token carries the credential scope it needs.',
  input: z.strictObject({}),
  output: z.object({
    capabilities: z.array(CapabilityAvailabilitySchema),
    granted: z.array(z.string()).describe('Ids of the capabilities whose credential scope the access token carries (or that need none)'),
  }),
  errors: [],
  product: [{ method: 'GET', path: `${V1}/capabilities`, operationId: 'getCapabilities', kind: 'service.runtime-capabilities', capability: 'runtime.capabilities' }],
  run(ctx) {
    const { principal } = chainOf(ctx);
    const capabilities = catalogueAvailability(ctx.services.runtimeCatalogue);
    const granted = capabilities.filter((c) => c.scope === null || principal.scopes.includes(c.scope)).map((c) => c.id);
    return Promise.resolve({ capabilities, granted });
  },
});

const GrantedVaultSchema = z.object({
  workspaceId: z.uuid(),
  vaultId: z.uuid(),
  name: z.string(),
  access: VaultGrantAccessSchema,
  boundAt: z.iso.datetime().nullable(),
});

/** getWorkspace: an assigned workspace and the vaults the customer granted in it. */
const getWorkspace = defineOperation({
  ...RUNTIME,
  id: 'getWorkspace',
  summary: 'Workspace',
  description: 'A workspace the customer assigned to your installation, and the vaults granted to it there (read, or read and publish).',
  input: z.strictObject({ workspaceId: z.uuid().describe('A workspace assigned to your installation') }),
  output: z.object({ workspace: z.object({ id: z.uuid(), name: z.string() }), vaults: z.array(GrantedVaultSchema) }),
  errors: ['workspace_not_assigned'],
  product: [{ method: 'GET', path: `${V1}/workspaces/{workspaceId}`, operationId: 'getWorkspace', kind: 'service.workspace', capability: 'runtime.workspace' }],
  async run(ctx, input) {
    const { workspace, vaults } = await ctx.services.runtime.workspace(chainOf(ctx).principal, input.workspaceId);
    return {
      workspace,
      vaults: vaults.map(({ workspaceId, vaultId, name, access, boundAt }) => ({ workspaceId, vaultId, name, access, boundAt: boundAt?.toISOString() ?? null })),
    };
  },
});

/** getDomainComposition: the product's domain pack, experience and brand, kept apart (spec 1.7). */
const getDomainComposition = defineOperation({
  ...RUNTIME,
  id: 'getDomainComposition',
  summary: 'Domain composition',
  description:
    'The four responsibilities of spec 1.7 kept apart: the domain intelligence pack (entity and relationship kinds, ' +
    'deterministic intelligence), the product experience pack (presentation, navigation, terminology, onboarding, ' +
    'capability visibility) and the organization brand profile. Presentation only: none of it grants anything.',
  input: z.strictObject({}),
  output: ComposedPresentationSchema.pick({ domainPack: true, experience: true, brand: true }),
  errors: [],
  product: [
    { method: 'GET', path: `${V1}/domain-composition`, operationId: 'getDomainComposition', kind: 'service.domain-composition', capability: 'runtime.domain-composition' },
  ],
  async run(ctx) {
    const composed = composePresentation(await ctx.services.runtime.presentationSources(chainOf(ctx).principal));
    return { domainPack: composed.domainPack, experience: composed.experience, brand: composed.brand };
  },
});

/** bindHostedVault: confirms the vault the product works on, through the chain; grants nothing. */
const bindHostedVault = defineOperation({
  ...RUNTIME,
  id: 'bindHostedVault',
  summary: 'Bind a hosted vault',
  description:
    'Checks the chain for one granted vault and answers it as the hosted vault the product works on, with what the ' +
    'product may do there; records when it was bound. Binding grants nothing the customer did not grant.',
  input: z.strictObject({ mappingId: MappingIdSchema }),
  output: z.object({
    workspaceId: z.uuid(),
    vaultId: z.uuid(),
    name: z.string(),
    access: VaultGrantAccessSchema,
    provider: z.string(),
    readOnly: z.boolean(),
    approvalPolicy: ApprovalPolicySchema,
    boundAt: z.iso.datetime(),
  }),
  errors: [],
  product: [
    {
      method: 'POST',
      path: '/api/product/v1/workspaces/{workspaceId}/vaults/{vaultId}/bind',
      operationId: 'bindHostedVault',
      kind: 'service.hosted-vault',
      capability: 'vault.bind',
      vault: true,
    },
  ],
  async run(ctx, input) {
    const { principal, vault } = chainOf(ctx);
    const mapping = await ctx.services.vaults.resolveMapping(ctx.principal.accountId, input.mappingId, 'read');
    const boundAt = await ctx.services.runtime.bindVault(principal, vault!);
    return {
      workspaceId: vault!.workspaceId,
      vaultId: vault!.vaultId,
      name: mapping.name,
      access: vault!.access,
      provider: mapping.provider,
      readOnly: mappingWriteSummary(mapping).readOnly,
      approvalPolicy: mapping.approvalPolicy,
      boundAt: boundAt.toISOString(),
    };
  },
});

const ScopeSummarySchema = z.object({
  scopeId: z.uuid(),
  name: z.string(),
  workspaceId: z.uuid(),
  vaultId: z.uuid(),
  pathPrefixes: z.array(z.string()),
  tags: z.array(z.string()),
});

/** Most scopes listAvailableScopes answers. */
const MAX_LISTED_SCOPES = 1000;

/** listAvailableScopes: the context scopes of the granted vaults that admit the product. */
const listAvailableScopes = defineOperation({
  ...RUNTIME,
  id: 'listAvailableScopes',
  summary: 'Available scopes',
  description:
    'The context scopes your installation may use: scopes of the vaults granted to it that admit non-person callers ' +
    `and whose audience the customer's role meets. At most ${MAX_LISTED_SCOPES}; truncated says when more exist.`,
  input: z.strictObject({ workspaceId: z.uuid().optional().describe('Only scopes of vaults in this assigned workspace') }),
  output: z.object({ scopes: z.array(ScopeSummarySchema), truncated: z.boolean() }),
  errors: ['invalid_request'],
  product: [{ method: 'GET', path: `${V1}/scopes`, operationId: 'listAvailableScopes', kind: 'service.scope-list', capability: 'scopes.list' }],
  async run(ctx, input) {
    const vaults = (await ctx.services.runtime.grantedVaults(chainOf(ctx).principal)).filter(
      (v) => input.workspaceId === undefined || v.workspaceId === input.workspaceId,
    );
    const scopes: Array<z.input<typeof ScopeSummarySchema>> = [];
    for (const vault of vaults) {
      const usable = await ctx.services.scopes.listUsable(ctx.principal.actor, vault.mappingId).catch((error: unknown) => {
        // A vault whose mapping the customer can no longer read offers no scopes; any other failure is real.
        if (error instanceof KgateError && error.code === 'not_found') return [];
        throw error;
      });
      for (const s of usable) {
        scopes.push({ scopeId: s.id, name: s.name, workspaceId: vault.workspaceId, vaultId: vault.vaultId, pathPrefixes: s.pathPrefixes, tags: s.tags });
      }
      if (scopes.length > MAX_LISTED_SCOPES) break;
    }
    return { scopes: scopes.slice(0, MAX_LISTED_SCOPES), truncated: scopes.length > MAX_LISTED_SCOPES };
  },
});

const scopeRoute = (suffix: string, operationId: string, kind: string, capability: string, method: 'GET' | 'POST' = 'GET') => ({
  method,
  path: `${V1}/scopes/{scopeId}${suffix}`,
  operationId,
  kind,
  capability,
  scope: true,
});

/** getScopeContext: what one scope is and the audience the server resolved for it. */
const getScopeContext = defineOperation({
  ...RUNTIME,
  id: 'getScopeContext',
  summary: 'Scope context',
  description: 'One context scope: its vault, its slice (path prefixes, tags) and its audience, with the customer role the server resolved.',
  input: z.strictObject({ scopeId: ScopeIdSchema }),
  output: ScopeSummarySchema.extend({ audience: AudienceSchema, customerRole: WorkspaceRoleSchema }),
  errors: [],
  product: [scopeRoute('/context', 'getScopeContext', 'service.scope-context', 'scopes.context')],
  run(ctx) {
    const { scope, vault } = scopeOf(ctx);
    const s = scope.scope;
    return Promise.resolve({
      scopeId: s.id,
      name: s.name,
      workspaceId: vault.workspaceId,
      vaultId: vault.vaultId,
      pathPrefixes: s.pathPrefixes,
      tags: s.tags,
      audience: s.audience,
      customerRole: scope.role,
    });
  },
});

/** getEffectiveScopePolicy: what the product may do through a scope, every rule that decides it applied. */
const getEffectiveScopePolicy = defineOperation({
  ...RUNTIME,
  id: 'getEffectiveScopePolicy',
  summary: 'Effective scope policy',
  description:
    'What your product may do through one context scope, as the server decides it now from every inherited rule: the ' +
    "vault grant, the credential's scopes, the mapping's flags and approval policy, and the customer's role.",
  input: z.strictObject({ scopeId: ScopeIdSchema }),
  output: z.object({
    scopeId: z.uuid(),
    read: z.boolean(),
    publish: z.boolean(),
    grant: VaultGrantAccessSchema,
    credentialScopes: z.array(RuntimeScopeSchema),
    approvalPolicy: ApprovalPolicySchema,
    previewRequired: z.boolean().describe('Applying needs a matching preview by the same credential first'),
    reasons: z.array(z.object({ code: z.string(), message: z.string() })).describe('Why publishing is not allowed, when it is not'),
  }),
  errors: [],
  product: [scopeRoute('/policy', 'getEffectiveScopePolicy', 'service.scope-policy', 'scopes.policy')],
  run(ctx) {
    const { principal } = chainOf(ctx);
    const reached = scopeOf(ctx);
    const policy = effectiveScopePolicy(principal, reached);
    return Promise.resolve({ scopeId: reached.scope.scope.id, read: true, ...policy, credentialScopes: [...principal.scopes] });
  },
});

/** How many of each kind of record getScopeIntelligence answers. */
const INTELLIGENCE_SAMPLE = 20;

/** getScopeIntelligence: the knowledge compiled from the scope's notes, bounded. */
const getScopeIntelligence = defineOperation({
  ...RUNTIME,
  id: 'getScopeIntelligence',
  summary: 'Scope intelligence',
  description:
    `Knowledge compiled from the notes of one context scope: decisions (confirmed by people, and candidates), open ` +
    `questions and open commitments, at most ${INTELLIGENCE_SAMPLE} of each; truncated says when more exist. Decisions ` +
    'with status candidate are not decided.',
  input: z.strictObject({ scopeId: ScopeIdSchema }),
  output: z.object({
    scopeId: z.uuid(),
    decisions: z.array(DecisionSchema),
    questions: z.array(QuestionSchema),
    commitments: z.array(CommitmentSchema),
    truncated: z.object({ decisions: z.boolean(), questions: z.boolean(), commitments: z.boolean() }),
  }),
  errors: ['device_encrypted'],
  product: [scopeRoute('/intelligence', 'getScopeIntelligence', 'service.scope-intelligence', 'scopes.intelligence')],
  async run(ctx) {
    const { scope } = scopeOf(ctx);
    const { knowledge } = ctx.services;
    const limit = { limit: INTELLIGENCE_SAMPLE };
    const [decisions, questions, commitments] = await Promise.all([
      knowledge.decisions(scope.slice, limit),
      knowledge.questions(scope.slice, { includeAnswered: false, ...limit }),
      knowledge.commitments(scope.slice, { includeClosed: false, ...limit }),
    ]);
    return {
      scopeId: scope.scope.id,
      decisions: decisions.items,
      questions: questions.items,
      commitments: commitments.items,
      truncated: { decisions: decisions.truncated, questions: questions.truncated, commitments: commitments.truncated },
    };
  },
});

const MemoryEntrySchema = z.object({
  id: z.uuid(),
  scopeId: z.uuid(),
  title: z.string(),
  body: z.string(),
  evidence: z.array(z.object({ path: z.string(), note: z.string().optional() })),
  status: z.enum(['candidate', 'accepted', 'rejected']),
  createdAt: z.iso.datetime(),
  decidedAt: z.iso.datetime().nullable(),
});

/** A memory entry as answered: dates as ISO strings, as every answer stores them for a replay. */
function presentMemory(entry: MemoryEntry): z.input<typeof MemoryEntrySchema> {
  return { ...entry, createdAt: entry.createdAt.toISOString(), decidedAt: entry.decidedAt?.toISOString() ?? null };
}

/** getScopeMemory: the shared memory people accepted for a scope. */
const getScopeMemory = defineOperation({
  ...RUNTIME,
  id: 'getScopeMemory',
  summary: 'Scope memory',
  description: 'The shared memory of one context scope that people accepted, newest first. Candidates never appear here until a person accepts them.',
  input: z.strictObject({
    scopeId: ScopeIdSchema,
    cursor: CursorSchema,
    limit: z.number().int().min(1).max(MAX_MEMORY_PAGE).optional().describe(`Page size, at most ${MAX_MEMORY_PAGE}`),
  }),
  output: z.object({ entries: z.array(MemoryEntrySchema), nextCursor: z.string().nullable(), truncated: z.boolean() }),
  errors: ['invalid_request'],
  product: [scopeRoute('/memory', 'getScopeMemory', 'service.scope-memory', 'scopes.memory')],
  async run(ctx, input) {
    const offset = input.cursor === undefined ? 0 : /^\d{1,9}$/.test(input.cursor) ? Number(input.cursor) : -1;
    const page = await ctx.services.runtime.acceptedMemory(scopeOf(ctx), offset, input.limit ?? 50);
    return { entries: page.entries.map(presentMemory), nextCursor: page.nextOffset === null ? null : String(page.nextOffset), truncated: page.nextOffset !== null };
  },
});

/** createSharedMemoryCandidate: proposes shared memory for a scope; a person decides. */
const createSharedMemoryCandidate = defineOperation({
  ...RUNTIME,
  idempotency: 'always',
  id: 'createSharedMemoryCandidate',
  summary: 'Propose shared memory',
  description:
    'Stores a shared memory candidate for one context scope (title, body, evidence paths). A candidate is never ' +
    'trusted memory: it waits for a person with write access to the vault to accept or reject it in the workspace. ' +
    'Needs an Idempotency-Key; a retry with the same key replays the stored answer.',
  input: z.strictObject({ scopeId: ScopeIdSchema, ...MemoryCandidateInputSchema.shape }),
  output: MemoryEntrySchema,
  errors: ['invalid_request', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_flight'],
  product: [scopeRoute('/memory/candidates', 'createSharedMemoryCandidate', 'service.memory-candidate', 'memory.candidates', 'POST')],
  async run(ctx, input) {
    const { scopeId: _scopeId, ...candidate } = input;
    return presentMemory(await ctx.services.runtime.proposeMemory(chainOf(ctx).principal, scopeOf(ctx), candidate, ctx.commit?.sql));
  },
});

/** The operations only the Product Runtime serves (docs/runtime.md, "Routes"). */
export const RUNTIME_OPERATIONS: readonly AnyOperation[] = [
  getRuntimeContext,
  getCapabilities,
  getWorkspace,
  getDomainComposition,
  bindHostedVault,
  listAvailableScopes,
  getScopeContext,
  getEffectiveScopePolicy,
  getScopeIntelligence,
  getScopeMemory,
  createSharedMemoryCandidate,
];
