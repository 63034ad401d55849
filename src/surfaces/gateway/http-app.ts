import type { ConnectionsService, RemoteMappingsService, SyncService } from '../../domains/providers/index.ts';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isKgateError } from '../../kernel/errors.ts';
import type { Logger } from '../../logger.ts';
import type { AccountsService } from '../../domains/accounts/index.ts';
import type { OAuthService } from '../../domains/oauth/index.ts';
import type { SessionsService } from '../../domains/sessions/index.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { MembershipService, WorkspacesService } from '../../domains/workspaces/index.ts';
import { bearerChallenge } from '../http/auth.ts';
import type { HttpEnv } from '../http/context.ts';
import type { NodeHandler } from '../http/node-exchange.ts';
import { problemResponse } from '../http/problem.ts';
import { requestLog } from '../http/request-log.ts';
import { createPipeline, type Pipeline, type PipelineDependencies } from '../invocation/pipeline.ts';
import type { AnyOperation } from '../operations/operation.ts';
import { OPERATIONS } from '../operations/table.ts';
import { mcpGateway } from '../mcp/transport.ts';
import { INTELLIGENCE_INSTRUCTIONS } from '../mcp/protocol.ts';
import { INTELLIGENCE_MCP_SURFACE } from '../invocation/surface.ts';
import { INTELLIGENCE_OPERATIONS } from '../operations/intelligence-operations.ts';
import { toolCatalogue } from '../mcp/tool-list.ts';
import type { Metrics } from '../../metrics.ts';
import type { Mailer } from '../../net/mail.ts';
import { oauthRoutes } from '../oauth/routes.ts';
import { developerApi, restApi, restApiDocument } from '../rest/dev-api.ts';
import { MAX_AUTOMATION_BODY_BYTES } from '../../domains/automation/index.ts';
import { AUTOMATION_API_IDENTITY, AUTOMATION_OPERATIONS } from '../operations/automation-table.ts';
import { productRuntime } from '../product/api.ts';
import { runtimeTokenRoute } from '../product/token-endpoint.ts';
import { googleConnectionCallback } from '../product/connection-callback.ts';
import type { RuntimeCredentialsService } from '../../domains/runtime/credentials/index.ts';
import type { RuntimeAdminService } from '../../domains/runtime/admin/index.ts';
import { webPages } from '../web/index.ts';
import { sessionTransactions } from '../webmcp/transactions-route.ts';
import { accountRoutes } from './account-routes.ts';
import { healthRoutes, type ReadinessCheck } from './health-routes.ts';

/** What the HTTP surfaces need from the rest of the process. */
export interface HttpDependencies extends PipelineDependencies {
  logger: Logger;
  tokens: TokensService;
  oauth: OAuthService;
  readiness: ReadinessCheck;
  version: string;
  /** Public base URL; always absolute in a started gateway (tests that only inspect routes may pass ''). */
  baseUrl: string;
  vaults: VaultsService;
  accounts: AccountsService;
  sessions: SessionsService;
  workspaces: WorkspacesService;
  membership: MembershipService;
  /** Provider connections, remote mappings and their sync, for the account pages (docs/providers.md). */
  connections: ConnectionsService;
  remoteMappings: RemoteMappingsService;
  sync: SyncService;
  /** Sends invitation links by e-mail when an SMTP server is configured. */
  mailer?: Mailer | undefined;
  /** Reverse proxies in front of the gateway whose X-Forwarded-For is believed (KGATE_TRUST_PROXY); 0: none. */
  trustedProxies: number;
  /** The operation table the API surfaces serve (default: every operation of kgate). */
  operations?: readonly AnyOperation[];
  /** Where requests and refusals are counted for the operator (`GET /metrics`); none in tests that do not look. */
  metrics?: Metrics | undefined;
  /** Service principals' client credentials: the Product Runtime's token endpoint and the organization admins' pages. */
  runtimeCredentials: RuntimeCredentialsService;
  /** Organizations, products, installations and grants, for the organization admins' and customers' pages. */
  runtimeAdmin: RuntimeAdminService;
}

/** The path of the hosted MCP gateway (spec 4.1). */
const MCP_PATH = '/api/mcp';
/** The path of the product-only MCP endpoint (spec 4.4): the six published-intelligence tools and nothing else. */
const INTELLIGENCE_MCP_PATH = '/api/intelligence/mcp';

/** The operations of a table that the product-only endpoint serves: the published-intelligence ones, none other. */
function intelligenceOperationsOf(operations: readonly AnyOperation[]): readonly AnyOperation[] {
  const served = operations.filter((operation) => INTELLIGENCE_OPERATIONS.includes(operation));
  // The whole table's own list, when it holds all six: the catalogue is made once per array (tool-list.ts).
  return served.length === INTELLIGENCE_OPERATIONS.length ? INTELLIGENCE_OPERATIONS : served;
}

/**
 * Makes ahead of `createHttpHandler` what does not depend on services or the address: the MCP tool list, whose JSON
 * Schemas take about 25 ms to convert. `kgate serve` calls it while its database opens.
 */
export function prepareHttpHandler(operations: readonly AnyOperation[] = OPERATIONS): void {
  toolCatalogue(operations);
  toolCatalogue(intelligenceOperationsOf(operations));
}

