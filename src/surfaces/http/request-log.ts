import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { mayContainSecret } from '../../kernel/secret-prefixes.ts';
import type { Logger } from '../../logger.ts';
import type { HttpEnv } from './context.ts';

// A caller-supplied id is kept only when it is short and plain, so it cannot forge or flood log lines, and when
// it does not carry one of our secrets (a misconfigured client once sent its token as the request id).
const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (the caller's `X-Request-Id` when sane, else a new UUID), echoes it in the response,
 * and writes one JSON log line per request. The line has method, path without query, status, duration and the
 * account id when known; never headers, query strings or bodies, which may hold tokens or note content.
 */
export function requestLog(logger: Logger): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const incoming = c.req.header('x-request-id');
    const requestId = incoming && INCOMING_ID.test(incoming) && !mayContainSecret(incoming) ? incoming : randomUUID();
    const log = logger.child({ reqId: requestId });
    c.set('requestId', requestId);
    c.set('log', log);
    const started = performance.now();
    try {
      await next();
    } finally {
      c.header('X-Request-Id', requestId);
      const principal = c.get('principal');
      log.info(
        {
          method: c.req.method,
          path: c.req.path,
          status: c.res.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
          ...(principal ? { accountId: principal.accountId } : {}),
        },
        'request',
      );
    }
  };
}
