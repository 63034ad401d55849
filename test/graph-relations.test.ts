import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFolder } from '../src/cli/import-folder.ts';
import { createFilesService } from '../src/domains/files/index.ts';
import { EXAMPLE_VAULT_DIR } from '../src/cli/runtime.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient, type Structured } from './support/mcp-client.ts';
import { restClient, snapshotOf, type RestClient } from './support/rest-client.ts';

// The link graph of the example vault over both surfaces: GET /api/dev/graph/relations and the MCP tool
// query_graph_relations, which run the same operation (queryGraphRelations).
describe('link relations over REST and MCP', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let client: Client;
  let mappingId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'graph');
    mappingId = owner.mapping.id;
    api = restClient(gateway, owner.token);
    const operator = { accountId: owner.accountId, credentialKind: 'operator' as const, client: 'test' };
    const report = await importFolder(gateway.services.notes, operator, mappingId, EXAMPLE_VAULT_DIR);
    expect(report.rejected).toEqual([]);
    client = await connectMcpClient(gateway.url, owner.token);
  });
  afterAll(async () => {
    await client.close();
    await gateway.stop();
  });

  const relations = (query: Record<string, string | number | undefined>, token?: string) =>
    api.get<Structured>('/graph/relations', { query, ...(token ? { token } : {}) });

  describe('GET /api/dev/graph/relations', () => {
    it('tells two notes named Roadmap apart: each gets only the links that resolve to it', async () => {
      const before = await snapshotOf(gateway);
      const reference = await relations({ mappingId, path: 'Reference/Roadmap.md' });
      expect(reference.status, reference.text).toBe(200);
      expect(reference.body.incoming).toEqual([
        { sourcePath: 'Home.md', embed: false, kind: 'wikilink', heading: null, blockId: null, alias: 'How we write roadmaps', line: 19 },
        { sourcePath: 'Projects/Tidewater/Roadmap.md', embed: false, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 14 },
        { sourcePath: 'Projects/Tidewater/Tidewater.md', embed: false, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 34 },
      ]);

      const project = await relations({ mappingId, path: 'Projects/Tidewater/Roadmap.md' });
      // Tidewater.md's bare [[Roadmap]] (line 34) prefers the note in its own folder.
      expect(project.body.incoming).toContainEqual({
        sourcePath: 'Projects/Tidewater/Tidewater.md', embed: false, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 34,
      });
      expect((project.body.incoming as Array<{ sourcePath: string }>).map((l) => l.sourcePath)).toEqual([
        'Home.md',
        'Meetings/2026-11-03 Sync Review.md',
        'Open Questions.md',
        'People/Ana Ruiz.md',
        'People/Priya Natarajan.md',
        'Projects/Tidewater/Tidewater.md',
        'Reference/Roadmap.md',
      ]);
      expect(project.body.outgoing).toContainEqual({
        path: 'Decisions/ADR-002 SQLite with Custom Sync.md', target: 'ADR-002 SQLite with Custom Sync', kind: 'wikilink', heading: null, blockId: 'conflict-rule', alias: 'conflict rule', line: 24,
      });
      expect(project.body.unresolved).toEqual([
        { target: 'Vendor Contract 2027', kind: 'wikilink', heading: null, blockId: null, alias: null, line: 29 },
      ]);
      expect(project.body.truncated).toBe(false);
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it('lists an attachment embed as unresolved and ignores link syntax inside code blocks', async () => {
      const sync = await relations({ mappingId, path: 'Projects/Offline Sync.md' });
      expect(sync.status).toBe(200);
      expect(sync.body.embeds).toEqual([{ target: 'diagram.png', resolved: null, file: null, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 23 }]);
      // `[[not a link]]` sits in a fenced YAML block on line 30.
      expect(sync.body.unresolved).toEqual([]);
      expect((sync.body.outgoing as Array<{ line: number }>).map((l) => l.line)).not.toContain(30);
    });

    it('names the stored attachment an embed resolves to, once the vault holds it, over REST and MCP alike', async () => {
      const bytes = readFileSync(join(EXAMPLE_VAULT_DIR, 'Attachments/diagram.png'));
      const files = createFilesService(gateway.db, gateway.services.vaults, { idempotency: gateway.services.idempotency });
      expect((await files.importFiles(owner.actor, mappingId, [{ path: 'Attachments/diagram.png', content: bytes }])).rejected).toEqual([]);
      try {
        const file = { path: 'Attachments/diagram.png', kind: 'attachment', mediaType: 'image/png', size: bytes.length };
        const rest = await relations({ mappingId, path: 'Projects/Offline Sync.md' });
        expect(rest.body.embeds).toEqual([{ target: 'diagram.png', resolved: null, file, kind: 'wikilink', heading: null, blockId: null, alias: null, line: 23 }]);
        const mcp = await callTool(client, 'query_graph_relations', { mappingId, path: 'Projects/Offline Sync.md' });
        expect(mcp.data.embeds).toEqual(rest.body.embeds);
      } finally {
        await gateway.db.query("DELETE FROM vault_files WHERE path = 'Attachments/diagram.png'");
      }
    });

    it('takes the mapping from X-Service-Mapping, and bounds the lists with limit', async () => {
      const response = await api.get<Structured>('/graph/relations', {
        query: { path: 'Projects/Tidewater/Roadmap.md', limit: 2 },
        headers: { 'X-Service-Mapping': mappingId },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.incoming).toHaveLength(2);
      expect(response.body.outgoing).toHaveLength(2);
      expect(response.body.truncated).toBe(true);
    });

    it('answers bad requests with stable codes', async () => {
      const cases: Array<[Record<string, string | number | undefined>, number, string]> = [
        [{ mappingId }, 400, 'invalid_request'],
        [{ mappingId, path: 'Reference/Roadmap' }, 400, 'invalid_path'],
        [{ mappingId, path: '../Home.md' }, 400, 'invalid_path'],
        [{ mappingId, path: 'Reference/Nope.md' }, 404, 'not_found'],
        [{ mappingId, path: 'Home.md', limit: 0 }, 400, 'invalid_request'],
        [{ mappingId, path: 'Home.md', limit: 1001 }, 400, 'invalid_request'],
        [{ mappingId, path: 'Home.md', limit: 'ten' }, 400, 'invalid_request'],
        [{ mappingId: 'not-a-uuid', path: 'Home.md' }, 400, 'invalid_request'],
        [{ mappingId: '00000000-0000-7000-8000-000000000000', path: 'Home.md' }, 404, 'not_found'],
      ];
      for (const [query, status, code] of cases) {
        const response = await relations(query);
        expect([response.status, response.body.code], JSON.stringify(query)).toEqual([status, code]);
      }
      expect((await api.get('/graph/relations', { query: { mappingId, path: 'Home.md' }, token: null })).status).toBe(401);
    });

    it("refuses another account's mapping as not found, and a device-encrypted mapping", async () => {
      const other = await createOwner(gateway.services, 'graph-other');
      const foreign = await relations({ mappingId, path: 'Home.md' }, other.token);
      expect([foreign.status, foreign.body.code]).toEqual([404, 'not_found']);
      await gateway.services.vaults.updateMappingFlags(other.mapping.id, { deviceEncrypted: true });
      const encrypted = await relations({ mappingId: other.mapping.id, path: 'Home.md' }, other.token);
      expect([encrypted.status, encrypted.body.code]).toEqual([409, 'device_encrypted']);
      const otherClient = await connectMcpClient(gateway.url, other.token);
      try {
        const args = { mappingId: other.mapping.id, path: 'Home.md' };
        expect(await callTool(otherClient, 'query_graph_relations', args)).toMatchObject({ isError: true, data: { code: 'device_encrypted' } });
        const stranger = await callTool(otherClient, 'query_graph_relations', { mappingId, path: 'Home.md' });
        expect(stranger).toMatchObject({ isError: true, data: { code: 'not_found' } });
      } finally {
        await otherClient.close();
      }
    });
  });

  describe('MCP tool query_graph_relations', () => {
    it('is listed read-only, with schemas, and says a truncated answer proves nothing', async () => {
      // A client of its own, so the calls below run on a client that has not listed the tools (both must work).
      const lister = await connectMcpClient(gateway.url, owner.token);
      const { tools } = await lister.listTools();
      await lister.close();
      const tool = tools.find((t) => t.name === 'query_graph_relations');
      expect(tool?.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(tool?.inputSchema.required).toEqual(['mappingId', 'path']);
      // The result, or a failure (see docs/mcp.md, "Output schemas admit failures").
      const [result, failure] = (tool?.outputSchema as unknown as { anyOf: Array<{ properties: object }> }).anyOf;
      expect(Object.keys(result!.properties)).toEqual(['path', 'outgoing', 'incoming', 'embeds', 'fileLinks', 'unresolved', 'truncated']);
      expect(Object.keys(failure!.properties)).toEqual(['code', 'message', 'details']);
      expect(tool?.description).toContain('not proof');
    });

    it('answers with structuredContent equal to the REST answer', async () => {
      const args = { mappingId, path: 'Reference/Roadmap.md' };
      const result = await client.callTool({ name: 'query_graph_relations', arguments: args });
      expect(result.isError).toBeFalsy();
      const rest = await relations(args);
      expect(result.structuredContent).toEqual(rest.body);
      expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(rest.body);
    });

    it('reports failures as isError results with the stable code', async () => {
      const call = (args: Record<string, unknown>) => callTool(client, 'query_graph_relations', args);
      expect(await call({ mappingId, path: 'Nope.md' })).toMatchObject({ isError: true, data: { code: 'not_found' } });
      expect(await call({ mappingId, path: 'Home' })).toMatchObject({ isError: true, data: { code: 'invalid_path' } });
      expect(await call({ mappingId, path: 'Home.md', limit: 0 })).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
      expect(await call({ mappingId, path: 'Home.md', depth: 2 })).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
      expect(await call({ path: 'Home.md' })).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    });
  });
});