/**
 * The whole HTTP surface as one Node request handler: the MCP gateway and the product-only MCP endpoint on their own
 * Node routes (see the transport for why), everything else through the Hono application. Both call operations through one invocation pipeline.
 */
export function createHttpHandler(deps: HttpDependencies): NodeHandler {
  const pipeline = createPipeline(deps);
  const operations = deps.operations ?? OPERATIONS;
  const mcp = mcpGateway({ pipeline, operations, version: deps.version, baseUrl: deps.baseUrl, logger: deps.logger, metrics: deps.metrics });
  const intelligence = mcpGateway({
    pipeline,
    operations: intelligenceOperationsOf(operations),
    version: deps.version,
    baseUrl: deps.baseUrl,
    logger: deps.logger,
    metrics: deps.metrics,
    path: INTELLIGENCE_MCP_PATH,
    surface: INTELLIGENCE_MCP_SURFACE,
    instructions: INTELLIGENCE_INSTRUCTIONS,
  });
  const hono = getRequestListener(createHttpApp(deps, pipeline).fetch);
  return async (req, res) => {
    const url = req.url ?? '';
    const path = url.indexOf('?') < 0 ? url : url.slice(0, url.indexOf('?'));
    if (path === MCP_PATH || path === `${MCP_PATH}/`) return mcp(req, res);
    if (path === INTELLIGENCE_MCP_PATH || path === `${INTELLIGENCE_MCP_PATH}/`) return intelligence(req, res);
    await hono(req, res);
  };
}

/**
 * Builds the HTTP application (every route but the MCP gateway): request ids and logs, health probes, the API
 * routes, the OAuth endpoints and pages, and one error mapping from stable codes to problem JSON. The app is
 * transport only; every decision is a domain call.
 */
export function createHttpApp(deps: HttpDependencies, pipeline: Pipeline = createPipeline(deps)): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.use('*', requestLog(deps.logger, deps.metrics));
  app.route('/', healthRoutes(deps.readiness, deps.version));
  app.route('/api/account', accountRoutes(pipeline));
  // The automation gateway (spec 4.8) before the Developer REST API, whose prefix it shares; its document is public
  // at its own path and, for discovery, at /openapi/automation.json.
  const automation = { pipeline, operations: AUTOMATION_OPERATIONS, baseUrl: deps.baseUrl, version: deps.version, identity: AUTOMATION_API_IDENTITY };
  app.route('/api/dev/automation', restApi({ ...automation, maxBodyBytes: MAX_AUTOMATION_BODY_BYTES }));
  const automationDocument = restApiDocument(automation);
  app.get('/openapi/automation.json', (c) => c.body(automationDocument, 200, { 'Content-Type': 'application/json' }));
  app.route('/api/dev', developerApi({ pipeline, operations: deps.operations ?? OPERATIONS, baseUrl: deps.baseUrl, version: deps.version }));
  app.route('/', oauthRoutes(deps.oauth, { trustedProxies: deps.trustedProxies }));
  // The token endpoint speaks OAuth, not the runtime envelope, and comes before the runtime's version check.
  app.route('/', runtimeTokenRoute(deps.runtimeCredentials));
  // Google's redirect back after a product's delegated connection: a browser redirect, not a runtime envelope call.
  if (deps.services.educationConnections) app.route('/', googleConnectionCallback({ educationConnections: deps.services.educationConnections }));
  app.route(
    '/',
    productRuntime({
      pipeline,
      operations: deps.operations ?? OPERATIONS,
      runtime: deps.services.runtime,
      tokens: deps.tokens,
      baseUrl: deps.baseUrl,
      version: deps.version,
    }),
  );
  const { scopes, knowledge, proposals, views, synthesis, traces, packs, models, educationRubrics, files, graph } = deps.services;
  app.route('/', webPages({ ...deps, baseUrl: () => deps.baseUrl, pipeline, scopes, knowledge, proposals, views, synthesis, traces, packs, files, graph, ...(models ? { models } : {}), ...(educationRubrics ? { educationRubrics } : {}) }));
  app.route('/', sessionTransactions({ pipeline, baseUrl: () => deps.baseUrl }));

  app.notFound((c) => problemResponse(c, 'not_found', `No route for ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    if (isKgateError(error)) {
      if (error.code === 'unauthenticated') {
        c.header('WWW-Authenticate', bearerChallenge(c.req.header('authorization') !== undefined));
      }
      const retryAfter = error.details?.retryAfterSeconds;
      if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
      return problemResponse(c, error.code, error.message, error.details ?? {});
    }
    if (error instanceof HTTPException && error.status === 413) {
      return problemResponse(c, 'payload_too_large', 'The request body is too large.');
    }
    if (error instanceof HTTPException && error.status < 500) {
      return problemResponse(c, 'invalid_request', error.message || 'The request is malformed.');
    }
    // Log the failure without the request: it may hold tokens or note content.
    (c.get('log')?.() ?? deps.logger).error({ err: { name: error.name, message: error.message, stack: error.stack } }, 'unhandled error');
    return problemResponse(c, 'internal', 'An unexpected error occurred; the request id identifies it in the logs.');
  });
  return app;
}
