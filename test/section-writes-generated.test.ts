import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { generateNote, seededRandom } from './support/generated-notes.ts';
import { callTool, connectMcpClient } from './support/mcp-client.ts';
import { notePathUrl, restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import { hashOf } from './support/rest-transactions.ts';

// Section-level writes on seeded generated notes (test/support/generated-notes.ts), over real HTTP: REST for one
// agent, MCP for the other. The oracle is independent of src/: the text around the target, found by the headings
// the generator wrote, must come back byte for byte.

const SEEDS = 12;

interface Outcome {
  isError: boolean;
  code?: string;
  actions: Array<{ status: string; beforeRevision: string | null; afterRevision: string | null; resultContent?: string }>;
}

describe('section-level writes on generated notes', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let agent: Client;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'generated');
    api = restClient(gateway, owner.token);
    agent = await connectMcpClient(gateway.url, owner.token);
  });
  afterAll(async () => {
    await agent?.close();
    await gateway?.stop();
  });

  /** One write through REST (`rest`) or MCP: preview, or apply with a fresh key. */
  async function send(via: 'rest' | 'mcp', dryRun: boolean, note: Record<string, unknown>): Promise<Outcome> {
    if (via === 'rest') {
      const response = await api.post<Outcome & { code?: string }>('/transactions', {
        json: { mappingId: owner.mapping.id, dryRun, actions: [{ type: 'write-note', ...note }] },
        ...(dryRun ? {} : { headers: { 'idempotency-key': randomUUID() } }),
      });
      return { ...response.body, isError: response.status !== 200 };
    }
    const result = await callTool(agent, dryRun ? 'preview_note_writes' : 'apply_note_writes', {
      mappingId: owner.mapping.id,
      notes: [note],
      ...(dryRun ? {} : { idempotencyKey: randomUUID() }),
    });
    return { ...(result.data as Outcome), isError: result.isError };
  }

  const read = async (path: string): Promise<string> => {
    const response = await api.get<{ content: string }>(notePathUrl(path), { query: { mappingId: owner.mapping.id } });
    expect(response.status, response.text).toBe(200);
    return response.body.content;
  };

  /** Where the real `# Part k` line starts: its first occurrence at a line start (fences only repeat it later). */
  const partAt = (text: string, k: number): number => {
    const found = text.search(new RegExp(`(^|\\n)# Part ${k}(\\r?\\n|$)`));
    return found === -1 ? -1 : text[found] === '\n' ? found + 1 : found;
  };

  it('a targeted edit changes only its section; a missing target changes nothing; two agents in turn both land', async () => {
    for (let seed = 1; seed <= SEEDS; seed += 1) {
      const generated = generateNote(seededRandom(seed * 7919));
      const path = `Generated/n${seed}.md`;
      const created = await send('rest', false, { path, content: generated.content });
      expect(created.isError, JSON.stringify(created)).toBe(false);
      const note = generated.content;
      const parts = generated.headings.filter((h) => !h.includes('>')).length;

      // A missing heading and a missing block: refused, nothing changed (receipts of previews aside, none here).
      const before = await snapshotOf(gateway);
      for (const target of [{ type: 'heading', heading: 'Part 99', mode: 'replace' }, { type: 'block', blockId: 'missing' }]) {
        const refused = await send(seed % 2 ? 'rest' : 'mcp', false, { path, content: 'x', target, expectedHash: hashOf(note) });
        expect(refused.isError).toBe(true);
        expect(refused.code).toBe('target_not_found');
      }
      expect(await snapshotOf(gateway)).toBe(before);

      // Agent one (REST) replaces the first part; agent two (MCP) appends to the last part. Both previewed first.
      const one = { path, content: `rewritten ${seed}`, target: { type: 'heading', heading: 'Part 0', mode: 'replace' } };
      const two = { path, content: `appended ${seed}`, target: { type: 'heading', heading: `Part ${parts - 1}`, mode: 'append' } };
      const shownOne = await send('rest', true, one);
      const shownTwo = await send('mcp', true, two);
      expect(shownOne.actions[0]!.beforeRevision).toBe(hashOf(note));
      expect(shownTwo.actions[0]!.beforeRevision).toBe(hashOf(note));
      const firstApply = await send('rest', false, { ...one, expectedHash: hashOf(note) });
      expect(firstApply.isError, JSON.stringify(firstApply)).toBe(false);
      const afterOne = await read(path);
      expect(afterOne).toBe(shownOne.actions[0]!.resultContent);
      expect(hashOf(afterOne)).toBe(firstApply.actions[0]!.afterRevision);
      // Through the first heading line, and from the second part on, the note is as it was.
      const headEnd = partAt(note, 0) + '# Part 0'.length;
      expect(afterOne.slice(0, headEnd)).toBe(note.slice(0, headEnd));
      if (parts > 1) expect(afterOne.slice(partAt(afterOne, 1))).toBe(note.slice(partAt(note, 1)));
      expect(afterOne.endsWith('\n')).toBe(note.endsWith('\n'));

      const beforeStale = await snapshotOf(gateway);
      const stale = await send('mcp', false, { ...two, expectedHash: hashOf(note) });
      expect(stale.isError).toBe(true);
      expect(stale.code).toBe('stale_revision');
      expect(await snapshotOf(gateway)).toBe(beforeStale);

      const again = await send('mcp', true, two);
      expect(again.actions[0]!.beforeRevision).toBe(hashOf(afterOne));
      const secondApply = await send('mcp', false, { ...two, expectedHash: hashOf(afterOne) });
      expect(secondApply.isError, JSON.stringify(secondApply)).toBe(false);
      const final = await read(path);
      expect(final).toBe(again.actions[0]!.resultContent);
      expect(final).toContain(`rewritten ${seed}`);
      expect(final).toContain(`appended ${seed}`);
      // Appending only inserts: removing the added line gives the first agent's note back.
      expect(final.replace(new RegExp(`\\r?\\nappended ${seed}|appended ${seed}\\r?\\n`), '')).toBe(afterOne);
    }
  });
});
