import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOwner } from './support/fixtures.ts';
import { STREAMABLE_ACCEPT, useMcpSuite } from './support/mcp-suite.ts';
import { restClient } from './support/rest-client.ts';

describe('MCP gateway at /api/mcp', () => {
  const suite = useMcpSuite();
  const { rpc } = suite;

  beforeAll(async () => {
    await restClient(suite.gateway, suite.owner.token).post('/notes', {
      json: { mappingId: suite.owner.mapping.id, path: 'Inbox/hello.md', content: '# Hello\nworld\n', dryRun: false },
      headers: { 'Idempotency-Key': 'seed-1' },
    });
  });

  describe('with the MCP SDK client', () => {
    it('connects, lists tools with schemas and annotations, and calls every listed tool', async () => {
      const client = new Client({ name: 'kgate-test', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(new URL(`${suite.gateway.url}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${suite.owner.token}` } },
      });
      await client.connect(transport);
      expect(client.getServerVersion()?.name).toBe('kgate');
      expect(client.getInstructions()).toContain('list_vaults');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'apply_note_deletions',
        'apply_note_writes',
        'create_or_append_note',
        'find_related',
        'get_changes',
        'get_commitments',
        'get_contradictions',
        'get_decision_evidence',
        'get_decisions',
        'get_execution_trace',
        'get_intelligence_capabilities',
        'get_knowledge_events',
        'get_living_synthesis',
        'get_note_content',
        'get_open_questions',
        'get_published_intelligence_changes',
        'get_published_intelligence_insights',
        'get_published_intelligence_state',
        'get_published_intelligence_timeline',
        'get_relationship_explanation',
        'get_temporal_records',
        'get_vault_schema',
        'get_watch_findings',
        'list_published_intelligence_sources',
        'list_saved_knowledge_views',
        'list_vaults',
        'open_app_view',
        'preview_note_deletions',
        'preview_note_writes',
        'propose_action',
        'propose_knowledge_change',
        'query_graph_relations',
        'query_saved_knowledge_view',
        'search_notes',
        'search_published_intelligence',
        'translate_canvas',
      ]);
      const readOnly = new Set([
        'find_related',
        'get_changes',
        'get_commitments',
        'get_contradictions',
        'get_decision_evidence',
        'get_decisions',
        'get_execution_trace',
        'get_intelligence_capabilities',
        'get_knowledge_events',
        'get_living_synthesis',
        'get_note_content',
        'get_open_questions',
        'get_published_intelligence_changes',
        'get_published_intelligence_insights',
        'get_published_intelligence_state',
        'get_published_intelligence_timeline',
        'get_relationship_explanation',
        'get_temporal_records',
        'get_vault_schema',
        'get_watch_findings',
        'list_published_intelligence_sources',
        'list_saved_knowledge_views',
        'list_vaults',
        'open_app_view',
        'preview_note_deletions',
        'preview_note_writes',
        'query_graph_relations',
        'query_saved_knowledge_view',
        'search_notes',
        'search_published_intelligence',
        'translate_canvas',
      ]);
      for (const tool of tools) {
        expect(tool.description).toBeTruthy();
        expect(tool.inputSchema.type).toBe('object');
        expect(tool.outputSchema?.type).toBe('object');
        expect(tool.annotations?.readOnlyHint).toBe(readOnly.has(tool.name));
      }
      expect(tools.find((t) => t.name === 'apply_note_deletions')?.annotations?.destructiveHint).toBe(true);
      const vaults = await client.callTool({ name: 'list_vaults', arguments: {} });
      expect(vaults.structuredContent).toMatchObject({ vaults: [{ mappingId: suite.owner.mapping.id, writeAccess: true, readOnly: false }] });
      const note = await client.callTool({ name: 'get_note_content', arguments: { mappingId: suite.owner.mapping.id, path: 'Inbox/hello.md' } });
      expect(note.structuredContent).toMatchObject({ content: '# Hello\nworld\n', truncated: false, contentHash: expect.stringMatching(/^sha256:/) });
      const events = await client.callTool({ name: 'get_knowledge_events', arguments: { mappingId: suite.owner.mapping.id } });
      expect((events.structuredContent as { events: unknown[] }).events.length).toBeGreaterThanOrEqual(1);
      const graph = await client.callTool({ name: 'query_graph_relations', arguments: { mappingId: suite.owner.mapping.id, path: 'Inbox/hello.md' } });
      expect(graph.structuredContent).toEqual({ path: 'Inbox/hello.md', outgoing: [], incoming: [], embeds: [], fileLinks: [], unresolved: [], truncated: false });
      const found = await client.callTool({ name: 'search_notes', arguments: { mappingId: suite.owner.mapping.id, query: 'world' } });
      expect(found.structuredContent).toMatchObject({ results: [{ path: 'Inbox/hello.md', matchedIn: ['body'] }], truncated: false });
      // A tool failure after tools/list: the SDK client checks structuredContent against the listed output schema,
      // so the schema must admit the error shape too, or the client throws instead of returning the failure.
      const missing = await client.callTool({ name: 'get_note_content', arguments: { mappingId: suite.owner.mapping.id, path: 'Inbox/none.md' } });
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toMatchObject({ code: 'not_found' });
      // Published intelligence of a product the owner is not entitled to: a failure the client reads the same way.
      const unentitled = await client.callTool({ name: 'search_published_intelligence', arguments: { product: 'tutor', asOf: '2025-01-01', question: 'fractions' } });
      expect(unentitled.isError).toBe(true);
      expect(unentitled.structuredContent).toMatchObject({ code: 'not_found' });
      await client.close();
    });
  });

  describe('raw JSON-RPC', () => {
    it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'])('initialize negotiates %s', async (version) => {
      const reply = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      expect(reply.status).toBe(200);
      expect(reply.body!.result).toMatchObject({ protocolVersion: version, capabilities: { tools: { listChanged: false } }, serverInfo: { name: 'kgate' } });
      const ping = await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, { 'mcp-protocol-version': version });
      expect(ping.body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    });

    it('answers an unknown requested version with the latest', async () => {
      const reply = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
      expect(reply.body!.result.protocolVersion).toBe('2025-11-25');
    });

    it('rejects an unsupported MCP-Protocol-Version with 400, and takes a missing one as 2025-03-26', async () => {
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '2030-01-01' })).status).toBe(400);
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' })).status).toBe(200);
    });

    it('answers notifications with 202 and no body', async () => {
      const reply = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
      expect(reply.status).toBe(202);
      expect(reply.body).toBeNull();
    });

    it('accepts batches only under 2025-03-26', async () => {
      const batch = [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' }];
      const ok = await rpc(batch, { 'mcp-protocol-version': '2025-03-26' });
      expect(ok.status).toBe(200);
      expect((ok.body as unknown as { id: number }[]).map((r) => r.id)).toEqual([1, 2]);
      expect((await rpc(batch, { 'mcp-protocol-version': '2025-06-18' })).status).toBe(400);
    });

    it('gives protocol errors as JSON-RPC errors', async () => {
      expect((await rpc('{not json')).body!.error.code).toBe(-32700);
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'no/such' })).body!.error.code).toBe(-32601);
      expect((await rpc({ jsonrpc: '1.0', id: 1, method: 'ping' })).body!.error.code).toBe(-32600);

    });

    it('gives tool failures as isError results with the REST code, unknown tools included', async () => {
      const unknown = await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'nope', arguments: {} } });
      expect(unknown.body!.result).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
      expect(unknown.body!.result.content[0].text).toContain('list_vaults');
      const foreign = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_note_content', arguments: { mappingId: '00000000-0000-7000-8000-000000000000', path: 'a/b.md' } } });
      expect(foreign.body!.result).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
      const invalid = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_note_content', arguments: { path: 3 } } });
      expect(invalid.body!.result).toMatchObject({ isError: true, structuredContent: { code: 'invalid_request' } });
    });

    it('refuses a missing or bad token with 401 and a resource_metadata challenge', async () => {
      const missing = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, null);
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer realm="kgate", resource_metadata="[^"]*\/\.well-known\/oauth-protected-resource\/api\/mcp"$/);
      const bad = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, 'kgp_nope');
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it('refuses a foreign Origin or Host with 403 (DNS rebinding)', async () => {
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://evil.example' })).status).toBe(403);
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'http://localhost:1234' })).status).toBe(200);
    });

    it('needs the Streamable HTTP Accept header, except for the legacy methods', async () => {
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { accept: 'application/json' })).status).toBe(406);
      const legacy = await rpc({ jsonrpc: '2.0', id: 1, method: 'server/discover' }, { accept: 'application/json' });
      expect(legacy.body!.result).toMatchObject({ server: { name: 'kgate', protocolVersion: '2025-11-25' }, capabilities: { tools: { listChanged: false } } });
      expect(legacy.body!.id).toBe(1);
      const init = await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }, { accept: 'application/json' });
      expect(init.status).toBe(406);
    });

    it('accepts Mcp-Method and Mcp-Name headers from legacy bridges', async () => {
      const reply = await rpc({ mappingId: suite.owner.mapping.id, path: 'Inbox/hello.md' }, { accept: 'application/json', 'mcp-method': 'tools/call', 'mcp-name': 'get_note_content' });
      expect(reply.body!.result.structuredContent.path).toBe('Inbox/hello.md');
    });

    it('serves legacy discovery on GET with Accept: application/json, and 405 otherwise', async () => {
      const json = await fetch(`${suite.gateway.url}/api/mcp`, { headers: { accept: 'application/json' } });
      expect(await json.json()).toMatchObject({ protocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] });
      expect((await fetch(`${suite.gateway.url}/api/mcp`, { headers: { accept: 'text/event-stream' } })).status).toBe(405);
    });
  });

  describe('transport edges', () => {
    it('refuses a body over 8 MiB with 413 payload_too_large, and consumes nothing', async () => {
      const member = await createOwner(suite.gateway.services, 'mcp-big');
      const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(8 * 1024 * 1024) } });
      const reply = await rpc(huge, {}, member.token);
      expect(reply.status).toBe(413);
      expect(reply.body!.error.data.code).toBe('payload_too_large');
      const counters = await suite.gateway.db.query('SELECT * FROM usage_counters WHERE account_id = $1', [member.accountId]);
      expect(counters).toEqual([]);
      // The gateway still answers on a new connection.
      expect((await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, {}, member.token)).body).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    });

    it('serves /api/mcp with a query string, echoes a sane X-Request-Id, and logs one line without the token', async () => {
      const response = await fetch(`${suite.gateway.url}/api/mcp?client=test`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: STREAMABLE_ACCEPT, authorization: `Bearer ${suite.owner.token}`, 'x-request-id': 'mcp-trace-1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'q', method: 'ping' }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toBe('mcp-trace-1');
      expect(response.headers.get('content-type')).toBe('application/json');
      const line = suite.gateway.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.reqId === 'mcp-trace-1');
      expect(line).toMatchObject({ msg: 'request', method: 'POST', path: '/api/mcp', status: 200, accountId: suite.owner.accountId });
      expect(suite.gateway.logs.join('\n')).not.toContain(suite.owner.token.slice(4, 30));
      const forged = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'x-request-id': `kgp_${'a'.repeat(36)}` });
      expect(forged.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('answers other methods with 405 and an Allow header', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const response = await fetch(`${suite.gateway.url}/api/mcp`, { method, headers: { authorization: `Bearer ${suite.owner.token}` } });
        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe('GET, POST');
      }
    });
  });

  describe('accounting', () => {
    it('reserves one MCP unit per recognized operation, separately from REST, and never for rejections', async () => {
      const member = await createOwner(suite.gateway.services, 'mcp-usage');
      await suite.gateway.services.accounts.setAllowanceOverrides(member.accountId, { mcpOperationsPerMinute: 3 });
      // The per-minute window is the wall clock's minute: start well inside one, so that the counts below are of one window.
      const intoMinute = Date.now() % 60_000;
      if (intoMinute > 50_000) await new Promise((resolve) => setTimeout(resolve, 60_500 - intoMinute));
      const used = async () =>
        (await suite.gateway.db.query<{ used: number }>("SELECT used FROM usage_counters WHERE account_id = $1 AND surface = 'mcp' AND period = 'minute'", [member.accountId]))[0]?.used ?? 0;
      await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, {}, null);
      await rpc({ jsonrpc: '2.0', id: 1, method: 'no/such' }, {}, member.token);
      await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' }, {}, member.token);
      expect(await used()).toBe(0);
      await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_note_content', arguments: {} } }, {}, member.token);
      expect(await used()).toBe(1);
      await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, {}, member.token);
      await rpc({ jsonrpc: '2.0', id: 3, method: 'ping' }, {}, member.token);
      const limited = await rpc({ jsonrpc: '2.0', id: 4, method: 'ping' }, {}, member.token);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(limited.body!.error.data.code).toBe('rate_limited');
      expect(await used()).toBe(3);
      await suite.gateway.services.accounts.setStatus(member.accountId, 'suspended');
      expect((await rpc({ jsonrpc: '2.0', id: 5, method: 'ping' }, {}, member.token)).status).toBe(403);
      expect(await used()).toBe(3);
    });
  });
});
