import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteTitle } from '../src/domains/notes/index.ts';
import { upsertNotes } from '../src/domains/notes/store.ts';
import { contentHash } from '../src/kernel/hashing.ts';
import { notePathKey } from '../src/kernel/vault-path.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callTool, connectMcpClient } from './support/mcp-client.ts';
import { notePathUrl, restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import { allEvents, apply, expectRejected, hashOf, newKey, preview, seedNotes } from './support/rest-transactions.ts';

// Notes stored before the portable-path rules (docs/notes.md, "Portable paths") may sit at paths those rules now
// refuse. Addressing them stays lenient, so none is stranded: each can be read, deleted, restored where it was, or
// moved to a portable path, and another move's link rewrite edits it where it is. Only a write-note to such a path
// (new content that names the path) is refused.
describe('notes stored at non-portable paths before the rule', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let mcp: Client;
  let mappingId: string;

  /**
   * Stores a note the way `kgate import` stored it before the rule. No surface can create such a path any more (that
   * is the point), so this calls the notes store's upsert, the function every write ends in: the row gets the same
   * derived search text, links, title and content version as a real one. Hand-written SQL would have to copy those
   * columns and could drift from what real rows hold; the store is below the rule, exactly where old data sits.
   */
  async function storeLegacyNote(path: string, content: string): Promise<string> {
    const write = {
      path,
      pathKey: notePathKey(path),
      content,
      contentHash: contentHash(content),
      size: Buffer.byteLength(content),
      title: noteTitle(path, content),
    };
    await gateway.db.transaction((tx) => upsertNotes(tx, owner.mapping.vaultId, [write]));
    return write.contentHash;
  }

  async function contentAt(path: string): Promise<string | undefined> {
    const response = await api.get<{ content: string }>(notePathUrl(path), { query: { mappingId } });
    if (response.status === 404) return undefined;
    expect(response.status, response.text).toBe(200);
    return response.body.content;
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'legacy');
    api = restClient(gateway, owner.token);
    mappingId = owner.mapping.id;
    mcp = await connectMcpClient(gateway.url, owner.token);
  });
  afterAll(async () => {
    await mcp.close();
    await gateway.stop();
  });

  it('reads one over REST and MCP, and finds it in the inventory, search and the graph', async () => {
    await storeLegacyNote('Hostile/CON.md', '# Console log\nThe quokka entry links [[Home]].\n');
    await storeLegacyNote('Home.md', '# Home\nSee [[CON]].\n');
    expect(await contentAt('Hostile/CON.md')).toBe('# Console log\nThe quokka entry links [[Home]].\n');
    const inventory = await api.get<{ notes: { path: string }[] }>('/notes', { query: { mappingId } });
    expect(inventory.body.notes.map((n) => n.path)).toContain('Hostile/CON.md');
    const read = await callTool(mcp, 'get_note_content', { mappingId, path: 'Hostile/CON.md' });
    expect(read).toMatchObject({ isError: false, data: { content: expect.stringContaining('quokka') } });
    const search = await api.get<{ results: { path: string }[] }>('/search', { query: { mappingId, query: 'quokka' } });
    expect(search.body.results.map((r) => r.path)).toEqual(['Hostile/CON.md']);
    const graph = await api.get<{ outgoing: { path: string }[]; incoming: { sourcePath: string }[] }>('/graph/relations', {
      query: { mappingId, path: 'Hostile/CON.md' },
    });
    expect(graph.status, graph.text).toBe(200);
    expect(graph.body.outgoing.map((r) => r.path)).toEqual(['Home.md']);
    expect(graph.body.incoming.map((r) => r.sourcePath)).toEqual(['Home.md']);
  });

  it('refuses new content at its path, in preview and apply: it must move to a portable path first', async () => {
    const hash = await storeLegacyNote('Drafts./idea.md', 'old idea\n');
    const action = { type: 'write-note', path: 'Drafts./idea.md', content: 'new idea\n', expectedHash: hash } as const;
    for (const send of [() => preview(api, mappingId, [action]), () => apply(api, mappingId, [action])]) {
      const body = await expectRejected(gateway, send, 400, 'invalid_path');
      expect(body).toMatchObject({ reason: 'trailing_dot_or_space', index: 0, field: 'path' });
    }
    expect(await contentAt('Drafts./idea.md')).toBe('old idea\n');
  });

  it('moves one to a portable path, keeping its content, and records the move', async () => {
    const hash = await storeLegacyNote('Hostile/nul.md', '# Null\n');
    const action = { type: 'move-note', path: 'hostile/NUL.md', newPath: 'Hostile/Null.md', expectedHash: hash } as const;
    const before = await snapshotOf(gateway);
    expect((await preview(api, mappingId, [action])).body.actions).toEqual([
      expect.objectContaining({ path: 'Hostile/nul.md', newPath: 'Hostile/Null.md', status: 'move' }),
    ]);
    expect(await snapshotOf(gateway)).toBe(before);
    const moved = await apply(api, mappingId, [action]);
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.actions).toEqual([expect.objectContaining({ path: 'Hostile/nul.md', newPath: 'Hostile/Null.md', status: 'move' })]);
    expect(await contentAt('Hostile/Null.md')).toBe('# Null\n');
    expect(await contentAt('Hostile/nul.md')).toBeUndefined();
    expect((await allEvents(api, mappingId)).at(-1)).toMatchObject({ kind: 'note.moved', path: 'Hostile/Null.md', details: { previousPath: 'Hostile/nul.md' } });
  });

  it("lets another note's move rewrite the links inside one, where it is", async () => {
    const [target] = Object.values(await seedNotes(api, mappingId, { 'Topics/Quasar.md': '# Quasar\n' }));
    await storeLegacyNote('Hostile/AUX.md', 'See [[Quasar]].\n');
    const moved = await apply(api, mappingId, [
      { type: 'move-note', path: 'Topics/Quasar.md', newPath: 'Topics/Pulsar.md', expectedHash: target!, rewriteLinks: true },
    ]);
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.actions[1]).toMatchObject({ type: 'rewrite-links', path: 'Hostile/AUX.md', status: 'update' });
    expect(await contentAt('Hostile/AUX.md')).toBe('See [[Pulsar]].\n');
  });

  it('deletes one into the trash and restores it to its original path', async () => {
    const hash = await storeLegacyNote('Notes /COM1.md', 'serial notes\n');
    const deleted = await api.delete<{ actions: { status: string; trashId: string }[] }>(notePathUrl('Notes /COM1.md'), {
      query: { mappingId, dryRun: false },
      headers: { 'idempotency-key': newKey(), 'if-match': `"${hash}"` },
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.body.actions[0]).toMatchObject({ status: 'delete' });
    expect(await contentAt('Notes /COM1.md')).toBeUndefined();

    const trashId = deleted.body.actions[0]!.trashId;
    const restored = await apply(api, mappingId, [{ type: 'restore-note', trashId, path: 'Notes /COM1.md' }]);
    expect(restored.status, restored.text).toBe(200);
    expect(restored.body.actions[0]).toMatchObject({ status: 'restore', afterRevision: hashOf('serial notes\n') });
    expect(await contentAt('Notes /COM1.md')).toBe('serial notes\n');
  });
});
