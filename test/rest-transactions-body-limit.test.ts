import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { snapshotOf } from './support/rest-client.ts';

const LIMIT = 8 * 1024 * 1024;

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 connection driven by hand. fetch pools connections and hides which request travelled on which, and
 * what these tests check is exactly that: what becomes of a connection after a refused oversized body.
 */
class RawConnection {
  private received = Buffer.alloc(0);
  private consumed = 0;
  closed = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (data: Buffer) => {
      this.received = Buffer.concat([this.received, data]);
    });
    socket.on('close', () => {
      this.closed = true;
    });
    // A server that closes mid-upload makes writes fail; the test looks at `closed` and the responses instead.
    socket.on('error', () => undefined);
  }

  static async open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new RawConnection(socket);
  }

  async send(data: string | Buffer): Promise<void> {
    if (this.closed) return;
    if (!this.socket.write(data)) await new Promise((resolve) => this.socket.once('drain', resolve).once('close', resolve));
  }

  /** Sends a request whose body goes in chunks of 64 KiB, without a Content-Length. */
  async sendChunked(head: string, body: Buffer): Promise<void> {
    await this.send(`${head}Transfer-Encoding: chunked\r\n\r\n`);
    for (let i = 0; i < body.length && !this.closed; i += 64 * 1024) {
      const part = body.subarray(i, i + 64 * 1024);
      await this.send(Buffer.concat([Buffer.from(`${part.length.toString(16)}\r\n`), part, Buffer.from('\r\n')]));
    }
    await this.send('0\r\n\r\n');
  }

  /** The next complete response on the connection, or undefined when it closes (or times out) before one arrives. */
  async response(timeoutMs = 5000): Promise<RawResponse | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed || Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private parse(): RawResponse | undefined {
    const end = this.received.indexOf('\r\n\r\n', this.consumed);
    if (end < 0) return undefined;
    const [statusLine, ...lines] = this.received.subarray(this.consumed, end).toString('latin1').split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (this.received.length < end + 4 + length) return undefined;
    this.consumed = end + 4 + length;
    return { status: Number(statusLine!.split(' ')[1]), headers, body: this.received.subarray(end + 4, end + 4 + length).toString('utf8') };
  }

  async waitForClose(timeoutMs = 3000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    return this.closed;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

// The 8 MiB body limit of /api/dev for bodies that announce their length and for chunked bodies that do not.
describe('the request body limit of the Developer REST API', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let oversized: Buffer;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'body-limit');
    // Three notes of 3 MiB: each within the 4 MiB note limit, together over the 8 MiB body limit.
    const content = 'z'.repeat(3 * 1024 * 1024);
    oversized = Buffer.from(
      JSON.stringify({
        mappingId: owner.mapping.id,
        dryRun: false,
        actions: [1, 2, 3].map((i) => ({ type: 'write-note', path: `big/${i}.md`, content })),
      }),
    );
    expect(oversized.length).toBeGreaterThan(LIMIT);
  });
  afterAll(() => gateway.stop());

  const head = (extra = '') =>
    `POST /api/dev/transactions HTTP/1.1\r\nHost: kgate.test\r\nAuthorization: Bearer ${owner.token}\r\n` +
    `Content-Type: application/json\r\nIdempotency-Key: ${Math.random().toString(36).slice(2)}\r\n${extra}`;
  const openapi = 'GET /api/dev/openapi.json HTTP/1.1\r\nHost: kgate.test\r\n\r\n';

  async function usedUnits(): Promise<number> {
    const rows = await gateway.db.query<{ used: number }>('SELECT coalesce(sum(used), 0)::int AS used FROM usage_counters WHERE account_id = $1', [
      owner.accountId,
    ]);
    return rows[0]!.used;
  }

  function expectTooLarge(response: RawResponse | undefined): void {
    expect(response?.status).toBe(413);
    expect(response!.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(response!.body)).toMatchObject({ code: 'payload_too_large', status: 413, limit: LIMIT });
  }

  it('413 for a chunked body over 8 MiB; nothing changed and nothing charged', async () => {
    const before = await snapshotOf(gateway);
    const connection = await RawConnection.open(gateway.url);
    try {
      await connection.sendChunked(head('Connection: close\r\n'), oversized);
      expectTooLarge(await connection.response());
    } finally {
      connection.destroy();
    }
    expect(await snapshotOf(gateway)).toBe(before);
    expect(await usedUnits()).toBe(0);
  });

  // RFC 9112 s9.6: a server that will close the connection sends "Connection: close" in its response. Otherwise the
  // client goes on sending and reuses the connection, and loses its upload or its next request when the server closes it.
  it.each(['Content-Length', 'chunked'] as const)(
    'after refusing a %s body, either announces that it closes the connection or keeps serving on it',
    async (framing) => {
      const connection = await RawConnection.open(gateway.url);
      try {
        if (framing === 'chunked') await connection.sendChunked(head(), oversized);
        else {
          await connection.send(`${head()}Content-Length: ${oversized.length}\r\n\r\n`);
          await connection.send(oversized);
        }
        const refused = await connection.response();
        expectTooLarge(refused);
        if (refused!.headers.connection?.toLowerCase() === 'close') {
          expect(await connection.waitForClose()).toBe(true);
          return;
        }
        await connection.send(openapi);
        const next = await connection.response();
        expect(next?.status, `the connection ${connection.closed ? 'was closed' : 'stayed silent'} after a keep-alive 413`).toBe(200);
      } finally {
        connection.destroy();
      }
    },
  );
});
