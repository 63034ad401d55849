/**
 * translate_canvas over MCP with a canvas stored in a hosted vault (mappingId + path): it translates exactly like
 * the same document passed inline, and every refusal has its stable code with nothing changed.
 */
import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileHash, type FilesService } from '../src/domains/files/index.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient } from './support/mcp-client.ts';

const CANVAS = readFileSync(new URL('../examples/vault/Tidewater Overview.canvas', import.meta.url));
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('pixels')]);

describe('translate_canvas of a stored canvas', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let stranger: Owner;
  let client: Client;
  let files: FilesService | undefined;
  const call = (args: Record<string, unknown>) => callTool(client, 'translate_canvas', args);

  beforeAll(async () => {
    gateway = await startTestGateway();
    files = gateway.services.files;
    [owner, stranger] = await Promise.all([createOwner(gateway.services, 'canvas'), createOwner(gateway.services, 'canvas-stranger')]);
    const imported = await files.importFiles(owner.actor, owner.mapping.id, [
      { path: 'Boards/Tidewater Overview.canvas', content: CANVAS },
      { path: 'Boards/broken.canvas', content: Buffer.from('{"nodes": [') },
      { path: 'Boards/latin1.canvas', content: Buffer.from([0x7b, 0xe9, 0x7d]) },
      { path: 'img/pic.png', content: PNG },
    ]);
    expect(imported.rejected).toEqual([]);
    client = await connectMcpClient(gateway.url, owner.token);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.stop();
  });

  it('translates a stored canvas exactly like the same document passed inline, and names its path and hash', async () => {
    const inline = await call({ canvas: CANVAS.toString('utf8') });
    expect(inline.isError).toBe(false);
    const stored = await call({ mappingId: owner.mapping.id, path: 'Boards/Tidewater Overview.canvas' });
    expect(stored.isError).toBe(false);
    const { path, contentHash, ...translation } = stored.data;
    expect(translation).toEqual(inline.data);
    expect({ path, contentHash }).toEqual({ path: 'Boards/Tidewater Overview.canvas', contentHash: fileHash(CANVAS) });
    // The path's letter case does not matter; the answer names the path as stored.
    const folded = await call({ mappingId: owner.mapping.id, path: 'boards/tidewater overview.CANVAS' });
    expect(folded.data).toEqual(stored.data);
  });

  it('refuses bad input with stable codes and changes nothing', async () => {
    const mappingId = owner.mapping.id;
    const snapshot = async () =>
      JSON.stringify([
        await gateway.db.query('SELECT path, content_hash, updated_at FROM vault_files ORDER BY path'),
        await gateway.db.query("SELECT kind FROM provenance_events WHERE kind LIKE 'file.%' ORDER BY seq"),
      ]);
    const before = await snapshot();
    const refusals: [string, () => ReturnType<typeof call>, string][] = [
      ['both canvas and a stored one', () => call({ canvas: CANVAS.toString('utf8'), mappingId, path: 'Boards/Tidewater Overview.canvas' }), 'invalid_request'],
      ['a path without mappingId', () => call({ path: 'Boards/Tidewater Overview.canvas' }), 'invalid_request'],
      ['a mappingId without path', () => call({ mappingId }), 'invalid_request'],
      ['nothing', () => call({}), 'invalid_request'],
      ['an attachment, not a canvas', () => call({ mappingId, path: 'img/pic.png' }), 'invalid_request'],
      ['a stored canvas that is not JSON', () => call({ mappingId, path: 'Boards/broken.canvas' }), 'invalid_request'],
      ['a stored canvas that is not UTF-8', () => call({ mappingId, path: 'Boards/latin1.canvas' }), 'invalid_request'],
      ['a canvas that does not exist', () => call({ mappingId, path: 'Boards/none.canvas' }), 'not_found'],
      ['a hidden path', () => call({ mappingId, path: '.obsidian/workspace.canvas' }), 'invalid_path'],
      ['a note path', () => call({ mappingId, path: 'Home.md' }), 'invalid_path'],
      ['a vault of someone else', () => call({ mappingId: stranger.mapping.id, path: 'Boards/Tidewater Overview.canvas' }), 'not_found'],
    ];
    for (const [label, refusal, code] of refusals) {
      const result = await refusal();
      expect([label, result.isError, result.data.code]).toEqual([label, true, code]);
    }
    // The stranger asking for the owner's vault learns nothing either.
    const strangerClient = await connectMcpClient(gateway.url, stranger.token);
    try {
      const theirs = await callTool(strangerClient, 'translate_canvas', { mappingId, path: 'Boards/Tidewater Overview.canvas' });
      expect([theirs.isError, theirs.data.code]).toEqual([true, 'not_found']);
    } finally {
      await strangerClient.close();
    }
    expect(await snapshot()).toBe(before);
  });
});
