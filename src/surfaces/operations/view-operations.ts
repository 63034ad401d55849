import { z } from 'zod';
import { MAX_KNOWLEDGE_LIMIT } from '../../domains/knowledge/index.ts';
import {
  FINDING_STATES,
  FindingSchema,
  MAX_VIEW_NAME_LENGTH,
  MAX_VIEWS_PER_SCOPE,
  MAX_WATCHES_PER_SCOPE,
  ViewDefinitionSchema,
  ViewRecordSchema,
  type SavedView,
  type ViewChangeOptions,
  type ViewVersion,
  type Watch,
} from '../../domains/views/index.ts';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import { KgateError } from '../../kernel/errors.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import { DryRunSchema } from './fields.ts';
import { ACCOUNT_CREDENTIALS, READ_ONLY_TOOL, defineOperation, type AnyOperation, type OperationContext } from './operation.ts';
import { SCOPE_BOUND_FIELDS, authorizedScope } from './scope-fields.ts';
import type { AuthorizedScope } from '../../domains/scopes/index.ts';

// Saved knowledge views, watches and findings (docs/views.md). Two MCP tools of spec 4.2 read them
// (query_saved_knowledge_view, get_watch_findings), with list_saved_knowledge_views to find a view by its name
// (the in-page adapter resolves names through it); the views and watches are managed on the Developer REST API and
// the workspace pages, previewed by default and applied with dryRun false and an Idempotency-Key. Findings are
// reviewed only by a person on the workspace page: no operation here changes a finding.

const READ = { credentials: ACCOUNT_CREDENTIALS, scope: 'mcp:read', allowance: 'operation', idempotency: 'none', tags: ['knowledge'] } as const;
const READ_ERRORS = ['invalid_request', 'not_found', 'device_encrypted'] as const;

/** Scripts and the person's own session manage views and watches; a connected agent (OAuth) does not. */
const MANAGE_CREDENTIALS: readonly CredentialKind[] = ['personal_access_token', 'session'];
// Heavy: applying may run views (a watch's baseline, the watches of a view's new version) on the request thread.
const CHANGE = { credentials: MANAGE_CREDENTIALS, scope: 'mcp:write', allowance: 'operation', idempotency: 'when-applying', tags: ['knowledge'], cost: 'heavy' } as const;
const CHANGE_ERRORS: readonly ErrorCode[] = [
  'invalid_request',
  'not_found',
  'forbidden',
  'conflict',
  'device_encrypted',
  'idempotency_key_required',
  'idempotency_key_reused',
  'idempotency_key_in_flight',
];

const VIEW_RULE =
  'A view belongs to one context scope: any other viewId (another scope\'s, a guessed or malformed one) is not_found, ' +
  'as is a scope you may not use.';
const TRUNCATION = '`truncated: true` means more items exist after nextCursor: a truncated answer is not proof of absence (spec 4.3 rule 9).';

/** Any string: a malformed id gets the same answer as a guessed one, not_found. */
const IdSchema = (what: string) => z.string().min(1).max(100).describe(what);
const ViewIdSchema = IdSchema('A saved view of this scope (list_saved_knowledge_views lists them)');
const WatchIdSchema = IdSchema('A watch of this scope');
const VersionSchema = z.number().int().min(1).max(1_000_000);
const PageFields = {
  limit: z.number().int().min(1).max(MAX_KNOWLEDGE_LIMIT).optional(),
  cursor: z.string().max(2048).optional().describe('nextCursor of the previous page'),
};

