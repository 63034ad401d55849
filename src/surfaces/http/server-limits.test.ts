import { once } from 'node:events';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { openRaw, parseResponses, sendUntilClosed } from '../../../test/support/raw-http.ts';
import { createLogger } from '../../logger.ts';
import { listen, type RunningServer } from './listen.ts';
import type { NodeHandler } from './node-exchange.ts';
import { DEFAULT_SERVER_LIMITS, type ServerLimits } from './server-limits.ts';

const GET = 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n';
// A request whose body stops short of its Content-Length.
const PARTIAL_POST = 'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nonly part of it';

// Small limits, so that each test sees a limit fire; checked every 50 ms so that it fires soon after.
const QUICK: Partial<ServerLimits> = { connectionsCheckingIntervalMs: 50 };

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close(1_000)));
});

/** A server whose handler answers "ok" after reading the body, counting the requests it saw, with a captured log. */
async function serve(limits: Partial<ServerLimits>, handler?: NodeHandler) {
  const logs: string[] = [];
  const logger = createLogger('info', new Writable({ write: (chunk: Buffer, _e, done) => (logs.push(chunk.toString()), done()) }));
  let handled = 0;
  const server = await listen(
    async (req, res) => {
      handled += 1;
      if (handler) return handler(req, res);
      try {
        for await (const _chunk of req);
      } catch {
        return; // The request was cut off (a timeout under test): there is no one left to answer.
      }
      res.writeHead(200, { 'Content-Length': '2' }).end('ok');
    },
    { host: '127.0.0.1', port: 0, limits, logger },
  );
  servers.push(server);
  return { server, logs, handled: () => handled };
}

function expectProblem(received: string, status: number, code: string) {
  const responses = parseResponses(received);
  expect(responses).toHaveLength(1);
  const [response] = responses;
  expect(response!.status).toBe(status);
  expect(response!.headers['content-type']).toBe('application/problem+json');
  expect(response!.headers.connection).toBe('close');
  const problem = JSON.parse(response!.body);
  expect(problem).toMatchObject({ type: `urn:kgate:problem:${code}`, title: code.replaceAll('_', ' '), status, code });
  expect(problem.detail).toEqual(expect.any(String));
  expect(problem.requestId).toBe(response!.headers['x-request-id']);
  return problem as { requestId: string; detail: string };
}

