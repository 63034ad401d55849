import type { Database } from '../db/port.ts';
import { createAccountsService, type AccountsService } from '../domains/accounts/index.ts';
import { createGraphService, type GraphService } from '../domains/graph/index.ts';
import { createIdempotencyService, type IdempotencyService } from '../domains/idempotency/index.ts';
import { createKnowledgeService, type KnowledgeService } from '../domains/knowledge/index.ts';
import { DEFAULT_NOTE_CACHE_BYTES, createNoteBodyCache, type NoteBodyCache, type NotesService } from '../domains/notes/index.ts';
import { createNotesService } from '../domains/notes/index.ts';
import { createOAuthService, type ClientMetadataFetch, type OAuthCredentialRow, type OAuthService } from '../domains/oauth/index.ts';
import { createOnboardingService, type OnboardingService } from '../domains/onboarding/index.ts';
import { createProposalsService, type ProposalsService } from '../domains/proposals/index.ts';
import { createProvenanceService, type ProvenanceService } from '../domains/provenance/index.ts';
import { createSearchPageCache, createSearchService, type SearchIndexSnapshots, type SearchService } from '../domains/search/index.ts';
import { createScopesService, type ScopesService } from '../domains/scopes/index.ts';
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
  /** Where search indexes are stored between runs (the embedded data directory); none: built at first search. */
  searchSnapshots?: SearchIndexSnapshots;
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
  const notes = createNotesService(db, vaults, {
    bodies: noteBodies,
    onContentChanged: (vaultId) => authorityCache.forgetVault(vaultId),
    // Watches run on the knowledge the change compiled, in its transaction: their findings commit with it or not at all.
    observeChanges: async (sql, vaultId, transitions) => {
      const changes = await knowledge.recordChanges(sql, vaultId, transitions);
      await views.evaluate(sql, vaultId, transitions.map((t) => t.path));
      return changes;
    },
  });
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
  const proposals = createProposalsService({ db, clock, notes, vaults, scopes });
  const synthesis = createSynthesisService(db, clock, knowledge);
  const traces = createTracesService(db, clock);
  const sessions = createSessionsService(db, clock, accounts);
  const oauth = createOAuthService(db, clock, {
    issuer: options.publicBase,
    resource: () => `${options.publicBase()}/api/mcp`,
    fetchClientMetadata:
      options.fetchClientMetadata ?? createGuardedFetch({ allowPrivateAddresses: options.allowPrivateClientMetadata ?? false }),
    cache: oauthCache,
  });
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
    credentialCaches,
    authorityCache,
    noteBodies,
    caches,
  };
}
