/**
 * The 2026-07-28 wire of the MCP gateway (SEP-2575 and friends; docs/mcp.md, "The 2026-07-28 revision") beside the
 * five older revisions: server/discover in that revision's shape while older callers get the legacy document, list
 * results with resultType and caching hints, one unit per recognized operation, and every refusal (malformed
 * `_meta`, wrong or missing headers, header/body mismatch, removed methods) with its status and code, the request's
 * id, and nothing consumed or changed. The MCP SDK client still connects and calls a tool at each older revision.
 */
import { request } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { PROTOCOL_VERSIONS, STATELESS_PROTOCOL_VERSION } from '../src/surfaces/mcp/protocol.ts';
import type { Structured } from './support/mcp-client.ts';
import { STREAMABLE_ACCEPT, countedMcpAccount, mcpUnitsUsed, useMcpSuite, type RpcReply } from './support/mcp-suite.ts';
import { snapshotOf } from './support/rest-client.ts';

const NEW = STATELESS_PROTOCOL_VERSION;
const META = {
  'io.modelcontextprotocol/protocolVersion': NEW,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'kgate-test', version: '1.0.0' },
};

/** The headers of a request of the new wire for `method` (and `name`, for tools/call). */
function wireHeaders(method: string, name?: string): Record<string, string> {
  return { 'mcp-protocol-version': NEW, 'mcp-method': method, ...(name === undefined ? {} : { 'mcp-name': name }) };
}

