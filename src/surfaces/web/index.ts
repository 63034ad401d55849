import { Hono } from 'hono';
import type { AccountsService } from '../../domains/accounts/index.ts';
import type { FilesService } from '../../domains/files/index.ts';
import type { GraphService } from '../../domains/graph/index.ts';
import type { KnowledgeService } from '../../domains/knowledge/index.ts';
import type { OAuthService } from '../../domains/oauth/index.ts';
import type { ConnectionsService, RemoteMappingsService, SyncService } from '../../domains/providers/index.ts';
import type { ProposalsService } from '../../domains/proposals/index.ts';
import type { RuntimeAdminService } from '../../domains/runtime/admin/index.ts';
import type { RuntimeCredentialsService } from '../../domains/runtime/credentials/index.ts';
import type { ScopesService } from '../../domains/scopes/index.ts';
import type { SessionsService } from '../../domains/sessions/index.ts';
import type { SynthesisService } from '../../domains/synthesis/index.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import type { TracesService } from '../../domains/traces/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { ViewsService } from '../../domains/views/index.ts';
import type { MembershipService, WorkspacesService } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Mailer } from '../../net/mail.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { accountPages } from './account-pages.ts';
import { filePages } from './file-pages.ts';
import { connectionPages } from './connection-pages.ts';
import { consentPages } from './consent-pages.ts';
import { decisionPages } from './decision-pages.ts';
import { entityPages } from './entity-pages.ts';
import { findingPages } from './finding-pages.ts';
import { knowledgePages } from './knowledge-pages.ts';
import { memoryReviewPages } from './memory-review-pages.ts';
import { intelligencePages } from './intelligence-pages.ts';
import type { PacksService } from '../../domains/packs/index.ts';
import type { ModelsService } from '../../domains/models/index.ts';
import { productInstallPages } from './product-install-pages.ts';
import { rubricPages } from './rubric-pages.ts';
import type { EducationRubricsService } from '../../domains/education/rubrics/index.ts';
import { runtimeAdminPages } from './runtime-admin-pages.ts';
import { intelligenceSpendingPages } from './intelligence-spending-pages.ts';
import { runtimePrincipalPages } from './runtime-principal-pages.ts';
import { scopePages } from './scope-pages.ts';
import { signInPages } from './signin-pages.ts';
import { synthesisPages } from './synthesis-pages.ts';
import { tokenPages } from './token-pages.ts';
import { tracePages } from './trace-pages.ts';
import { eventPages } from './event-pages.ts';
import { notePages } from './note-pages.ts';
import { proposalPages } from './proposal-pages.ts';
import { remoteMappingPages } from './remote-mapping-pages.ts';
import { teamPages } from './team-pages.ts';
import { trashPages } from './trash-pages.ts';
import { vaultPages } from './vault-pages.ts';
import { viewPages } from './view-pages.ts';
import { workspacePages } from './workspace-pages.ts';
import { automationPages } from './automation-pages.ts';
import { serveScripts } from '../http/static-script.ts';
import { WEBMCP_ADAPTER, webmcpPolyfill } from '../webmcp/adapter-script.ts';
import { WORKSPACE_SCRIPT_ASSET } from './workspace-script.ts';

