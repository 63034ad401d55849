import type { z } from 'zod';
import type { ErrorCode } from '../../kernel/error-codes.ts';
import type { CredentialKind } from '../../kernel/principal.ts';
import type { AutomationService, WebhooksService } from '../../domains/automation/index.ts';
import type { FilesService } from '../../domains/files/index.ts';
import type { GraphService } from '../../domains/graph/index.ts';
import type { IdempotentCommit, SharedWork } from '../../domains/idempotency/index.ts';
import type { KnowledgeService } from '../../domains/knowledge/index.ts';
import type { EducationConnectionsService } from '../../domains/education/index.ts';
import type { MediaService } from '../../domains/media/index.ts';
import type { ModelsService } from '../../domains/models/index.ts';
import type { EducationRubricsService } from '../../domains/education/rubrics/index.ts';
import type { NotesService } from '../../domains/notes/index.ts';
import type { PacksService } from '../../domains/packs/index.ts';
import type { ProposalsService } from '../../domains/proposals/index.ts';
import type { ProvenanceService } from '../../domains/provenance/index.ts';
import type { GrantedVault, ReachedScope, RuntimePrincipal, RuntimeScope, RuntimeService } from '../../domains/runtime/index.ts';
import type { ScopesService } from '../../domains/scopes/index.ts';
import type { SearchService } from '../../domains/search/index.ts';
import type { SynthesisService } from '../../domains/synthesis/index.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';
import type { TracesService } from '../../domains/traces/index.ts';
import type { NoteChangeCapability, VaultsService } from '../../domains/vaults/index.ts';
import type { ViewsService } from '../../domains/views/index.ts';

/** The domain services operations call. */
export interface OperationServices {
  notes: NotesService;
  /** Canvases and attachments of hosted vaults (file-operations.ts); absent where a gateway is built without them: `unavailable`. */
  files?: FilesService;
  provenance: ProvenanceService;
  search: SearchService;
  graph: GraphService;
  vaults: VaultsService;
  knowledge: KnowledgeService;
  scopes: ScopesService;
  /** Saved knowledge views, watches and findings (query_saved_knowledge_view, get_watch_findings). */
  views: ViewsService;
  /** Agents' change proposals (propose_knowledge_change, propose_action). */
  proposals: ProposalsService;
  /** Each scope's living brief (get_living_synthesis). */
  synthesis: SynthesisService;
  /** Published work sessions (get_execution_trace). */
  traces: TracesService;
  /** Where the workspace is: the public base URL that deep links (`open_app_view`) are made from. */
  links: { baseUrl: string };
  /** Published intelligence packs: the six published-intelligence tools, entitlement by product (docs/packs.md). */
  packs: PacksService;
  /** The Product Runtime's chain, scopes and shared memory (the runtime operations). */
  runtime: RuntimeService;
  /** What the Product Runtime serves here: the capabilities of its routes, and whether a model is configured. */
  runtimeCatalogue: { built: ReadonlySet<string>; modelConfigured: boolean; imageModelConfigured?: boolean };
  /** Private media (docs/education.md); absent where a gateway is built without it, whose media routes answer `unavailable`. */
  media?: MediaService;
  /** Delegated Google connections (docs/education.md); absent where a gateway is built without them: `unavailable`. */
  educationConnections?: EducationConnectionsService;
  /**
   * The model port and the intelligence ledger (docs/models.md, docs/budgets.md); absent where a gateway is built
   * without it. Without a configured model (`available` false) the model-backed operations answer `unavailable`.
   */
  models?: ModelsService;
  /** Rubric drafts (docs/education.md); absent where a gateway is built without them: `unavailable`. */
  educationRubrics?: EducationRubricsService;
  /** The automation gateway's events, triggers, runs and `process` (docs/automation.md). */
  automation?: AutomationService;
  /** Webhook endpoints, deliveries and executions (docs/automation.md). */
  webhooks?: WebhooksService;
}

/**
 * What the Product Runtime surface resolved before the call (docs/runtime.md, the chain): the service principal with
 * links 1 to 9, and the granted vault (links 10 and 11) or the context scope (link 12) its route names.
 */
export interface RuntimeCallContext {
  principal: RuntimePrincipal;
  vault?: GrantedVault;
  scope?: ReachedScope;
  /**
   * The raw request body of a route that takes bytes (ProductBinding.binary `upload`): too large to be input, whose
   * fingerprint (an idempotency key's request) carries its SHA-256 instead.
   */
  upload?: Buffer;
  /** The HTTP request id (usage receipts name it). */
  requestId?: string;
  /**
   * Aborted when the client goes away (its connection closes before the answer ended): a metered call aborts its
   * upstream model request with it.
   */
  signal?: AbortSignal;
  /** Present when the caller asked for a stream (ProductBinding.stream): where a generating operation writes as it goes. */
  stream?: GenerationSink;
  /**
   * Receipts an operation adds to its answer (a usage receipt, a safety receipt), after the operation receipt; the
   * surface sends them on success and on failure, so that a billable failure still says what it cost.
   */
  receipts?: Array<Readonly<Record<string, unknown>>>;
}

