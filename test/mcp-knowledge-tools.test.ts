import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KgateError } from '../src/kernel/errors.ts';
import { createOwner } from './support/fixtures.ts';
import { connectMcpClient, type Structured } from './support/mcp-client.ts';
import { useMcpSuite } from './support/mcp-suite.ts';
import { snapshotOf } from './support/rest-client.ts';

const CANVAS = readFileSync(new URL('../examples/vault/Tidewater Overview.canvas', import.meta.url), 'utf8');

describe('knowledge tools over MCP: translate_canvas and get_vault_schema', () => {
  const suite = useMcpSuite();
  const { call } = suite;

  it('translates the example vault canvas, given as JSON text or as an object, without a mappingId', async () => {
    const fromText = await call('translate_canvas', { canvas: CANVAS });
    expect(fromText.isError).toBe(false);
    expect(fromText.data).toMatchObject({ nodes: 12, edges: 8, truncated: false });
    expect(fromText.data.outline).toContain('- **Tidewater**\n');
    expect(fromText.data.outline).toContain('    - [[Decisions/ADR-002 SQLite with Custom Sync]]\n');
    expect(fromText.data.outline).toContain('- [[People/Ana Ruiz]] → [[Projects/Tidewater/Tidewater]] (owns)');
    const fromObject = await call('translate_canvas', { canvas: JSON.parse(CANVAS) });
    expect(fromObject.data).toEqual(fromText.data);
  });

  it('refuses a 501-node canvas and malformed canvases with invalid_request', async () => {
    const nodes = Array.from({ length: 501 }, (_, i) => ({ id: `n${i}`, type: 'text', text: `t${i}`, x: i, y: 0, width: 1, height: 1 }));
    const tooMany = await call('translate_canvas', { canvas: { nodes, edges: [] } });
    expect(tooMany).toMatchObject({ isError: true, data: { code: 'invalid_request', details: { limit: 500 } } });
    expect(tooMany.data.message).toContain('at most 500 nodes');
    const notJson = await call('translate_canvas', { canvas: '{"nodes": [' });
    expect(notJson).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    const badNode = await call('translate_canvas', { canvas: { nodes: [{ id: 'a', type: 'text', x: 0, y: 0 }] } });
    expect(badNode).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    const missing = await call('translate_canvas', {});
    expect(missing).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
  });

  it('summarizes the frontmatter keys of a seeded vault', async () => {
    const mappingId = suite.owner.mapping.id;
    const notes = [
      { path: 'Decisions/ADR-1.md', content: '---\ntype: decision\nstatus: accepted\ndecided: 2026-11-03\ntags:\n  - sync\n---\n# ADR 1\n' },
      { path: 'Decisions/ADR-2.md', content: '---\ntype: decision\nstatus: proposed\npriority: 2\n---\n# ADR 2\n' },
      { path: 'People/Ana.md', content: '---\ntype: person\nactive: true\nmeta:\n  team: product\ntags: person\n---\n# Ana\n' },
      { path: 'Inbox/plain.md', content: '# No frontmatter\n' },
      { path: 'Inbox/broken.md', content: '---\ntype: [unclosed\n---\n# Broken\n' },
    ];
    const applied = await call('apply_note_writes', { mappingId, notes, idempotencyKey: 'schema-seed' });
    expect(applied.isError).toBe(false);

    const before = await snapshotOf(suite.gateway);
    const schema = await call('get_vault_schema', { mappingId });
    expect(schema.isError).toBe(false);
    expect(schema.data).toMatchObject({ scanned: 5, total: 5, truncated: false, notesWithFrontmatter: 3, parseErrorCount: 1, keysTruncated: false });
    expect(schema.data.parseErrors).toEqual([{ path: 'Inbox/broken.md', error: expect.stringMatching(/^Invalid YAML/) }]);
    const byKey = Object.fromEntries((schema.data.keys as Structured[]).map((k) => [k.key, k]));
    expect(schema.data.keys[0]).toEqual({ key: 'type', types: ['string'], count: 3, examples: ['decision', 'person'] });
    expect(byKey.status).toMatchObject({ types: ['string'], count: 2, examples: ['accepted', 'proposed'] });
    expect(byKey.decided).toMatchObject({ types: ['date'], count: 1, examples: ['2026-11-03'] });
    expect(byKey.priority).toMatchObject({ types: ['number'], examples: ['2'] });
    expect(byKey.active).toMatchObject({ types: ['boolean'], examples: ['true'] });
    expect(byKey.meta).toMatchObject({ types: ['object'], examples: ['{"team":"product"}'] });
    expect(byKey.tags).toMatchObject({ types: ['string', 'list'], count: 2 });
    expect(await snapshotOf(suite.gateway)).toBe(before);
  });

  it('says when the scan stopped early (domain limit below the vault size)', async () => {
    const scan = await suite.gateway.services.notes.scanFrontmatter(suite.owner.actor, suite.owner.mapping.id, 2);
    expect(scan).toMatchObject({ scanned: 2, total: 5, truncated: true });
    expect(scan.documents).toHaveLength(2); // Decisions/ADR-1.md and Decisions/ADR-2.md, first in path order
    const exact = await suite.gateway.services.notes.scanFrontmatter(suite.owner.actor, suite.owner.mapping.id, 5);
    expect(exact).toMatchObject({ scanned: 5, total: 5, truncated: false });
    await expect(suite.gateway.services.notes.scanFrontmatter(suite.owner.actor, suite.owner.mapping.id, 2001)).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('needs a mappingId the caller owns', async () => {
    const missing = await call('get_vault_schema', {});
    expect(missing).toMatchObject({ isError: true, data: { code: 'invalid_request' } });
    const stranger = await createOwner(suite.gateway.services, 'stranger');
    const foreign = await call('get_vault_schema', { mappingId: stranger.mapping.id });
    expect(foreign.isError).toBe(true);
    expect(foreign.data.code).not.toBe('device_encrypted');
    expect(JSON.stringify(foreign.data)).not.toContain('keys');
  });

  it('refuses a device-encrypted mapping with device_encrypted', async () => {
    const sealed = await createOwner(suite.gateway.services, 'sealed');
    await suite.gateway.services.vaults.updateMappingFlags(sealed.mapping.id, { deviceEncrypted: true });
    const sealedClient = await connectMcpClient(suite.gateway.url, sealed.token);
    try {
      const result = await sealedClient.callTool({ name: 'get_vault_schema', arguments: { mappingId: sealed.mapping.id } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toMatchObject({ code: 'device_encrypted' });
    } finally {
      await sealedClient.close();
    }
    await expect(suite.gateway.services.notes.scanFrontmatter(sealed.actor, sealed.mapping.id)).rejects.toBeInstanceOf(KgateError);
  });
});
