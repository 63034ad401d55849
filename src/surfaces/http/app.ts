import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { isKgateError } from '../../kernel/errors.ts';
import type { Logger } from '../../logger.ts';
import type { TokensService } from '../../domains/tokens/index.ts';
import { developerApi } from '../rest/dev-api.ts';
import { mcpGateway } from '../mcp/transport.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import type { RestDependencies } from '../rest/handler.ts';
import { accountRoutes } from './account-routes.ts';
import { bearerChallenge } from './auth.ts';
import type { HttpEnv } from './context.ts';
import { healthRoutes, type ReadinessCheck } from './health-routes.ts';
import { problemResponse } from './problem.ts';
import { requestLog } from './request-log.ts';

/** What the HTTP surface needs from the rest of the process. */
export interface HttpDependencies extends RestDependencies {
  logger: Logger;
  tokens: TokensService;
  readiness: ReadinessCheck;
  version: string;
  /** Public base URL, or '' to publish relative URLs (when the port is only known after binding). */
  baseUrl: string;
  vaults: VaultsService;
}

/**
 * Builds the HTTP application: request ids and logs, health probes, the API routes, and one error mapping from
 * stable codes to problem JSON. The app is transport only; every decision is a domain call.
 */
export function createHttpApp(deps: HttpDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.use('*', requestLog(deps.logger));
  app.route('/', healthRoutes(deps.readiness, deps.version));
  app.route('/api/account', accountRoutes(deps.tokens));
  app.route('/api/dev', developerApi(deps));
  app.route('/api/mcp', mcpGateway({ ...deps, services: { ...deps.services, vaults: deps.vaults, idempotency: deps.idempotency } }));

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