/** What the server-rendered pages need. */
export interface WebDependencies {
  /** Public base URL, e.g. `http://localhost:8787` (https in production): cookie names, Secure and Origin checks. */
  baseUrl: () => string;
  sessions: SessionsService;
  accounts: AccountsService;
  tokens: TokensService;
  vaults: VaultsService;
  oauth: OAuthService;
  workspaces: WorkspacesService;
  membership: MembershipService;
  /** Sends invitation links by e-mail when an SMTP server is configured. */
  mailer?: Mailer | undefined;
  /** Reverse proxies whose X-Forwarded-For is believed (KGATE_TRUST_PROXY): the client address of sign-in throttles. */
  trustedProxies: number;
  /** The invocation pipeline: workspace pages run the same operations as REST and MCP, as the signed-in person. */
  pipeline: Pipeline;
  /** Context scopes, managed and used on the knowledge pages. */
  scopes: ScopesService;
  /** A scope's knowledge, shown on the knowledge pages, where people review decisions. */
  knowledge: KnowledgeService;
  /** Agents' proposals, which people approve, reject, apply and undo on the proposal pages. */
  proposals: ProposalsService;
  /** Saved views, watches and findings of a scope, where people review findings. */
  views: ViewsService;
  /** Each scope's living brief, which people build and accept on its page. */
  synthesis: SynthesisService;
  /** Work sessions published into scopes, shown reconstructed with their gaps. */
  traces: TracesService;
  /** The account's provider connections, connected and disconnected on /account/providers. */
  connections: ConnectionsService;
  /** Remote mappings created on /account/vaults/remote. */
  remoteMappings: RemoteMappingsService;
  /** Their synchronization: the state shown, and "Sync now". */
  sync: SyncService;
  /** Product Runtime administration: organizations' products and brands, customers' installations, memory decisions. */
  runtimeAdmin: RuntimeAdminService;
  /** Service principals and their credentials, issued on /account/runtime. */
  runtimeCredentials: RuntimeCredentialsService;
  /** Published intelligence packs, shown on /account/intelligence to the people entitled to them. */
  packs: PacksService;
  /** The intelligence ledger, whose month and latest requests organization admins see on /account/runtime/intelligence. */
  models?: ModelsService;
  /** Rubric drafts of the account's installations, shown and marked on /account/products/rubrics. */
  educationRubrics?: EducationRubricsService;
  /** Canvases and attachments of hosted vaults: the vault's Files view, a file's page and its bytes (docs/workspace.md). */
  files?: FilesService | undefined;
  /** The link graph, for a file's page (the notes that link to it). */
  graph?: Pick<GraphService, 'fileIncoming'> | undefined;
}

/**
 * Every server-rendered page: sign-in and sign-out, the OAuth consent page, the account pages (connected
 * applications, access tokens, vaults) and the workspace (vaults, notes, events, trash, context scopes and their
 * knowledge; docs/workspace.md). Plain HTML forms; one script of our own adds copy buttons and search as you type.
 * Mounted at `/`; each route is an exact path, and no middleware is registered for `*` (it would run for every
 * other route of the app too).
 */
export function webPages(deps: WebDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.route('/', signInPages(deps));
  app.route('/', consentPages(deps));
  app.route('/', accountPages(deps));
  app.route('/', tokenPages(deps));
  app.route('/', vaultPages(deps));
  app.route('/', connectionPages(deps));
  app.route('/', remoteMappingPages(deps));
  app.route('/', runtimeAdminPages(deps));
  if (deps.models) app.route('/', intelligenceSpendingPages({ ...deps, models: deps.models }));
  app.route('/', runtimePrincipalPages(deps));
  app.route('/', productInstallPages(deps));
  app.route('/', memoryReviewPages(deps));
  app.route('/', intelligencePages(deps));
  if (deps.educationRubrics) app.route('/', rubricPages({ ...deps, educationRubrics: deps.educationRubrics }));
  app.route('/', serveScripts([WORKSPACE_SCRIPT_ASSET, WEBMCP_ADAPTER, webmcpPolyfill()]));
  app.route('/', automationPages(deps));
  app.route('/', workspacePages(deps));
  if (deps.files && deps.graph) app.route('/', filePages({ ...deps, files: deps.files, graph: deps.graph }));
  app.route('/', notePages(deps));
  app.route('/', eventPages(deps));
  app.route('/', trashPages(deps));
  app.route('/', proposalPages(deps));
  app.route('/', teamPages(deps));
  app.route('/', scopePages(deps));
  app.route('/', decisionPages(deps));
  app.route('/', knowledgePages(deps));
  app.route('/', entityPages(deps));
  app.route('/', viewPages(deps));
  app.route('/', findingPages(deps));
  app.route('/', synthesisPages(deps));
  app.route('/', tracePages(deps));
  return app;
}