/**
 * Where a streaming operation writes (spec 6.3): `ready` once the call is admitted, reserved and about to dispatch,
 * then `delta` for each piece of text. The surface writes the final `done` event from the operation's output.
 */
export interface GenerationSink {
  ready(facts: Readonly<Record<string, unknown>>): void;
  /** Resolves once the client has room for more (a slow reader slows the model's stream instead of filling memory). */
  delta(text: string): void | Promise<void>;
}

/** Everything an operation runs with besides its input; built by the invocation pipeline, never by a surface. */
export interface OperationContext {
  principal: AuthenticatedPrincipal;
  services: OperationServices;
  /** The capability under which this caller changes notes, decided by the surface it came through. */
  noteChanges: NoteChangeCapability;
  /** Present when the call applies a change: the transaction in which the change and its idempotent outcome commit. */
  commit?: IdempotentCommit;
  /** Present on the Product Runtime: the chain as resolved for this call. */
  runtime?: RuntimeCallContext;
  /**
   * The validated idempotency key of an operation whose rule is `metered`: the operation's own ledger keeps the
   * request and its outcome (a model call must not hold a database transaction open), not the idempotency store.
   */
  idempotencyKey?: string;
}

/**
 * An applied call that may share its database transaction with concurrent calls of its lane (group commit, see
 * SharedWork); the pipeline adds how its result is presented.
 */
// Why any: the payload's type is private to the domain that made the call ready; only that domain's runner reads it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type SharedCall = Omit<SharedWork<any, unknown, never>, 'present'>;

/**
 * The OAuth scope an operation needs (spec 5): `mcp:read` for reads, `mcp:write` for previews and changes. Personal
 * access tokens carry every scope of their account; OAuth access tokens only the granted ones. `runtime`: an operation
 * only the Product Runtime serves, whose credential scopes its product bindings name (ProductBinding.needs).
 */
export type OperationScope = 'mcp:read' | 'mcp:write' | 'runtime';

/**
 * When an operation changes data and therefore needs an idempotency key: never (reads and previews), when its input
 * says `dryRun: false`, or always (the apply tools, which exist only to apply what a human approved). `metered`: a
 * metered model call (spec 8 rule 4) always needs a key, which the pipeline validates and hands to the operation
 * (OperationContext.idempotencyKey) instead of claiming it: the models ledger is that call's idempotency record.
 */
export type IdempotencyRule = 'none' | 'when-applying' | 'always' | 'metered';

/**
 * What one call of an operation costs: one unit of the operation allowance of the surface it came through (spec 8
 * rule 2: MCP and the Developer REST API are counted apart).
 */
export type AllowanceRule = 'operation';

/** MCP tool annotations (hints for clients; authority is always checked by the server). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * Where an operation is served on the Developer REST API (or the automation gateway, whose table is its own). Where
 * each input field comes from is derived, not listed: a `{name}` segment of the path is that input field; a POST or
 * PATCH reads every other field from its JSON body; a GET or DELETE from the query; `mappingId` may
 * also come from the query or the `X-Service-Mapping` header; `expectedHash` may come from `If-Match` and never
 * from a query; with `notePathFromSegments`, `path` is the route's two segments `{category}/{filename}`.
 */
export interface RestBinding {
  /** A POST or PATCH reads its fields from the JSON body; a GET or DELETE from the query. */
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** OpenAPI path template relative to its API's base (/api/dev), e.g. `/notes/{category}/{filename}`. */
  path: string;
  /** The OpenAPI operationId of this route, when the operation has more than one route; default the operation id. */
  operationId?: string;
  /** `path` is made of the route's `{category}` and `{filename}` segments (spec 4.6: exactly two). */
  notePathFromSegments?: boolean;
  /** The response is a note: ETag of its revision, If-None-Match, and `Accept: text/markdown`. */
  representation?: 'note';
}

/**
 * Where an operation is served on the Product Runtime (docs/runtime.md). A GET reads its fields from the query, a POST
 * from its JSON body; `{name}` segments of the path other than the vault's are input fields too.
 */
export interface ProductBinding {
  method: 'GET' | 'POST';
  /** The full path template: under /api/product/v1, or under /workspaces/{workspaceId}/vaults/{vaultId}. */
  path: string;
  /** The SDK's name of the operation, also its operationId in the Product Runtime's OpenAPI document. */
  operationId: string;
  /** The envelope's data kind (`service.*`). */
  kind: string;
  /** Its capability in the runtime's catalogue (getCapabilities answers a capability available only when served). */
  capability: string;
  /**
   * The route names `{workspaceId}` and `{vaultId}`: the chain resolves the installation's grant of that vault, and
   * its mapping becomes the input's `mappingId` (which a caller may never send).
   */
  vault?: boolean;
  /** The route names `{scopeId}`: the chain resolves the context scope through the installation's grants. */
  scope?: boolean;
  /** The credential scope every call needs. */
  needs?: RuntimeScope;
  /** The credential scope a call that applies a change needs; it also needs a publish grant of the vault or scope. */
  applyNeeds?: RuntimeScope;
  /**
   * The route carries bytes instead of JSON (surfaces/product/media-routes.ts): `upload` takes the raw request body,
   * its facts in headers; `download` answers the bytes themselves with Range support. Errors stay V1 envelopes.
   */
  binary?: 'upload' | 'download';
  /**
   * The route may answer a stream: with `Accept: application/x-ndjson` (and the runtime version header) the answer is
   * newline-delimited `ready`, `delta` and `done` events (surfaces/product/stream-routes.ts); otherwise JSON.
   */
  stream?: 'ndjson';
}

