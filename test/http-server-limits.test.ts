import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { openRaw, parseResponses, sendUntilClosed, type RawConnection } from './support/raw-http.ts';

const HEALTH = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';

/**
 * A connection on which one request was served. Connections that earlier tests closed may still count against
 * the ceiling for a moment, so a connection refused for that reason is retried.
 */
async function openServed(url: string): Promise<RawConnection> {
  for (;;) {
    const connection = await openRaw(url);
    connection.socket.write(HEALTH);
    const response = await connection.nextResponse().catch(() => undefined);
    if (response) {
      expect(response.status).toBe(200);
      return connection;
    }
  }
}

describe('the gateway serves within its HTTP server limits', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { KGATE_KEEP_ALIVE_TIMEOUT_MS: '3000', KGATE_MAX_CONNECTIONS: '2' } });
  });
  afterAll(() => gateway.stop());

  it('keeps idle connections open for KGATE_KEEP_ALIVE_TIMEOUT_MS, and says so', async () => {
    const connection = await openRaw(gateway.url);
    connection.socket.write(HEALTH);
    const response = await connection.nextResponse();
    expect(response.status).toBe(200);
    expect(response.headers['keep-alive']).toBe('timeout=3');
    connection.socket.destroy();
  });

  it('answers an oversized request head with a 431 problem document and never logs the head', async () => {
    const token = 'kgp_HeadOfARejectedRequest000000000000000';
    const received = await sendUntilClosed(
      gateway.url,
      `GET /api/account?access_token=${token} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\n` +
        `Cookie: kgate_session=${token}\r\nX-Padding: ${'p'.repeat(16 * 1024)}\r\n\r\n`,
    );
    const [response, ...more] = parseResponses(received);
    expect(more).toEqual([]);
    expect(response!.status).toBe(431);
    expect(response!.headers['content-type']).toBe('application/problem+json');
    const problem = JSON.parse(response!.body);
    expect(problem).toMatchObject({ type: 'urn:kgate:problem:headers_too_large', status: 431, code: 'headers_too_large' });
    expect(problem.requestId).toBe(response!.headers['x-request-id']);
    const lines = gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(expect.objectContaining({ reqId: problem.requestId, status: 431, code: 'headers_too_large' }));
    expect(gateway.logs.join('\n')).not.toContain(token);
  });

  it('refuses connections beyond KGATE_MAX_CONNECTIONS and logs that it did', async () => {
    const open = [await openServed(gateway.url), await openServed(gateway.url)];
    expect(await sendUntilClosed(gateway.url, HEALTH)).toBe('');
    expect(gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ msg: expect.stringContaining('connection ceiling'), maxConnections: 2 }),
    );
    open.forEach((connection) => connection.socket.destroy());
    await Promise.all(open.map((connection) => connection.closed));
  });
});
