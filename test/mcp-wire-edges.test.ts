/**
 * Edges of the MCP gateway that a new user tripped over, each with its answer and proof that nothing changed and,
 * where the request is refused at the protocol level, that nothing was consumed: bodies that are not UTF-8, batch
 * bounds, tool names that are not strings, idempotency keys, and the newest-first event feed.
 */
import { request, type IncomingHttpHeaders } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_BATCH_MESSAGES } from '../src/surfaces/mcp/messages.ts';
import { createOwner } from './support/fixtures.ts';
import { countedMcpAccount, mcpUnitsUsed, useMcpSuite } from './support/mcp-suite.ts';
import { snapshotOf } from './support/rest-client.ts';

const BATCH = { 'mcp-protocol-version': '2025-03-26' };

describe('MCP wire edges', () => {
  const suite = useMcpSuite('edges');
  const { rpc, call } = suite;

  const mcpUnits = (accountId: string) => mcpUnitsUsed(suite.gateway, accountId);
  const countedAccount = (label: string) => countedMcpAccount(suite.gateway, label);

  describe('bodies that are not UTF-8', () => {
    it('answer -32700 with data.code invalid_encoding for a method name, and consume nothing', async () => {
      const member = await countedAccount('bad-method');
      const body = Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"pi'), Buffer.from([0xff]), Buffer.from('ng"}')]);
      const reply = await rpc(body, {}, member.token);
      expect(reply.status).toBe(400);
      expect(reply.body!.error).toMatchObject({ code: -32700, data: { code: 'invalid_encoding' } });
      expect(reply.body!.error.message).toContain('UTF-8');
      expect(await mcpUnits(member.accountId)).toBe(0);
    });

    it('answer -32700 for tool arguments, and write nothing', async () => {
      const member = await countedAccount('bad-args');
      const before = await snapshotOf(suite.gateway);
      for (const bytes of [[0xc0, 0xaf], [0xed, 0xa0, 0x80], [0x80]]) {
        const body = Buffer.concat([
          Buffer.from(
            `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"apply_note_writes","arguments":{"mappingId":"${member.mapping.id}",` +
              `"idempotencyKey":"utf8-${bytes.join('-')}","notes":[{"path":"in/x.md","content":"`,
          ),
          Buffer.from(bytes),
          Buffer.from('"}]}}}'),
        ]);
        const reply = await rpc(body, {}, member.token);
        expect(reply.body!.error).toMatchObject({ code: -32700, data: { code: 'invalid_encoding' } });
      }
      expect(await snapshotOf(suite.gateway)).toBe(before);
      expect(await mcpUnits(member.accountId)).toBe(0);
    });
  });

  describe('batches (protocol 2025-03-26)', () => {
    it(`hold at most ${MAX_BATCH_MESSAGES} messages: one more is refused whole with -32600, consuming nothing`, async () => {
      const member = await countedAccount('batch-over');
      const batch = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
      const reply = await rpc(batch, BATCH, member.token);
      expect(reply.status).toBe(400);
      expect(reply.body!.error).toMatchObject({ code: -32600, data: { code: 'invalid_request', limit: MAX_BATCH_MESSAGES } });
      expect(await mcpUnits(member.accountId)).toBe(0);
    });

    it(`answer ${MAX_BATCH_MESSAGES} messages in order, each reserving its own unit`, async () => {
      const member = await countedAccount('batch-full');
      const batch = Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
      const reply = await rpc(batch, BATCH, member.token);
      expect(reply.status).toBe(200);
      expect((reply.body as unknown as Array<{ id: number; result: unknown }>).map((r) => [r.id, r.result])).toEqual(batch.map((m) => [m.id, {}]));
      expect(await mcpUnits(member.accountId)).toBe(MAX_BATCH_MESSAGES);
    });

    it('stop at the allowance: entries past it are refused one by one, and only the admitted ones count', async () => {
      const member = await createOwner(suite.gateway.services, 'batch-limited');
      await suite.gateway.services.accounts.setAllowanceOverrides(member.accountId, { mcpOperationsPerMinute: 3 });
      const batch = Array.from({ length: 5 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' }));
      const reply = await rpc(batch, BATCH, member.token);
      const codes = (reply.body as unknown as Array<{ result?: unknown; error?: { data: { code: string } } }>).map((r) => r.error?.data.code ?? 'ok');
      expect(codes).toEqual(['ok', 'ok', 'ok', 'rate_limited', 'rate_limited']);
      expect(await mcpUnits(member.accountId)).toBe(3);
    });
  });

  describe('tools/call', () => {
    it.each([
      ['a number', 7],
      ['null', null],
      ['an object', { tool: 'list_vaults' }],
      ['missing', undefined],
    ])('with a name that is %s answers -32602 invalid params, not a tool result', async (_label, name) => {
      const before = await snapshotOf(suite.gateway);
      const params = name === undefined ? { arguments: {} } : { name, arguments: {} };
      const reply = await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params });
      expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32602 } });
      expect(reply.body!.result).toBeUndefined();
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });

    it('refuses a malformed idempotency key as an invalid argument, and applies nothing', async () => {
      const before = await snapshotOf(suite.gateway);
      const notes = [{ path: 'keys/a.md', content: 'a\n' }];
      for (const idempotencyKey of ['has spaces', '', 'x'.repeat(256), 42]) {
        const refused = await call('apply_note_writes', { mappingId: suite.owner.mapping.id, notes, idempotencyKey });
        expect(refused).toMatchObject({ isError: true, data: { code: 'invalid_request', details: { field: 'idempotencyKey' } } });
      }
      const missing = await call('apply_note_writes', { mappingId: suite.owner.mapping.id, notes });
      expect(missing).toMatchObject({ isError: true, data: { code: 'invalid_request', details: { field: 'idempotencyKey' } } });
      // A read tool takes no key at all: it is an undocumented argument.
      const read = await call('list_vaults', { idempotencyKey: 'k-1' });
      expect(read).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });
  });

  describe('get_knowledge_events', () => {
    it('lists the latest changes first with order desc, and pages back with nextBefore', async () => {
      const mappingId = suite.owner.mapping.id;
      for (const [k, path] of ['feed/one.md', 'feed/two.md', 'feed/three.md'].entries()) {
        const applied = await call('apply_note_writes', { mappingId, notes: [{ path, content: `${k}\n` }], idempotencyKey: `feed-${k}` });
        expect(applied.isError).toBe(false);
      }
      const latest = await call('get_knowledge_events', { mappingId, order: 'desc', limit: 2 });
      expect(latest.isError).toBe(false);
      expect((latest.data.events as Array<{ path: string }>).map((e) => e.path)).toEqual(['feed/three.md', 'feed/two.md']);
      expect(latest.data).toMatchObject({ truncated: true, nextSince: latest.data.events[0].seq, nextBefore: latest.data.events[1].seq });
      const older = await call('get_knowledge_events', { mappingId, order: 'desc', limit: 2, before: latest.data.nextBefore });
      expect(older.data.events[0].path).toBe('feed/one.md');
    });
  });
  describe('tools/list in gzip', () => {
    /** A raw POST of tools/list, with its undecoded body: fetch would decode gzip out of sight. */
    function rawToolsList(acceptEncoding: string | undefined, id: unknown = 5): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
      return new Promise((resolve, reject) => {
        const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' });
        const headers: Record<string, string> = {
          authorization: `Bearer ${suite.owner.token}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-protocol-version': '2025-11-25',
          ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }),
        };
        const req = request(`${suite.gateway.url}/api/mcp`, { method: 'POST', headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('error', reject);
        req.end(body);
      });
    }

    it('is compressed for a client that accepts gzip, to exactly the bytes a client without it receives', async () => {
      const plain = await rawToolsList(undefined);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      const gzipped = await rawToolsList('gzip, deflate, br');
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers.vary).toBe('Accept-Encoding');
      expect(Number(gzipped.headers['content-length'])).toBe(gzipped.body.length);
      expect(gzipped.body.length).toBeLessThan(plain.body.length / 4);
      expect(gunzipSync(gzipped.body).equals(plain.body)).toBe(true);
      const reply = JSON.parse(plain.body.toString('utf8')) as { result: { tools: Array<{ name: string }> } };
      expect(reply).toMatchObject({ jsonrpc: '2.0', id: 5 });
      expect(reply.result.tools.map((tool) => tool.name)).toContain('get_note_content');
    });

    it('carries each request id, and is refused by gzip;q=0', async () => {
      const id = 'ünï "quoted" id';
      const gzipped = await rawToolsList('gzip', id);
      expect(JSON.parse(gunzipSync(gzipped.body).toString('utf8')).id).toBe(id);
      const refused = await rawToolsList('gzip;q=0, identity');
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(refused.body.toString('utf8')).result.tools.length).toBeGreaterThan(0);
    });

    it('is not used for other replies, which do not vary', async () => {
      const reply = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'accept-encoding': 'gzip' });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('content-encoding')).toBeNull();
      expect(reply.headers.get('vary')).toBeNull();
    });
  });
});
