import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../../logger.ts';
import type { HttpEnv } from './context.ts';
import { logRequest, requestIdOf } from './node-exchange.ts';

/**
 * Gives every request an id (the caller's `X-Request-Id` when sane, else a new UUID), echoes it in the response,
 * and writes the one request log line (see `logRequest`).
 */
export function requestLog(logger: Logger): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const requestId = requestIdOf(c.req.header('x-request-id'));
    c.set('requestId', requestId);
    c.set('log', logger.child({ reqId: requestId }));
    const started = performance.now();
    // Set before the handler runs, so the handler's response is built with it. Setting a header on a finished
    // response makes Hono copy the response through a stream, which cost more than the rest of a hello-world.
    c.header('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      if (!c.res.headers.has('x-request-id')) c.header('X-Request-Id', requestId);
      logRequest(logger, { reqId: requestId, method: c.req.method, path: c.req.path, status: c.res.status, started, accountId: c.get('principal')?.accountId });
    }
  };
}
