import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isKgateError } from '../../kernel/errors.ts';
import type { Logger } from '../../logger.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import { developerApi } from '../rest/dev-api.ts';
import { mcpGateway } from '../mcp/transport.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { AccountsService } from '../../domains/accounts/index.ts';
import type { OAuthService } from '../../domains/oauth/index.ts';
import type { SessionsService } from '../../domains/sessions/index.ts';
import { oauthRoutes } from '../oauth/routes.ts';
import { webPages } from '../web/index.ts';
import type { RestDependencies } from '../rest/handler.ts';
import { accountRoutes } from './account-routes.ts';
import { bearerChallenge } from './auth.ts';
import type { HttpEnv } from './context.ts';
import { healthRoutes, type ReadinessCheck } from './health-routes.ts';
import { problemResponse } from './problem.ts';
import type { NodeHandler } from './node-exchange.ts';
import { requestLog } from './request-log.ts';

/** What the HTTP surface needs from the rest of the process. */
export interface HttpDependencies extends RestDependencies {
  logger: Logger;
  tokens: TokensService;
  readiness: ReadinessCheck;
  version: string;
  /** Public base URL; always absolute in a started gateway (tests that only inspect routes may pass ''). */
  baseUrl: string;
  vaults: VaultsService;
  accounts: AccountsService;
  sessions: SessionsService;
  oauth: OAuthService;
}

/** The path of the hosted MCP gateway (spec 4.1). */
const MCP_PATH = '/api/mcp';

/**
 * The whole HTTP surface as one Node request handler: the MCP gateway on its own Node route (see transport.ts
 * for why), everything else through the Hono application.
 */
export function createHttpHandler(deps: HttpDependencies): NodeHandler {
  const mcp = mcpGateway({ ...deps, services: { ...deps.services, vaults: deps.vaults, idempotency: deps.idempotency } });
  const hono = getRequestListener(createHttpApp(deps).fetch);
  return async (req, res) => {
    const url = req.url ?? '';
    const path = url.indexOf('?') < 0 ? url : url.slice(0, url.indexOf('?'));
    if (path === MCP_PATH || path === `${MCP_PATH}/`) return mcp(req, res);
    await hono(req, res);
  };
}

/**
 * Builds the HTTP application (every route but the MCP gateway): request ids and logs, health probes, the API routes, and one error mapping from
 * stable codes to problem JSON. The app is transport only; every decision is a domain call.
 */
export function createHttpApp(deps: HttpDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.use('*', requestLog(deps.logger));
  app.route('/', healthRoutes(deps.readiness, deps.version));
  app.route('/api/account', accountRoutes(deps.tokens));
  app.route('/api/dev', developerApi(deps));
  app.route('/', oauthRoutes(deps.oauth));
  app.route('/', webPages({ ...deps, baseUrl: () => deps.baseUrl }));

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
    (c.get('log') ?? deps.logger).error({ err: { name: error.name, message: error.message, stack: error.stack } }, 'unhandled error');
    return problemResponse(c, 'internal', 'An unexpected error occurred; the request id identifies it in the logs.');
  });
  return app;
}
