import type { Database } from '../db/port.ts';
import { createAccountsService, type AccountsService } from '../domains/accounts/index.ts';
import { createGraphService, type GraphService } from '../domains/graph/index.ts';
import { createIdempotencyService, type IdempotencyService } from '../domains/idempotency/index.ts';
import { createFilesService, type FilesService } from '../domains/files/index.ts';
import { createKnowledgeService, type KnowledgeService } from '../domains/knowledge/index.ts';
import { DEFAULT_NOTE_CACHE_BYTES, createNoteBodyCache, createNoteMirror, type NoteBodyCache, type NoteChangeObserver, type NotesService } from '../domains/notes/index.ts';
import {
  createConnectionsService,
  createRemoteMappingsService,
  createRemoteNotes,
  createSyncService,
  type ConnectionsService,
  type RemoteMappingsService,
  type SyncService,
} from '../domains/providers/index.ts';
import { ADAPTERS, type ProviderWiring } from './providers.ts';
import { createProviderHttp } from './provider-http.ts';
import { createNotesService } from '../domains/notes/index.ts';
import { createOAuthService, type ClientMetadataFetch, type OAuthCredentialRow, type OAuthService } from '../domains/oauth/index.ts';
import { createOnboardingService, type OnboardingService } from '../domains/onboarding/index.ts';
import { createProposalsService, type ProposalsService } from '../domains/proposals/index.ts';
import { createAutomationService, createWebhooksService, type AutomationService, type WebhookTransport, type WebhooksService } from '../domains/automation/index.ts';
import { createWebhookTransport } from './webhook-http.ts';
import { createProvenanceService, type ProvenanceService } from '../domains/provenance/index.ts';
import { createSearchPageCache, createSearchService, type SearchIndexSnapshots, type SearchService } from '../domains/search/index.ts';
import { createScopesService, type ScopesService } from '../domains/scopes/index.ts';
import { createRuntimeService, type RuntimeService } from '../domains/runtime/index.ts';
import { createPacksService, type PacksService } from '../domains/packs/index.ts';
import { createEducationConnectionsService, type EducationConnectionsService } from '../domains/education/index.ts';
import { createEducationRubricsService, type EducationRubricsService } from '../domains/education/rubrics/index.ts';
import type { MediaConfig } from '../config-media.ts';
import type { MediaService } from '../domains/media/index.ts';
import { createModelsService, DEFAULT_SETTLE_WINDOW_MS, type ModelPort, type ModelsService } from '../domains/models/index.ts';
import { mediaServiceOf } from './media.ts';
import { createRuntimeAdminService, type RuntimeAdminService } from '../domains/runtime/admin/index.ts';
import { createRuntimeCredentialsService, type RuntimeCredentialsService } from '../domains/runtime/credentials/index.ts';
import { createSessionsService, type SessionsService } from '../domains/sessions/index.ts';
import { createSynthesisService, type SynthesisService } from '../domains/synthesis/index.ts';
import { createTracesService, type TracesService } from '../domains/traces/index.ts';
import {
  createCredentialCache,
  createTokensService,
  type CredentialCache,
  type TokenCredentialRow,
  type TokensService,
} from '../domains/tokens/index.ts';
import { createUsageService, type UsageService } from '../domains/usage/index.ts';
import { createViewsService, type ViewsService } from '../domains/views/index.ts';
import { createAuthorityCache, createVaultsService, type AuthorityCache, type VaultsService } from '../domains/vaults/index.ts';
import { createMembershipService, createWorkspacesService, type MembershipService, type WorkspacesService } from '../domains/workspaces/index.ts';
import { systemClock, type Clock } from '../kernel/clock.ts';
import { createGuardedFetch } from '../net/guarded-fetch.ts';