describe('HTTP server limits', () => {
  it('sets every limit on Node\'s server: the defaults, or the overrides given', async () => {
    const { server: defaults } = await serve({});
    expect(defaults.node.headersTimeout).toBe(DEFAULT_SERVER_LIMITS.headersTimeoutMs);
    expect(defaults.node.requestTimeout).toBe(DEFAULT_SERVER_LIMITS.requestTimeoutMs);
    expect(defaults.node.keepAliveTimeout).toBe(DEFAULT_SERVER_LIMITS.keepAliveTimeoutMs);
    expect(defaults.node.maxConnections).toBe(DEFAULT_SERVER_LIMITS.maxConnections);
    expect((defaults.node as unknown as { maxHeaderSize: number }).maxHeaderSize).toBe(16 * 1024);
    expect((defaults.node as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval).toBe(
      DEFAULT_SERVER_LIMITS.connectionsCheckingIntervalMs,
    );

    const { server: tuned } = await serve({ keepAliveTimeoutMs: 620_000, maxConnections: 7, requestTimeoutMs: undefined });
    expect(tuned.node.keepAliveTimeout).toBe(620_000);
    expect(tuned.node.maxConnections).toBe(7);
    expect(tuned.node.requestTimeout).toBe(DEFAULT_SERVER_LIMITS.requestTimeoutMs);
  });

  it('answers a request head over maxHeaderSize with a 431 problem document, unrouted, unlogged, and closes', async () => {
    const { server, logs, handled } = await serve({});
    const secret = 'kgp_thisMustNeverReachTheLog000000000000';
    const just = await openRaw(server.url);
    just.socket.write(`GET / HTTP/1.1\r\nHost: localhost\r\nX-Fill: ${'a'.repeat(15 * 1024)}\r\n\r\n`);
    expect((await just.nextResponse()).status).toBe(200);
    just.socket.destroy();

    const received = await sendUntilClosed(
      server.url,
      `GET /?token=${secret} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${secret}\r\nX-Fill: ${'a'.repeat(17 * 1024)}\r\n\r\n`,
    );
    const problem = expectProblem(received, 431, 'headers_too_large');
    expect(problem.detail).toContain('16384 bytes');
    expect(handled()).toBe(1);
    const line = logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.reqId === problem.requestId);
    expect(line).toMatchObject({ status: 431, code: 'headers_too_large', msg: 'request rejected before routing' });
    expect(logs.join('\n')).not.toContain(secret);
  });

  it('answers a head slower than headersTimeout with a 408 problem document and closes', async () => {
    const { server, handled } = await serve({ ...QUICK, headersTimeoutMs: 200, requestTimeoutMs: 10_000 });
    const received = await sendUntilClosed(server.url, 'GET / HTTP/1.1\r\nHost: localhost\r\n');
    expectProblem(received, 408, 'request_timeout');
    expect(handled()).toBe(0);
  });

  it('answers a body slower than requestTimeout with a 408 problem document while the handler waits for it', async () => {
    const { server } = await serve({ ...QUICK, headersTimeoutMs: 200, requestTimeoutMs: 300 });
    const received = await sendUntilClosed(server.url, PARTIAL_POST);
    expectProblem(received, 408, 'request_timeout');
  });

  it('never writes a 408 behind a response already sent for a request whose body is still arriving', async () => {
    const { server } = await serve({ ...QUICK, headersTimeoutMs: 200, requestTimeoutMs: 300 }, (_req, res) => {
      // Like an early 413 or 401: answered without reading the body, which keeps arriving.
      res.writeHead(413, { 'Content-Length': '4' }).end('big!');
      return Promise.resolve();
    });
    const received = await sendUntilClosed(server.url, PARTIAL_POST);
    expect(parseResponses(received).map((response) => response.status)).toEqual([413]);
    expect(received.endsWith('big!')).toBe(true);
  });

  it('answers a request that is not HTTP with a 400 invalid_request problem document', async () => {
    const { server, handled } = await serve({});
    const received = await sendUntilClosed(server.url, 'HELLO THERE\r\n\r\n');
    expectProblem(received, 400, 'invalid_request');
    expect(handled()).toBe(0);
  });

  it('closes a keep-alive connection that stays idle for keepAliveTimeout, and announces the timeout', async () => {
    const { server } = await serve({ keepAliveTimeoutMs: 1_000 });
    const connection = await openRaw(server.url);
    connection.socket.write(GET);
    const response = await connection.nextResponse();
    expect(response.status).toBe(200);
    expect(response.headers.connection).toBe('keep-alive');
    expect(response.headers['keep-alive']).toBe('timeout=1');
    // The client does nothing more: the server closes the connection.
    const { received, reset } = await connection.closed;
    expect(reset).toBe(false);
    expect(parseResponses(received)).toHaveLength(1);
  });

  it('does not count keep-alive idle time against headersTimeout or requestTimeout', async () => {
    const { server } = await serve({ ...QUICK, headersTimeoutMs: 100, requestTimeoutMs: 150, keepAliveTimeoutMs: 5_000 });
    const connection = await openRaw(server.url);
    connection.socket.write(GET);
    expect((await connection.nextResponse()).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    connection.socket.write(GET);
    expect((await connection.nextResponse()).status).toBe(200);
    connection.socket.destroy();
  });

  it('closes connections beyond maxConnections unanswered, reports it, and serves again once one is free', async () => {
    const { server, logs } = await serve({ maxConnections: 1 });
    const first = await openRaw(server.url);
    first.socket.write(GET);
    expect((await first.nextResponse()).status).toBe(200);

    expect(await sendUntilClosed(server.url, GET)).toBe('');
    expect(logs.map((text) => JSON.parse(text) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ level: 40, dropped: 1, maxConnections: 1 }),
    );

    first.socket.destroy();
    await once(first.socket, 'close');
    while ((await new Promise<number>((resolve) => server.node.getConnections((_error, count) => resolve(count)))) > 0) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const next = await openRaw(server.url);
    next.socket.write(GET);
    expect((await next.nextResponse()).status).toBe(200);
    next.socket.destroy();
  });
});