/** How an operation is published as an MCP tool. */
export interface McpBinding {
  /** The tool name (spec 4.2). */
  name: string;
  title: string;
  /** Appended to the operation's description: advice for a model on when and how to use the tool. */
  advice?: string;
  annotations: ToolAnnotations;
  /**
   * The tool takes the idempotency key as an `idempotencyKey` argument, which a model must always send
   * (`required`: the apply tools) or sends when it applies (`optional`).
   */
  idempotencyKey?: 'required' | 'optional';
  /** A replayed answer says `replayed: true` in the result (the operation's output schema declares the field). */
  marksReplays?: boolean;
}

/**
 * One operation, defined once: what it is (id, summary, description), what it takes and gives (input and output
 * schemas, the errors it can answer), who may call it (credential kinds, OAuth scope), what it costs (allowance),
 * when it needs an idempotency key, where it is served (REST routes, an MCP tool) and the domain call. REST routes,
 * the OpenAPI document, `tools/list` and `tools/call` are all derived from the operation table, and every call
 * goes through the one invocation pipeline, so what is published is what is enforced (DESIGN.md principle 5).
 */
export interface Operation<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  /** Stable id, also the OpenAPI operationId. */
  id: string;
  summary: string;
  description: string;
  tags: readonly string[];
  /** A strict object: undocumented fields are refused, never ignored. */
  input: I;
  /** Only the fields of this schema reach the wire; the pipeline strips the rest. */
  output: O;
  /** Error codes the operation itself can answer (authentication, plan and limit errors come from the pipeline). */
  errors: readonly ErrorCode[];
  /** The credential kinds that may call it, on surfaces that accept them. */
  credentials: readonly CredentialKind[];
  scope: OperationScope;
  allowance: AllowanceRule;
  idempotency: IdempotencyRule;
  /**
   * `heavy`: a call may validate, plan or diff many notes on the request thread, so heavy calls take turns there
   * (surfaces/invocation/fair-share.ts); absent means light.
   */
  cost?: 'heavy';
  rest?: readonly RestBinding[];
  mcp?: McpBinding;
  /** Its routes on the Product Runtime; an operation with one must accept `service_principal` credentials. */
  product?: readonly ProductBinding[];
  run(ctx: OperationContext, input: z.output<I>): Promise<z.input<O>>;
  /**
   * For a call that applies a change: the call made ready to share its commit with concurrent calls (group commit),
   * whose runner answers what `run` would; undefined when this call runs alone through `run`. The pipeline calls it
   * in place of `run`, in the call's heavy turn, and the call then waits for its group without holding one.
   */
  share?(ctx: OperationContext, input: z.output<I>): SharedCall | undefined;
  /**
   * For a call that applies a change: work done once its idempotency key is claimed and before the change's
   * database transaction opens (a remote mapping's provider write, which must not hold a transaction open). What it
   * returns reaches `run` as `ctx.commit.staged`; undefined when there is nothing to do outside the transaction.
   */
  stage?(ctx: OperationContext, input: z.output<I>, claim: { scope: string; key: string }): Promise<unknown>;
}

/** An operation of the table, whatever its schemas. */
export type AnyOperation = Operation<z.ZodObject, z.ZodObject>;

/** Declares an operation with full type inference of its input and output. */
export function defineOperation<I extends z.ZodObject, O extends z.ZodObject>(operation: Operation<I, O>): AnyOperation {
  return operation;
}

/** True when a call with this (validated) input changes data, so that it needs an idempotency key. */
export function appliesChange(operation: AnyOperation, input: Readonly<Record<string, unknown>>): boolean {
  return operation.idempotency === 'always' || (operation.idempotency === 'when-applying' && input.dryRun === false);
}

/**
 * The credentials of an account's own clients: personal access tokens, OAuth access tokens, and the person's own
 * signed-in session (the workspace pages). Each surface still accepts only its own kinds of credential.
 */
export const ACCOUNT_CREDENTIALS: readonly CredentialKind[] = ['personal_access_token', 'oauth', 'session'];

/** The credentials of a product's installation: its service principal's Product Runtime access tokens. */
export const RUNTIME_CREDENTIALS: readonly CredentialKind[] = ['service_principal'];

/** Annotations of a tool that only reads. */
export const READ_ONLY_TOOL: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
