import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpClient, callTool } from './support/mcp-client.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient, snapshotOf, type RestClient } from './support/rest-client.ts';
import { apply, hashOf, seedNotes } from './support/rest-transactions.ts';

interface Hit {
  path: string;
  title: string;
  score: number;
  matchedIn: string[];
  snippet: string;
  highlights: Array<[number, number]>;
  tags: string[];
}
interface Page {
  results: Hit[];
  truncated: boolean;
  nextCursor: string | null;
}

const FILLER = 'We walked along the river and talked about gardens, bicycles, recipes and the weather. '.repeat(6);

const NOTES: Record<string, string> = {
  'Projects/Offline Sync.md': '# Offline Sync\n\nHow the app keeps working without a network.\n',
  'Journal/2026-01-02.md': `# Second of January\n\n${FILLER}Later we mentioned sync once.\n\n${FILLER}`,
  'Areas/Café culture.md': '# Café culture\n\nNotes about cafés and their coffee.\n',
  'Reading/Lighthouse.md': '---\ntags: [research]\n---\n# Lighthouse\n\nThe amber lighthouse protocol keeps ships safe. #project/alpha\n',
  'Reading/Scattered.md': '# Scattered\n\nAmber is a colour. The lighthouse stands on the cliff. A protocol exists.\n',
  'Code/Snippet.md': '# Snippet\n\nText before.\n\n```\nconst zephyrine = 1;\n```\n',
};