const ViewOut = z.object({
  id: z.uuid().nullable().describe('Pass as viewId; null in a preview of a creation, where nothing is stored'),
  name: z.string(),
  latestVersion: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
const DefinitionOut = z.object({
  kinds: z.array(z.string()),
  statuses: z.array(z.string()),
  text: z.string().optional(),
  owner: z.string().optional(),
  dueAfter: z.string().optional(),
  dueBefore: z.string().optional(),
  entityType: z.string().optional(),
  relationTypes: z.array(z.string()).optional(),
  sort: z.string(),
  limit: z.number().int(),
});
const VersionOut = z.object({
  version: z.number().int(),
  name: z.string(),
  definition: DefinitionOut.describe('As stored: lists sorted, defaults written out'),
  createdAt: z.iso.datetime(),
});
const WatchOut = z.object({
  id: z.uuid().nullable().describe('null in a preview of a creation'),
  viewId: z.uuid(),
  viewName: z.string(),
  pinnedVersion: z.number().int().nullable().describe('The version it runs; null: the latest'),
  evaluatedAt: z.iso.datetime().describe('Its last run'),
  overLimit: z.boolean().describe('Its last run matched more records than a watch compares, so it recorded nothing'),
  droppedFindings: z.number().int().describe('Findings not recorded because the watch held as many as it keeps'),
  counts: z.object({ new: z.number().int(), acknowledged: z.number().int(), dismissed: z.number().int(), resolved: z.number().int() }),
});

const CHANGE_FLAGS = { dryRun: z.boolean().describe('True for a preview: nothing was changed'), applied: z.boolean() };
const ScopeOut = { mappingId: z.uuid(), contextScopeId: z.uuid() };

const presentView = (view: SavedView): z.input<typeof ViewOut> => ({
  id: view.id,
  name: view.name,
  latestVersion: view.latestVersion,
  createdAt: view.createdAt.toISOString(),
  updatedAt: view.updatedAt.toISOString(),
});
const presentVersion = (version: ViewVersion): z.input<typeof VersionOut> => ({
  version: version.version,
  name: version.name,
  definition: version.definition,
  createdAt: version.createdAt.toISOString(),
});
const presentWatch = (watch: Watch): z.input<typeof WatchOut> => ({
  id: watch.id,
  viewId: watch.viewId,
  viewName: watch.viewName,
  pinnedVersion: watch.pinnedVersion,
  evaluatedAt: watch.evaluatedAt.toISOString(),
  overLimit: watch.overLimit,
  droppedFindings: watch.droppedFindings,
  counts: watch.counts,
});

/**
 * The scope of a change, authorized as the reads authorize it, but inside the request's commit when the change
 * applies (the embedded database has one connection: a read beside the open transaction would wait for it forever).
 */
async function scopeOfChange(ctx: OperationContext, input: { mappingId: string; contextScopeId: string }): Promise<AuthorizedScope> {
  if (!ctx.commit) return authorizedScope(ctx, input);
  const authorized = await ctx.services.scopes.authorize(ctx.principal.actor, input.mappingId, input.contextScopeId, ctx.commit.sql);
  if (authorized.mapping.deviceEncrypted) {
    throw new KgateError('device_encrypted', 'Note bodies of this mapping are encrypted on the device; the server compiles no knowledge from them.');
  }
  return authorized;
}

/** A preview checks what applying would and writes nothing; applying runs in the request's commit. */
function changeOptions(ctx: OperationContext, dryRun: boolean): ViewChangeOptions {
  if (dryRun) return { dryRun: true };
  if (!ctx.commit) throw new KgateError('idempotency_key_required', 'Applying a change needs an idempotency key.');
  return { sql: ctx.commit.sql };
}

/** `list_saved_knowledge_views`: the views of a scope, to find one by name. */
const listSavedViews = defineOperation({
  ...READ,
  id: 'listSavedViews',
  summary: 'List the saved knowledge views of a scope',
  description:
    `The saved views of one context scope, by name, each with its id and latest version: find a view by its name here, then ` +
    `call query_saved_knowledge_view with its id (and a version to pin one). A scope has at most ${MAX_VIEWS_PER_SCOPE} views, so every one is listed. ${VIEW_RULE}`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS }),
  output: z.object({ ...ScopeOut, views: z.array(ViewOut.extend({ id: z.uuid() })), truncated: z.boolean().describe(`Always false: a scope has at most ${MAX_VIEWS_PER_SCOPE} views`) }),
  errors: [...READ_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/views' }],
  mcp: { name: 'list_saved_knowledge_views', title: 'Saved knowledge views of a scope', annotations: READ_ONLY_TOOL },
  async run(ctx, input) {
    const scope = await authorizedScope(ctx, input);
    const views = await ctx.services.views.list(scope);
    return { mappingId: input.mappingId, contextScopeId: scope.scope.id, views: views.map((v) => ({ ...presentView(v), id: v.id })), truncated: false };
  },
});

/** A view's versions (REST only). */
const listSavedViewVersions = defineOperation({
  ...READ,
  id: 'listSavedViewVersions',
  summary: "A saved view's versions",
  description: `Every version of one saved view, newest first, with the name and definition each was saved with; versions never change. ${VIEW_RULE}`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, viewId: ViewIdSchema }),
  output: z.object({ ...ScopeOut, view: ViewOut.extend({ id: z.uuid() }), versions: z.array(VersionOut) }),
  errors: [...READ_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/views/versions' }],
  async run(ctx, input) {
    const scope = await authorizedScope(ctx, input);
    const { view, versions } = await ctx.services.views.versions(scope, input.viewId);
    return { mappingId: input.mappingId, contextScopeId: scope.scope.id, view: { ...presentView(view), id: view.id }, versions: versions.map(presentVersion) };
  },
});