/** Every domain service, wired. */
export interface Services {
  accounts: AccountsService;
  workspaces: WorkspacesService;
  /** Team membership: members, roles, invitation links. */
  membership: MembershipService;
  vaults: VaultsService;
  notes: NotesService;
  /** Canvases and attachments of hosted vaults (docs/vaults.md). */
  files: FilesService;
  tokens: TokensService;
  onboarding: OnboardingService;
  idempotency: IdempotencyService;
  usage: UsageService;
  provenance: ProvenanceService;
  search: SearchService;
  graph: GraphService;
  /** Knowledge records compiled from notes, kept in step by every applied change. */
  knowledge: KnowledgeService;
  /** Context scopes: the slices of mappings that knowledge reads go through. */
  scopes: ScopesService;
  /** Agents' governed change proposals, approved by people on the workspace pages (docs/proposals.md). */
  proposals: ProposalsService;
  /** Saved knowledge views, their watches (run when a change touches their scope) and findings. */
  views: ViewsService;
  /** Living synthesis: each scope's brief, built from its knowledge records, accepted by people. */
  synthesis: SynthesisService;
  /** Execution traces: work sessions owners publish into scopes, reconstructed under current authorization. */
  traces: TracesService;
  sessions: SessionsService;
  oauth: OAuthService;
  /** Accounts' connections to Google Drive, Dropbox and GitHub (docs/providers.md). */
  connections: ConnectionsService;
  /** Creating remote mappings under those connections. */
  remoteMappings: RemoteMappingsService;
  /** Synchronization of remote mappings into their copies. */
  sync: SyncService;
  /** The Product Runtime's chain, scopes and shared memory for service principals (docs/runtime.md). */
  runtime: RuntimeService;
  /** Published intelligence packs: publishing, and the six tools' answers by product entitlement (docs/packs.md). */
  packs: PacksService;
  /** Product installations' delegated Google connections: Drive and Classroom round trips (docs/education.md). */
  educationConnections: EducationConnectionsService;
  /** Service principals, their client credentials and the client credentials grant. */
  runtimeCredentials: RuntimeCredentialsService;
  /** Organizations, products, installations, workspace assignments, vault grants and memory decisions. */
  runtimeAdmin: RuntimeAdminService;
  /** Private audio media of product installations, within each organization's storage ceiling (docs/education.md). */
  media: MediaService;
  /** The model port and the intelligence ledger (docs/models.md, docs/budgets.md). */
  models: ModelsService;
  /** Rubric drafts of product installations, proposed and versioned (docs/education.md, "Rubric drafts"). */
  educationRubrics: EducationRubricsService;
  /** The automation gateway's events, triggers, runs and process (docs/automation.md). */
  automation: AutomationService;
  /** Webhook endpoints, signed deliveries and executions (docs/automation.md). */
  webhooks: WebhooksService;
  /**
   * Resolved credentials in memory (personal access tokens, OAuth access tokens); enabled only by a gateway that
   * listens for credential notifications.
   */
  credentialCaches: readonly CredentialCache[];
  /**
   * Authority over mappings and vaults' content versions in memory; enabled only by a gateway that listens for vault
   * notifications. Note bodies are kept by content version and need no notice.
   */
  authorityCache: AuthorityCache;
  noteBodies: NoteBodyCache;
  /** The in-memory caches by the name the operator's metrics give them. */
  caches: Readonly<Record<string, { counts(): { hits: number; misses: number } }>>;
}

/** Settings of the services that depend on where the gateway is reached. */
export interface ServiceOptions {
  /** The public base URL (e.g. https://kgate.example.com); a function because a port chosen at start is known late. */
  publicBase: () => string;
  /** Fetches OAuth client ID metadata documents; bounded and guarded against private addresses by default. */
  fetchClientMetadata?: ClientMetadataFetch;
  /** Development only: let client ID metadata documents live on loopback or private addresses. */
  allowPrivateClientMetadata?: boolean;
  /** Bytes of note bodies kept in memory (DEFAULT_NOTE_CACHE_BYTES); 0 keeps none. */
  noteCacheBytes?: number;
  /** Bytes one hosted vault's canvases and attachments may take together (DEFAULT_VAULT_FILE_BYTES). */
  vaultFileBytes?: number;
  /** Where search indexes are stored between runs (the embedded data directory); none: built at first search. */
  searchSnapshots?: SearchIndexSnapshots;
  /** Providers' OAuth applications, token keys and addresses (app/providers.ts); none: no provider can be connected. */
  providers?: ProviderWiring;
  /** Where private media is kept; none: in the database. */
  media?: MediaConfig;
  /** The configured model (app/model.ts) and its total timeout; none: the model-backed endpoints answer `unavailable`. */
  model?: { port: ModelPort; timeoutMs: number };
  /**
   * How webhooks leave (docs/automation.md): a transport (tests trust their receiver's certificate with one), or the
   * guarded one, with private addresses allowed only in development; and the retry schedule, when not the default.
   */
  webhooks?: { transport?: WebhookTransport; allowPrivate?: boolean; retrySchedule?: readonly number[] };
}