describe('MCP 2026-07-28 wire', () => {
  const suite = useMcpSuite('next');
  const { rpc } = suite;

  /** POSTs JSON through node:http with the headers exactly as given. */
  function rawPost(body: unknown, headers: Record<string, string>, token: string): Promise<RpcReply> {
    const text = JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${suite.gateway.url}/api/mcp`,
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: STREAMABLE_ACCEPT, authorization: `Bearer ${token}`, 'content-length': Buffer.byteLength(text), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const answer = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: new Headers(), body: answer ? (JSON.parse(answer) as Structured) : null });
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  }

  const mcpUnits = (accountId: string) => mcpUnitsUsed(suite.gateway, accountId);
  const countedAccount = (label: string) => countedMcpAccount(suite.gateway, label);

  describe('server/discover', () => {
    it('answers in the new shape with the versions, capabilities, identity in _meta and caching hints, for one unit', async () => {
      const member = await countedAccount('discover');
      const reply = await rpc({ jsonrpc: '2.0', id: 'd-1', method: 'server/discover', params: { _meta: META } }, wireHeaders('server/discover'), member.token);
      expect(reply.status).toBe(200);
      expect(reply.body!.id).toBe('d-1');
      expect(reply.body!.result).toEqual({
        resultType: 'complete',
        supportedVersions: [NEW, ...PROTOCOL_VERSIONS],
        capabilities: { tools: { listChanged: false } },
        instructions: expect.stringContaining('list_vaults'),
        ttlMs: 300_000,
        cacheScope: 'public',
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'kgate', title: 'kgate knowledge gateway', version: expect.any(String) } },
      });
      expect(await mcpUnits(member.accountId)).toBe(1);
    });

    it('serves a _meta without clientInfo (a SHOULD, never required)', async () => {
      const { 'io.modelcontextprotocol/clientInfo': _, ...meta } = META;
      const reply = await rpc({ jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: meta } }, wireHeaders('server/discover'));
      expect(reply.status).toBe(200);
      expect(reply.body!.result.supportedVersions).toContain(NEW);
    });

    it('keeps the legacy document for older callers, by method and by GET', async () => {
      for (const headers of [{ 'mcp-protocol-version': '2025-11-25' }, {}] as Array<Record<string, string>>) {
        const reply = await rpc({ jsonrpc: '2.0', id: 3, method: 'server/discover', params: {} }, headers);
        expect(reply.status).toBe(200);
        expect(reply.body!.result).toEqual({
          server: { name: 'kgate', title: 'kgate knowledge gateway', version: expect.any(String), protocolVersion: '2025-11-25' },
          protocolVersions: [...PROTOCOL_VERSIONS],
          capabilities: { tools: { listChanged: false } },
        });
      }
      const get = await fetch(`${suite.gateway.url}/api/mcp`, { headers: { accept: 'application/json', authorization: `Bearer ${suite.owner.token}` } });
      expect(await get.json()).toMatchObject({ protocolVersions: [...PROTOCOL_VERSIONS] });
    });
  });

  it('serves the product-only endpoint at the new wire too, with its own instructions and tools', async () => {
    const post = (method: string, id: number) =>
      fetch(`${suite.gateway.url}/api/intelligence/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: STREAMABLE_ACCEPT, authorization: `Bearer ${suite.owner.token}`, ...wireHeaders(method) },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { _meta: META } }),
      }).then(async (response) => ({ status: response.status, body: (await response.json()) as Structured }));
    const discover = await post('server/discover', 10);
    expect(discover.status).toBe(200);
    expect(discover.body.result.instructions).toContain('published intelligence');
    const list = await post('tools/list', 11);
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    expect((list.body.result.tools as Array<{ name: string }>).every((tool) => tool.name.includes('published_intelligence'))).toBe(true);
    const removed = await post('initialize', 12);
    expect({ status: removed.status, code: removed.body.error.code, id: removed.body.id }).toEqual({ status: 404, code: -32601, id: 12 });
  });

  describe('tools', () => {
    it('tools/list carries resultType and caching hints, with the same tools as the older wire', async () => {
      const member = await countedAccount('list');
      const next = await rpc({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: META } }, wireHeaders('tools/list'), member.token);
      const old = await rpc({ jsonrpc: '2.0', id: 5, method: 'tools/list', params: {} }, { 'mcp-protocol-version': '2025-11-25' }, member.token);
      expect(next.status).toBe(200);
      expect(next.body!.id).toBe(4);
      const { resultType, ttlMs, cacheScope, tools } = next.body!.result;
      expect({ resultType, ttlMs, cacheScope }).toEqual({ resultType: 'complete', ttlMs: 300_000, cacheScope: 'public' });
      expect(tools).toEqual(old.body!.result.tools);
      expect(old.body!.result.ttlMs).toBeUndefined();
      expect(await mcpUnits(member.accountId)).toBe(2);
    });

    it('tools/call runs the tool, its result marked complete, for one unit; surrounding header whitespace is accepted', async () => {
      const member = await countedAccount('call');
      // Through node:http, which sends header values as given (fetch would trim them before they left).
      const reply = await rawPost(
        { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'list_vaults', arguments: {}, _meta: META } },
        { 'mcp-protocol-version': ` ${NEW} `, 'mcp-method': '  tools/call ', 'mcp-name': '\tlist_vaults  ' },
        member.token,
      );
      expect(reply.status).toBe(200);
      expect(reply.body!.result.resultType).toBe('complete');
      expect(reply.body!.result.isError).toBeUndefined();
      const { vaults } = reply.body!.result.structuredContent as { vaults: Array<{ mappingId: string }> };
      expect(vaults.map((vault) => vault.mappingId)).toEqual([member.mapping.id]);
      expect(await mcpUnits(member.accountId)).toBe(1);
    });

    it('a tool failure stays a result with isError, as at the older revisions', async () => {
      const reply = await rpc(
        { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {}, _meta: META } },
        wireHeaders('tools/call', 'no_such_tool'),
      );
      expect(reply.status).toBe(200);
      expect(reply.body!.result).toMatchObject({ resultType: 'complete', isError: true, structuredContent: { code: 'not_found' } });
    });
  });

  describe('refusals consume nothing and change nothing', () => {
    it('answer each malformed request with its status, code and the request id', async () => {
      const member = await countedAccount('refusals');
      const write = (id: number, meta: unknown, headers: Record<string, string>, extra: Record<string, unknown> = {}) => () =>
        rpc(
          {
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: {
              name: 'apply_note_writes',
              arguments: { mappingId: member.mapping.id, idempotencyKey: `refused-${id}`, notes: [{ path: 'in/refused.md', content: '# no\n' }] },
              ...(meta === undefined ? {} : { _meta: meta }),
              ...extra,
            },
          },
          headers,
          member.token,
        );
      const call = wireHeaders('tools/call', 'apply_note_writes');
      const discover = (id: number, params: unknown, headers: Record<string, string>) => () =>
        rpc({ jsonrpc: '2.0', id, method: 'server/discover', params }, headers, member.token);
      const { 'io.modelcontextprotocol/protocolVersion': _v, ...withoutVersion } = META;
      const { 'io.modelcontextprotocol/clientCapabilities': _c, ...withoutCapabilities } = META;
      // Label, request id, the request, then the expected HTTP status and JSON-RPC code.
      const cases: Array<[string, number, () => Promise<RpcReply>, number, number]> = [
        ['no _meta', 101, write(101, undefined, call), 400, -32602],
        ['_meta without protocolVersion', 102, write(102, withoutVersion, call), 400, -32602],
        ['_meta without clientCapabilities', 103, write(103, withoutCapabilities, call), 400, -32602],
        ['_meta not an object', 104, write(104, 'meta', call), 400, -32602],
        ['clientCapabilities not an object', 105, write(105, { ...META, 'io.modelcontextprotocol/clientCapabilities': ['sampling'] }, call), 400, -32602],
        ['protocolVersion not a string', 106, write(106, { ...META, 'io.modelcontextprotocol/protocolVersion': 20260728 }, call), 400, -32602],
        ['clientInfo without a name', 107, write(107, { ...META, 'io.modelcontextprotocol/clientInfo': { version: '1' } }, call), 400, -32602],
        ['header and _meta versions differ', 108, write(108, { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }, call), 400, -32020],
        ['no version header, _meta names the new one', 109, write(109, META, { 'mcp-method': 'tools/call', 'mcp-name': 'apply_note_writes' }), 400, -32020],
        ['no Mcp-Method', 110, write(110, META, { 'mcp-protocol-version': NEW, 'mcp-name': 'apply_note_writes' }), 400, -32020],
        ['Mcp-Method of another method', 111, write(111, META, { ...call, 'mcp-method': 'tools/list' }), 400, -32020],
        ['Mcp-Method in another case', 112, write(112, META, { ...call, 'mcp-method': 'TOOLS/CALL' }), 400, -32020],
        ['no Mcp-Name', 113, write(113, META, wireHeaders('tools/call')), 400, -32020],
        ['Mcp-Name of another tool', 114, write(114, META, { ...call, 'mcp-name': 'list_vaults' }), 400, -32020],
        ['Mcp-Name in another case', 115, write(115, META, { ...call, 'mcp-name': 'APPLY_NOTE_WRITES' }), 400, -32020],
        ['no MCP-Protocol-Version for discover', 116, discover(116, { _meta: META }, { 'mcp-method': 'server/discover' }), 400, -32020],
        ['initialize, removed', 117, () => rpc({ jsonrpc: '2.0', id: 117, method: 'initialize', params: { _meta: META } }, wireHeaders('initialize'), member.token), 404, -32601],
        ['ping, removed', 118, () => rpc({ jsonrpc: '2.0', id: 118, method: 'ping', params: { _meta: META } }, wireHeaders('ping'), member.token), 404, -32601],
        ['logging/setLevel, removed', 119, () => rpc({ jsonrpc: '2.0', id: 119, method: 'logging/setLevel', params: { level: 'info', _meta: META } }, wireHeaders('logging/setLevel'), member.token), 404, -32601],
        ['an unknown method', 120, () => rpc({ jsonrpc: '2.0', id: 120, method: 'unknown/method', params: { _meta: META } }, wireHeaders('unknown/method'), member.token), 404, -32601],
        ['a batch', 121, () => rpc([{ jsonrpc: '2.0', id: 121, method: 'tools/list', params: { _meta: META } }], wireHeaders('tools/list'), member.token), 400, -32600],
        ['an Accept without the event stream', 122, write(122, META, { ...call, accept: 'application/json' }), 406, -32600],
      ];
      const before = await snapshotOf(suite.gateway);
      for (const [label, id, send, status, code] of cases) {
        const reply = await send();
        // A batch has no one id to echo: its refusal names none (null), as JSON-RPC answers an unknown id.
        const expectedId = label === 'a batch' ? null : id;
        expect({ label, status: reply.status, code: reply.body?.error?.code, id: reply.body?.id }).toEqual({ label, status, code, id: expectedId });
        expect(reply.body!.error.message).toEqual(expect.any(String));
      }
      expect(await snapshotOf(suite.gateway)).toBe(before);
      expect(await mcpUnits(member.accountId)).toBe(0);
    });

    it('echo the id and answer an unsupported version with the versions we speak and the one asked for', async () => {
      const member = await countedAccount('unsupported');
      const meta = { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' };
      const reply = await rpc({ jsonrpc: '2.0', id: 301, method: 'server/discover', params: { _meta: meta } }, { 'mcp-protocol-version': 'v999.0.0', 'mcp-method': 'server/discover' }, member.token);
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ id: 301, error: { code: -32022, data: { supported: [NEW, ...PROTOCOL_VERSIONS], requested: 'v999.0.0' } } });
      const missing = await rpc({ jsonrpc: '2.0', id: 'm-1', method: 'tools/list', params: {} }, wireHeaders('tools/list'), member.token);
      expect(missing.body).toMatchObject({ id: 'm-1', error: { code: -32602 } });
      expect(missing.body!.error.data.fields).toEqual(['_meta']);
      const { 'io.modelcontextprotocol/clientCapabilities': _, ...partial } = META;
      const incomplete = await rpc({ jsonrpc: '2.0', id: 'm-2', method: 'tools/list', params: { _meta: partial } }, wireHeaders('tools/list'), member.token);
      expect(incomplete.body).toMatchObject({ id: 'm-2', error: { code: -32602, data: { fields: ['io.modelcontextprotocol/clientCapabilities'] } } });
      expect(await mcpUnits(member.accountId)).toBe(0);
    });

    it('leave an unknown version without _meta to the older rules, unchanged', async () => {
      const reply = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/list', params: {} }, { 'mcp-protocol-version': 'v999.0.0' });
      expect(reply.status).toBe(400);
      expect(reply.body!.error).toMatchObject({ code: -32600, message: 'Unsupported MCP-Protocol-Version: v999.0.0' });
    });
  });

  describe('the MCP SDK client at every older revision', () => {
    it.each(PROTOCOL_VERSIONS)('connects at %s and calls a tool, sending that version on every later request', async (version) => {
      const seen: string[] = [];
      const transport = new StreamableHTTPClientTransport(new URL(`${suite.gateway.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${suite.owner.token}` } },
        // Asks for `version` in initialize (the SDK asks for its latest), and records the header of later requests.
        fetch: async (url, init) => {
          const headers = new Headers(init?.headers);
          let body = init?.body;
          if (typeof body === 'string' && body.includes('"method":"initialize"')) {
            const message = JSON.parse(body) as { params: { protocolVersion: string } };
            message.params.protocolVersion = version;
            body = JSON.stringify(message);
          } else if (headers.has('mcp-protocol-version')) {
            seen.push(headers.get('mcp-protocol-version')!);
          }
          return fetch(url, { ...init, body });
        },
      });
      const client = new Client({ name: 'kgate-old', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect(transport.protocolVersion).toBe(version);
        const result = await client.callTool({ name: 'list_vaults', arguments: {} });
        expect(result.isError).not.toBe(true);
        expect((result.structuredContent as { vaults: Array<{ mappingId: string }> }).vaults.map((v) => v.mappingId)).toEqual([suite.owner.mapping.id]);
        expect(seen.length).toBeGreaterThan(0);
        expect(new Set(seen)).toEqual(new Set([version]));
      } finally {
        await client.close();
      }
    });
  });
});