describe('search over a hosted mapping', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'search');
    api = restClient(gateway, owner.token);
    await seedNotes(api, owner.mapping.id, NOTES);
  });
  afterAll(() => gateway.stop());

  const search = async (query: Record<string, string | number | undefined>, tags: string[] = []) => {
    const url = new URL(`${gateway.url}/api/dev/search`);
    url.searchParams.set('mappingId', owner.mapping.id);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    for (const tag of tags) url.searchParams.append('tags', tag);
    const response = await fetch(url, { headers: { authorization: `Bearer ${owner.token}` } });
    return { status: response.status, body: (await response.json()) as Page & { code?: string } };
  };
  const paths = (page: Page) => page.results.map((hit) => hit.path);

  it('ranks a title match above a passing mention in a long note', async () => {
    const { status, body } = await search({ query: 'sync' });
    expect(status).toBe(200);
    expect(paths(body)).toEqual(['Projects/Offline Sync.md', 'Journal/2026-01-02.md']);
    expect(body.results[0]!.matchedIn).toEqual(['title', 'path', 'body']); // the H1 is body text too
    expect(body.results[1]!.matchedIn).toEqual(['body']);
    expect(body.results[0]!.score).toBeGreaterThan(body.results[1]!.score);
    expect(body).toMatchObject({ truncated: false, nextCursor: null });
  });

  it('needs every word, and a quoted phrase as written', async () => {
    expect(paths((await search({ query: 'amber lighthouse protocol' })).body).sort()).toEqual(['Reading/Lighthouse.md', 'Reading/Scattered.md']);
    expect(paths((await search({ query: '"amber lighthouse protocol"' })).body)).toEqual(['Reading/Lighthouse.md']);
    expect(paths((await search({ query: '"lighthouse amber"' })).body)).toEqual([]);
    expect(paths((await search({ query: 'amber nowhereword' })).body)).toEqual([]);
  });

  it('folds case and accents, and finds words in code blocks', async () => {
    expect(paths((await search({ query: 'CAFE' })).body)).toEqual(['Areas/Café culture.md']);
    expect(paths((await search({ query: 'zephyrine' })).body)).toEqual(['Code/Snippet.md']);
  });

  it('gives a snippet around the match, with highlight offsets on the matched words', async () => {
    const hit = (await search({ query: 'sync' })).body.results[1]!;
    expect(hit.snippet).toContain('mentioned sync once');
    expect(hit.snippet.startsWith('… ')).toBe(true);
    expect(hit.highlights.length).toBeGreaterThan(0);
    for (const [start, end] of hit.highlights) expect(hit.snippet.slice(start, end).toLowerCase()).toBe('sync');
    const phrase = (await search({ query: '"amber lighthouse protocol"' })).body.results[0]!;
    const words = phrase.highlights.map(([s, e]) => phrase.snippet.slice(s, e).toLowerCase());
    expect(words.join(' ')).toContain('amber lighthouse protocol');
    expect(new Set(words)).toEqual(new Set(['amber', 'lighthouse', 'protocol']));
  });

  it('filters by tag (nested tags count for their parents, frontmatter tags too) and by folder', async () => {
    expect(paths((await search({ query: 'amber' }, ['project'])).body)).toEqual(['Reading/Lighthouse.md']);
    expect(paths((await search({ query: 'amber' }, ['#Project/Alpha'])).body)).toEqual(['Reading/Lighthouse.md']);
    expect(paths((await search({ query: 'amber' }, ['research', 'project'])).body)).toEqual(['Reading/Lighthouse.md']);
    expect(paths((await search({ query: 'amber' }, ['proj'])).body)).toEqual([]);
    expect(paths((await search({ query: 'amber', folder: 'reading' })).body).sort()).toEqual(['Reading/Lighthouse.md', 'Reading/Scattered.md']);
    expect(paths((await search({ query: 'amber', folder: 'Read' })).body)).toEqual([]);
    expect((await search({ query: 'amber' }, ['project'])).body.results[0]!.tags.sort()).toEqual(['project/alpha', 'research']);
  });

  it('is bounded: 20 by default, pages with a cursor, and refuses bad limits and foreign cursors', async () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, k) => [`Zoo/Zebra ${String(k).padStart(2, '0')}.md`, `# Zebra ${k}\n\nA zebra note.\n`]));
    await seedNotes(api, owner.mapping.id, many);
    const first = (await search({ query: 'zebra' })).body;
    expect(first.results).toHaveLength(20);
    expect(first.truncated).toBe(true);
    const second = (await search({ query: 'zebra', cursor: first.nextCursor! })).body;
    expect(second.results).toHaveLength(5);
    expect(second).toMatchObject({ truncated: false, nextCursor: null });
    expect(new Set([...paths(first), ...paths(second)])).toEqual(new Set(Object.keys(many)));
    const small = (await search({ query: 'zebra', limit: 7 })).body;
    expect(paths(small)).toEqual(paths(first).slice(0, 7));

    for (const bad of [{ limit: 0 }, { limit: 101 }, { limit: 'x' }, { cursor: 'not-a-cursor' }, { cursor: first.nextCursor!, query: 'other' }]) {
      const response = await search({ query: 'zebra', ...bad });
      expect(response.status, JSON.stringify(bad)).toBe(400);
      expect(response.body.code).toBe('invalid_request');
    }
  });

  it('refuses empty, wordless and oversized queries with invalid_request', async () => {
    for (const query of [undefined, '', '   ', '"" !!', 'x'.repeat(501)]) {
      const response = await search({ query });
      expect(response.status, String(query)).toBe(400);
      expect(response.body.code).toBe('invalid_request');
    }
  });

  it('follows applied changes at once: new notes, changed words, deletions', async () => {
    expect(paths((await search({ query: 'quokka' })).body)).toEqual([]);
    await seedNotes(api, owner.mapping.id, { 'Fresh/Animal.md': '# Fresh\n\nA quokka appears.\n' });
    expect(paths((await search({ query: 'quokka' })).body)).toEqual(['Fresh/Animal.md']);
    const changed = '# Fresh\n\nA wombat appears.\n';
    expect((await apply(api, owner.mapping.id, [{ type: 'write-note', path: 'Fresh/Animal.md', content: changed, expectedHash: hashOf('# Fresh\n\nA quokka appears.\n') }])).status).toBe(200);
    expect(paths((await search({ query: 'quokka' })).body)).toEqual([]);
    expect(paths((await search({ query: 'wombat' })).body)).toEqual(['Fresh/Animal.md']);
    expect((await apply(api, owner.mapping.id, [{ type: 'delete-note', path: 'Fresh/Animal.md', expectedHash: hashOf(changed) }])).status).toBe(200);
    expect(paths((await search({ query: 'wombat' })).body)).toEqual([]);
  });

  it('sees changes committed by another writer (another process shares only the database)', async () => {
    // A second service over the same database stands for another gateway: it has its own in-memory index.
    const other = (await import('../src/app/services.ts')).createServices(gateway.db);
    const before = await other.search.searchNotes(owner.actor, owner.mapping.id, { query: 'narwhal' });
    expect(before.results).toEqual([]);
    await seedNotes(api, owner.mapping.id, { 'Sea/Narwhal.md': '# Narwhal\n\nTusked.\n' });
    const after = await other.search.searchNotes(owner.actor, owner.mapping.id, { query: 'narwhal' });
    expect(after.results.map((hit) => hit.path)).toEqual(['Sea/Narwhal.md']);
  });

  it('answers 404 for a mapping of another account and 409 for a device-encrypted one, changing nothing', async () => {
    const stranger = await createOwner(gateway.services, 'stranger');
    const before = await snapshotOf(gateway);
    const foreign = await fetch(`${gateway.url}/api/dev/search?mappingId=${owner.mapping.id}&query=sync`, { headers: { authorization: `Bearer ${stranger.token}` } });
    expect(foreign.status).toBe(404);
    await gateway.services.vaults.updateMappingFlags(stranger.mapping.id, { deviceEncrypted: true });
    const sealed = await fetch(`${gateway.url}/api/dev/search?mappingId=${stranger.mapping.id}&query=sync`, { headers: { authorization: `Bearer ${stranger.token}` } });
    expect(sealed.status).toBe(409);
    expect(((await sealed.json()) as { code: string }).code).toBe('device_encrypted');
    expect(await snapshotOf(gateway)).toBe(before);
  });

  it('is the search_notes MCP tool, with structured results and isError failures', async () => {
    const client = await connectMcpClient(gateway.url, owner.token);
    try {
      const found = await callTool(client, 'search_notes', { mappingId: owner.mapping.id, query: 'sync', limit: 1 });
      expect(found.isError).toBe(false);
      expect(found.data).toMatchObject({ results: [{ path: 'Projects/Offline Sync.md' }], truncated: true });
      const bad = await callTool(client, 'search_notes', { mappingId: owner.mapping.id, query: '' });
      expect(bad.isError).toBe(true);
      expect(bad.data).toMatchObject({ code: 'invalid_request' });
    } finally {
      await client.close();
    }
  });
});