/** `query_saved_knowledge_view`. */
const querySavedKnowledgeView = defineOperation({
  ...READ,
  id: 'querySavedKnowledgeView',
  summary: 'Query a saved knowledge view',
  description:
    'Runs a saved view of a context scope over its knowledge records as they are now (decisions with what a person ' +
    'decided, commitments, questions, current assertions about entities, typed relations such as contradicts), and ' +
    'answers the records with their evidence, and the view id, name and version used. Without `version` the latest ' +
    'version runs; pass a version to pin one (versions never change). A decision with status candidate is not ' +
    `confirmed by anyone. ${VIEW_RULE} ${TRUNCATION}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    viewId: ViewIdSchema,
    version: VersionSchema.optional().describe('The version to run; default the latest'),
    ...PageFields,
  }),
  output: z.object({
    ...ScopeOut,
    view: z.object({ id: z.uuid(), name: z.string().describe('The name of the version used'), version: z.number().int(), latestVersion: z.number().int(), definition: DefinitionOut }),
    records: z.array(ViewRecordSchema),
    truncated: z.boolean().describe('True when more records exist after nextCursor; not proof of absence'),
    nextCursor: z.string().nullable(),
  }),
  errors: [...READ_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/views/query' }],
  mcp: {
    name: 'query_saved_knowledge_view',
    title: 'Query a saved knowledge view',
    advice: 'Say which view and version you used; cite evidence.path and lines when you rely on a record.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const scope = await authorizedScope(ctx, input);
    const { view, version, page } = await ctx.services.views.query(scope, {
      viewId: input.viewId,
      ...(input.version !== undefined ? { version: input.version } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
    return {
      mappingId: input.mappingId,
      contextScopeId: scope.scope.id,
      view: { id: view.id, name: version.name, version: version.version, latestVersion: view.latestVersion, definition: version.definition },
      records: page.items,
      truncated: page.truncated,
      nextCursor: page.nextCursor,
    };
  },
});

const DEFINITION_FIELDS = {
  name: z.string().min(1).max(MAX_VIEW_NAME_LENGTH).describe(`1 to ${MAX_VIEW_NAME_LENGTH} characters (trimmed), unique in the scope whatever the letter case`),
  definition: ViewDefinitionSchema.describe('What the view answers (docs/views.md)'),
};
const ViewChangeOut = z.object({ ...CHANGE_FLAGS, ...ScopeOut, view: ViewOut, version: VersionOut });

/** Makes a view: a preview by default. */
const createSavedView = defineOperation({
  ...CHANGE,
  id: 'createSavedView',
  summary: 'Create a saved knowledge view (preview or apply)',
  description:
    `Saves a named view of a context scope: version 1 of its definition. Owners, admins and editors who may use the scope; at most ${MAX_VIEWS_PER_SCOPE} views per scope. ` +
    'By default only previews; applying needs dryRun false and an Idempotency-Key header.',
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, ...DEFINITION_FIELDS, dryRun: DryRunSchema }),
  output: ViewChangeOut,
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/knowledge/views' }],
  async run(ctx, input) {
    const scope = await scopeOfChange(ctx, input);
    const made = await ctx.services.views.create(ctx.principal.actor, scope, { name: input.name, definition: input.definition }, changeOptions(ctx, input.dryRun));
    const view = presentView(made.view);
    return { dryRun: input.dryRun, applied: !input.dryRun, ...ids(input, scope.scope.id), view: input.dryRun ? { ...view, id: null } : view, version: presentVersion(made.version) };
  },
});

/** Makes the next version of a view: a preview by default. */
const reviseSavedView = defineOperation({
  ...CHANGE,
  id: 'reviseSavedView',
  summary: 'Save a new version of a saved view (preview or apply)',
  description:
    'Saves the next version of a view (its name and whole definition), which becomes the latest; earlier versions stay ' +
    'as they were, and callers that pinned one keep it. Watches that follow the latest version start comparing from ' +
    'the new version. A version equal to the latest is a conflict. By default only previews; applying needs dryRun ' +
    `false and an Idempotency-Key header. ${VIEW_RULE}`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, viewId: ViewIdSchema, ...DEFINITION_FIELDS, dryRun: DryRunSchema }),
  output: ViewChangeOut,
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/knowledge/views/versions' }],
  async run(ctx, input) {
    const scope = await scopeOfChange(ctx, input);
    const made = await ctx.services.views.revise(ctx.principal.actor, scope, input.viewId, { name: input.name, definition: input.definition }, changeOptions(ctx, input.dryRun));
    return { dryRun: input.dryRun, applied: !input.dryRun, ...ids(input, scope.scope.id), view: presentView(made.view), version: presentVersion(made.version) };
  },
});

/** Deletes a view: a preview by default. */
const deleteSavedView = defineOperation({
  ...CHANGE,
  id: 'deleteSavedView',
  summary: 'Delete a saved view (preview or apply)',
  description:
    'Deletes a view with every version, its watches and their findings. By default only previews; applying needs ' +
    `dryRun false and an Idempotency-Key header. ${VIEW_RULE}`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, viewId: ViewIdSchema, dryRun: DryRunSchema }),
  output: z.object({ ...CHANGE_FLAGS, ...ScopeOut, view: ViewOut }),
  errors: CHANGE_ERRORS,
  rest: [{ method: 'DELETE', path: '/knowledge/views' }],
  async run(ctx, input) {
    const scope = await scopeOfChange(ctx, input);
    const view = await ctx.services.views.remove(ctx.principal.actor, scope, input.viewId, changeOptions(ctx, input.dryRun));
    return { dryRun: input.dryRun, applied: !input.dryRun, ...ids(input, scope.scope.id), view: presentView(view) };
  },
});

/** The watches of a scope (REST only; get_watch_findings answers them too). */
const listWatches = defineOperation({
  ...READ,
  id: 'listWatches',
  summary: 'List the watches of a scope',
  description: `The watches of a scope's views, with the state of their last run and their findings counted by review state; at most ${MAX_WATCHES_PER_SCOPE}, all listed.`,
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS }),
  output: z.object({ ...ScopeOut, watches: z.array(WatchOut.extend({ id: z.uuid() })) }),
  errors: [...READ_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/watches' }],
  async run(ctx, input) {
    const scope = await authorizedScope(ctx, input);
    return { mappingId: input.mappingId, contextScopeId: scope.scope.id, watches: (await ctx.services.views.watches(scope)).map((w) => ({ ...presentWatch(w), id: w.id })) };
  },
});

