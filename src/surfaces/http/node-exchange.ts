import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mayContainSecret } from '../../kernel/secret-prefixes.ts';
import type { Logger } from '../../logger.ts';
import type { Metrics } from '../../metrics.ts';

/** A route served on Node's request and response objects directly, without the web Request/Response adapter. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

// A caller-supplied id is kept only when it is short and plain, so it cannot forge or flood log lines, and when
// it does not carry one of our secrets (a misconfigured client once sent its token as the request id).
const INCOMING_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export function requestIdOf(incoming: string | undefined): string {
  return incoming && INCOMING_ID.test(incoming) && !mayContainSecret(incoming) ? incoming : randomUUID();
}

/**
 * The one request log line: method, path without query, status, duration and the account id when known; never
 * headers, query strings or bodies, which may hold tokens or note content. Both the Hono routes and the Node
 * routes write exactly this shape, and count the request in the metrics under its route pattern.
 */
export function logRequest(
  logger: Logger,
  line: { reqId: string; method: string; path: string; route: string; status: number; started: number; accountId?: string | undefined },
  metrics?: Pick<Metrics, 'observeRequest'>,
): void {
  metrics?.observeRequest(line.route, line.method, line.status, (performance.now() - line.started) / 1000);
  logger.info(
    {
      reqId: line.reqId,
      method: line.method,
      path: line.path,
      status: line.status,
      ms: Math.round((performance.now() - line.started) * 10) / 10,
      ...(line.accountId ? { accountId: line.accountId } : {}),
    },
    'request',
  );
}

/**
 * Sends a complete response with an explicit length; a body given as bytes is sent as is, without encoding, and one
 * given as parts (a large preserialized piece between small ones) is written part by part in one corked write,
 * without first copying the parts into one buffer.
 */
export function send(res: ServerResponse, status: number, headers: Record<string, string>, body?: string | Buffer | readonly Buffer[]): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }).end(body);
    return;
  }
  const length = body.reduce((sum, part) => sum + part.length, 0);
  res.writeHead(status, { ...headers, 'Content-Length': String(length) });
  res.cork();
  for (const part of body) res.write(part);
  res.end();
}
