import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Logger } from '../../logger.ts';
import type { Metrics } from '../../metrics.ts';
import type { HttpEnv } from './context.ts';
import { logRequest, requestIdOf } from './node-exchange.ts';

/**
 * The pattern of the route that answered, e.g. `/api/dev/notes/:category/:filename`: a bounded label, never the
 * path itself, which holds note and folder names. Middleware (`use`, method ALL) does not count as an answer, so a
 * request no route matched is `(unmatched)`.
 */
function routePattern(c: Context<HttpEnv>): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i -= 1) if (routes[i]!.method !== 'ALL') return routes[i]!.path;
  return '(unmatched)';
}

/**
 * Gives every request an id (the caller's `X-Request-Id` when sane, else a new UUID), echoes it in the response,
 * and writes the one request log line and its metrics (see `logRequest`).
 */
export function requestLog(logger: Logger, metrics?: Metrics): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const requestId = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', requestId);
    let requestLogger: Logger | undefined;
    c.set('log', () => (requestLogger ??= logger.child({ reqId: requestId })));
    const started = performance.now();
    // Set before the handler runs, so the handler's response is built with it. Setting a header on a finished
    // response makes Hono copy the response through a stream, which cost more than the rest of a hello-world.
    c.header('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', requestId);
      logRequest(
        logger,
        { reqId: requestId, method: c.req.method, path: c.req.path, route: metrics ? routePattern(c) : '', status: c.res.status, started, accountId: c.get('principal')?.accountId },
        metrics,
      );
    }
  };
}