/** Watches a view: a preview by default. */
const createWatch = defineOperation({
  ...CHANGE,
  id: 'createWatch',
  summary: 'Watch a saved view (preview or apply)',
  description:
    'Watches a saved view: each time a change touches the scope, the view runs again (the pinned `version`, or the ' +
    'latest when it is null) and each record that began to match, changed or stopped matching becomes a finding, ' +
    `which people review on the workspace page. The first run only sets the baseline. At most ${MAX_WATCHES_PER_SCOPE} watches per scope. ` +
    `By default only previews; applying needs dryRun false and an Idempotency-Key header. ${VIEW_RULE}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    viewId: ViewIdSchema,
    version: VersionSchema.optional().describe('The version to run, pinned; omitted: the latest, whichever it is'),
    dryRun: DryRunSchema,
  }),
  output: z.object({ ...CHANGE_FLAGS, ...ScopeOut, watch: WatchOut }),
  errors: CHANGE_ERRORS,
  rest: [{ method: 'POST', path: '/knowledge/watches' }],
  async run(ctx, input) {
    const scope = await scopeOfChange(ctx, input);
    const watch = presentWatch(await ctx.services.views.createWatch(ctx.principal.actor, scope, { viewId: input.viewId, version: input.version ?? null }, changeOptions(ctx, input.dryRun)));
    return { dryRun: input.dryRun, applied: !input.dryRun, ...ids(input, scope.scope.id), watch: input.dryRun ? { ...watch, id: null } : watch };
  },
});

/** Stops a watch: a preview by default. */
const deleteWatch = defineOperation({
  ...CHANGE,
  id: 'deleteWatch',
  summary: 'Stop a watch (preview or apply)',
  description: 'Stops a watch and deletes its findings. By default only previews; applying needs dryRun false and an Idempotency-Key header.',
  input: z.strictObject({ ...SCOPE_BOUND_FIELDS, watchId: WatchIdSchema, dryRun: DryRunSchema }),
  output: z.object({ ...CHANGE_FLAGS, ...ScopeOut, watch: WatchOut }),
  errors: CHANGE_ERRORS,
  rest: [{ method: 'DELETE', path: '/knowledge/watches' }],
  async run(ctx, input) {
    const scope = await scopeOfChange(ctx, input);
    const watch = await ctx.services.views.removeWatch(ctx.principal.actor, scope, input.watchId, changeOptions(ctx, input.dryRun));
    return { dryRun: input.dryRun, applied: !input.dryRun, ...ids(input, scope.scope.id), watch: presentWatch(watch) };
  },
});

/** `get_watch_findings`. */
const getWatchFindings = defineOperation({
  ...READ,
  id: 'getWatchFindings',
  summary: 'Findings of watches and their review state',
  description:
    "Findings recorded by the watches of a context scope, newest first: what changed between two runs of a watched " +
    'saved view (a record that began to match, changed, or stopped matching), the record as the run saw it with its ' +
    'evidence, and the review state a person gave it (new, acknowledged, dismissed, resolved). Only a person changes ' +
    'a review state, on the workspace page; no tool can. Findings about notes outside the scope now are not answered. ' +
    `Also answers the scope's watches with the state of their last run. ${VIEW_RULE} ${TRUNCATION}`,
  input: z.strictObject({
    ...SCOPE_BOUND_FIELDS,
    watchId: WatchIdSchema.optional().describe('Only this watch'),
    states: z.array(z.enum(FINDING_STATES)).min(1).max(FINDING_STATES.length).optional().describe('Only these review states; default all'),
    ...PageFields,
  }),
  output: z.object({
    ...ScopeOut,
    findings: z.array(FindingSchema),
    watches: z.array(WatchOut.extend({ id: z.uuid() })).describe("The scope's watches (all of them, or the one asked for)"),
    truncated: z.boolean().describe('True when more findings exist after nextCursor; not proof of absence'),
    nextCursor: z.string().nullable(),
  }),
  errors: [...READ_ERRORS],
  rest: [{ method: 'GET', path: '/knowledge/watches/findings' }],
  mcp: {
    name: 'get_watch_findings',
    title: 'Watch findings and their review state',
    advice: 'A finding in state new has not been looked at by a person; acknowledged, dismissed and resolved are what a person decided.',
    annotations: READ_ONLY_TOOL,
  },
  async run(ctx, input) {
    const scope = await authorizedScope(ctx, input);
    const page = await ctx.services.views.findings(scope, {
      ...(input.watchId !== undefined ? { watchId: input.watchId } : {}),
      ...(input.states !== undefined ? { states: input.states } : {}),
      ...(input.limit !== undefined ? { limit: input.limit } : {}),
      ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
    });
    const watches = (await ctx.services.views.watches(scope)).filter((w) => input.watchId === undefined || w.id === input.watchId);
    return {
      mappingId: input.mappingId,
      contextScopeId: scope.scope.id,
      findings: page.items,
      watches: watches.map((w) => ({ ...presentWatch(w), id: w.id })),
      truncated: page.truncated,
      nextCursor: page.nextCursor,
    };
  },
});

function ids(input: { mappingId: string }, contextScopeId: string): { mappingId: string; contextScopeId: string } {
  return { mappingId: input.mappingId, contextScopeId };
}

/** Saved views, watches and findings: the two tools of spec 4.2, the name lookup, and their management on REST. */
export const VIEW_OPERATIONS: readonly AnyOperation[] = [
  listSavedViews,
  listSavedViewVersions,
  querySavedKnowledgeView,
  createSavedView,
  reviseSavedView,
  deleteSavedView,
  listWatches,
  getWatchFindings,
  createWatch,
  deleteWatch,
];