/** Wires every domain service over one database. */
export function createServices(
  db: Database,
  clock: Clock = systemClock,
  options: ServiceOptions = { publicBase: () => 'http://localhost:8787' },
): Services {
  const credentialCache = createCredentialCache<TokenCredentialRow>();
  const oauthCache = createCredentialCache<OAuthCredentialRow>();
  const credentialCaches = [credentialCache, oauthCache];
  const accounts = createAccountsService(db, {
    onAccessChanged: (accountId) => credentialCaches.forEach((cache) => cache.forgetAccount(accountId)),
  });
  const authorityCache = createAuthorityCache();
  const noteBodies = createNoteBodyCache(options.noteCacheBytes ?? DEFAULT_NOTE_CACHE_BYTES);
  const workspaces = createWorkspacesService(db, { onRolesChanged: (workspaceId) => authorityCache.forgetWorkspace(workspaceId) });
  const membership = createMembershipService(db, clock, workspaces, (workspaceId) => authorityCache.forgetWorkspace(workspaceId));
  const vaults = createVaultsService(db, workspaces, authorityCache);
  const idempotency = createIdempotencyService(db);
  const knowledge = createKnowledgeService(db, clock);
  const views = createViewsService(db, clock);
  // Watches run on the knowledge the change compiled, in its transaction: their findings commit with it or not at all.
  const observeChanges: NoteChangeObserver = async (sql, vaultId, transitions) => {
    const changes = await knowledge.recordChanges(sql, vaultId, transitions);
    await views.evaluate(sql, vaultId, transitions.map((t) => t.path));
    return changes;
  };
  const onContentChanged = (vaultId: string) => authorityCache.forgetVault(vaultId);
  const providers = options.providers ?? { kinds: {}, sealer: undefined, allowPrivate: false, syncIntervalMs: 60_000 };
  const providerHttp = createProviderHttp({ allowPrivateAddresses: providers.allowPrivate, allowInsecureHttp: providers.allowPrivate });
  const forgetMappings = (ids: readonly string[]) => ids.forEach((id) => authorityCache.forgetMapping(id));
  const connections = createConnectionsService({
    db,
    adapters: ADAPTERS,
    http: providerHttp,
    kinds: providers.kinds,
    sealer: providers.sealer,
    redirectUri: (kind) => `${options.publicBase()}/account/connections/${kind}/callback`,
    clock,
    onMappingsChanged: forgetMappings,
  });
  // Remote notes are copied into their mapping's vault with the same hooks as every other note write.
  const mirror = createNoteMirror({ onContentChanged, observeChanges });
  const notes = createNotesService(db, vaults, {
    bodies: noteBodies,
    onContentChanged,
    observeChanges,
    remote: createRemoteNotes({ db, adapters: ADAPTERS, callFor: connections.callFor, mirror }),
  });
  const files = createFilesService(db, vaults, { idempotency, ...(options.vaultFileBytes !== undefined ? { maxVaultBytes: options.vaultFileBytes } : {}) });
  const sync = createSyncService({
    db,
    adapters: ADAPTERS,
    callFor: connections.callFor,
    mirror,
    clock,
    settings: { pollIntervalMs: providers.syncIntervalMs },
    onMappingChanged: (id) => forgetMappings([id]),
  });
  const remoteMappings = createRemoteMappingsService({ db, vaults, connections, adapters: ADAPTERS });
  const tokens = createTokensService(db, clock, credentialCache);
  const onboarding = createOnboardingService({ db, accounts, workspaces, vaults, tokens });
  const usage = createUsageService(db);
  const provenance = createProvenanceService(db, vaults);
  const searchPages = createSearchPageCache();
  const search = createSearchService(db, vaults, {
    pages: searchPages,
    ...(options.searchSnapshots ? { snapshots: options.searchSnapshots } : {}),
  });
  const graph = createGraphService(db, vaults);
  const scopes = createScopesService(db, clock, vaults, workspaces);
  const proposals = createProposalsService({ db, clock, notes, vaults, scopes, workspaces });
  const synthesis = createSynthesisService(db, clock, knowledge);
  const traces = createTracesService(db, clock);
  const sessions = createSessionsService(db, clock, accounts);
  const oauth = createOAuthService(db, clock, {
    issuer: options.publicBase,
    resource: () => `${options.publicBase()}/api/mcp`,
    // The product-only endpoint (spec 4.4): a client may ask for tokens good only there.
    narrowResources: () => [`${options.publicBase()}/api/intelligence/mcp`],
    fetchClientMetadata:
      options.fetchClientMetadata ?? createGuardedFetch({ allowPrivateAddresses: options.allowPrivateClientMetadata ?? false }),
    cache: oauthCache,
  });
  const runtimeCredentials = createRuntimeCredentialsService(db, {
    clock,
    tokenEndpointUrl: () => `${options.publicBase()}/api/product/v1/oauth/token`,
  });
  const runtime = createRuntimeService(db, { credentials: runtimeCredentials, scopes });
  const runtimeAdmin = createRuntimeAdminService(db, { accounts, workspaces, vaults, clock });
  const packs = createPacksService(db, clock);
  const educationConnections = createEducationConnectionsService({
    db,
    clock,
    http: providerHttp,
    sealer: providers.sealer,
    // Google's OAuth application is the Drive one; its callback for products is registered as a second redirect URI.
    google: providers.kinds.drive ? { ...providers.kinds.drive, classroomApi: providers.classroomApi ?? 'https://classroom.googleapis.com' } : undefined,
    callbackUrl: () => `${options.publicBase()}/api/product/v1/connections/google/oauth/callback`,
  });
  const media = mediaServiceOf(options.media ?? { store: 'database' }, db, clock);
  const models = createModelsService({
    db,
    model: options.model?.port,
    clock,
    // A request still waiting on its model is never taken for abandoned: the window outlasts the model's deadline.
    settleWindowMs: Math.max(DEFAULT_SETTLE_WINDOW_MS, (options.model?.timeoutMs ?? 0) + 60_000),
  });
  const webhooks = createWebhooksService({
    db,
    clock,
    workspaces,
    sealer: providers.sealer,
    transport: options.webhooks?.transport ?? createWebhookTransport({ allowPrivateAddresses: options.webhooks?.allowPrivate ?? false }),
    ...(options.webhooks?.retrySchedule ? { retrySchedule: options.webhooks.retrySchedule } : {}),
  });
  const automation = createAutomationService({ db, clock, workspaces, proposals, webhooks, vaults });
  const caches = {
    personal_access_tokens: credentialCache,
    oauth_access_tokens: oauthCache,
    mapping_authority: authorityCache,
    note_bodies: noteBodies,
    search_pages: searchPages,
  };
  return {
    accounts,
    workspaces,
    membership,
    vaults,
    notes,
    files,
    tokens,
    onboarding,
    idempotency,
    usage,
    provenance,
    search,
    graph,
    knowledge,
    scopes,
    proposals,
    views,
    synthesis,
    traces,
    sessions,
    oauth,
    connections,
    remoteMappings,
    sync,
    runtime,
    runtimeCredentials,
    runtimeAdmin,
    packs,
    media,
    models,
    educationRubrics: createEducationRubricsService(db, clock),
    automation,
    webhooks,
    educationConnections,
    credentialCaches,
    authorityCache,
    noteBodies,
    caches,
  };
}
