/**
 * Edges of the Developer REST API that a new user tripped over, each with its answer and proof that nothing
 * changed: bodies that are not UTF-8, finding a lost mapping id, and notes at any depth.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { mcpRequest } from './support/mcp-bearer-requests.ts';
import {
  expectProblem,
  expectSuccess,
  expectUnchanged,
  newCaller,
  newKey,
  seedNote,
  useNotesSuite,
  WRONG_TOKEN,
  type Caller,
} from './support/rest-notes.ts';
import { snapshotOf } from './support/rest-client.ts';

const suite = useNotesSuite();

/** A JSON body whose `path` or `content` holds `bytes`, which are not UTF-8. */
function bodyWithBytes(mappingId: string, field: 'path' | 'content', bytes: number[], extra = ''): Buffer {
  const before = field === 'path' ? `{"mappingId":"${mappingId}"${extra},"content":"x","path":"in/bad` : `{"mappingId":"${mappingId}"${extra},"path":"in/ok.md","content":"bad`;
  const after = field === 'path' ? '.md"}' : '"}';
  return Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]);
}

describe('request bodies that are not UTF-8', () => {
  let caller: Caller;
  beforeAll(async () => {
    caller = await newCaller(suite.gateway, 'encoding');
  });

  const post = (path: string, raw: Buffer, key?: string) =>
    caller.api.post(path, { raw, headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) } });

  it.each([
    ['a lone continuation byte', [0x80]],
    ['an invalid byte', [0xff, 0xfe]],
    ['an overlong encoding of "/"', [0xc0, 0xaf]],
    ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
    ['a truncated sequence', [0xe2, 0x82]],
  ])('are refused with 400 invalid_encoding, in path or content, preview or apply, and change nothing: %s', async (_label, bytes) => {
    for (const field of ['path', 'content'] as const) {
      const preview = await expectUnchanged(suite.gateway, () => post('/notes', bodyWithBytes(caller.mappingId, field, bytes)), 400, 'invalid_encoding');
      expect(preview.body.detail).toContain('UTF-8');
      await expectUnchanged(suite.gateway, () => post('/notes', bodyWithBytes(caller.mappingId, field, bytes, ',"dryRun":false'), newKey()), 400, 'invalid_encoding');
    }
    const transaction = Buffer.concat([
      Buffer.from(`{"mappingId":"${caller.mappingId}","dryRun":false,"actions":[{"type":"write-note","path":"in/t.md","content":"`),
      Buffer.from(bytes),
      Buffer.from('"}]}'),
    ]);
    await expectUnchanged(suite.gateway, () => post('/transactions', transaction, newKey()), 400, 'invalid_encoding');
  });

  it('is an admitted call (one unit, like other malformed input), and the same key then applies a valid body', async () => {
    const key = newKey();
    const refused = await post('/notes', bodyWithBytes(caller.mappingId, 'content', [0xff], ',"dryRun":false'), key);
    expectProblem(refused, 400, 'invalid_encoding');
    expect(refused.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);
    // The key was never claimed: the body was refused before validation.
    const applied = await caller.api.post('/notes', {
      json: { mappingId: caller.mappingId, path: 'in/fine.md', content: 'fine\n', dryRun: false },
      headers: { 'idempotency-key': key },
    });
    expectSuccess(applied);
    expect(applied.body).toMatchObject({ applied: true });
  });

  it('accepts valid multi-byte text and a leading byte order mark, and stores exactly the characters sent', async () => {
    const content = 'Größe 😀 和\n';
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ mappingId: caller.mappingId, path: 'in/ünï.md', content, dryRun: false }))]);
    expectSuccess(await post('/notes', raw, newKey()));
    const read = await caller.api.get('/notes/in/%C3%BCn%C3%AF.md', { query: { mappingId: caller.mappingId } });
    expect(read.body).toMatchObject({ path: 'in/ünï.md', content });
  });
});

describe('GET /api/dev/mappings', () => {
  it('lists the mappings the account may use, with its role, exactly as the MCP tool list_vaults does', async () => {
    const { prober } = suite;
    const response = await prober.api.get('/mappings');
    expectSuccess(response);
    expect(response.body).toEqual({
      vaults: [{ mappingId: prober.mappingId, name: expect.any(String), provider: 'hosted', readOnly: false, writeAccess: true, role: 'owner', workspaceId: prober.owner.workspaceId, remoteRoot: null, connected: true, deviceEncrypted: false, approvalPolicy: 'open' }],
      truncated: false,
    });
    const tool = await mcpRequest(suite.gateway, prober.owner.token, 'tools/call', { name: 'list_vaults', arguments: {} });
    expect(tool.body!.result.structuredContent).toEqual(response.body);
  });

  it('follows the owner’s switch and the mapping flags in writeAccess and readOnly', async () => {
    const caller = await newCaller(suite.gateway, 'switches');
    await suite.gateway.services.vaults.setMcpNoteChanges(caller.owner.accountId, caller.mappingId, false);
    expect((await caller.api.get('/mappings')).body).toMatchObject({ vaults: [{ writeAccess: false, readOnly: false }] });
    await suite.gateway.services.vaults.setMcpNoteChanges(caller.owner.accountId, caller.mappingId, true);
    expect((await caller.api.get('/mappings')).body).toMatchObject({ vaults: [{ writeAccess: true, readOnly: false }] });
    await suite.gateway.services.vaults.updateMappingFlags(caller.mappingId, { deviceEncrypted: true });
    expect((await caller.api.get('/mappings')).body).toMatchObject({ vaults: [{ writeAccess: false, readOnly: false, deviceEncrypted: true }] });
    await suite.gateway.services.vaults.updateMappingFlags(caller.mappingId, { pullOnly: true });
    expect((await caller.api.get('/mappings')).body).toMatchObject({ vaults: [{ writeAccess: false, readOnly: true }] });
  });

  it('takes no input: a mapping header or query is ignored, not refused', async () => {
    const { prober } = suite;
    const response = await prober.api.get('/mappings', { query: { mappingId: suite.stranger.mappingId }, headers: { 'x-service-mapping': 'nonsense' } });
    expectSuccess(response);
    expect(response.body).toMatchObject({ vaults: [{ mappingId: prober.mappingId }] });
  });

  it('refuses callers as every operation does, and changes nothing', async () => {
    await expectUnchanged(suite.gateway, () => suite.client.get('/mappings', { token: null }), 401, 'unauthenticated');
    await expectUnchanged(suite.gateway, () => suite.client.get('/mappings', { token: WRONG_TOKEN }), 401, 'unauthenticated');
    await expectUnchanged(suite.gateway, () => suite.free.api.get('/mappings'), 403, 'plan_required');
    await expectUnchanged(suite.gateway, () => suite.suspended.api.get('/mappings'), 403, 'account_inactive');
  });
});

describe('notes at any depth', () => {
  let caller: Caller;
  const root = '# Home\nStart here.\n';
  const deep = '# Roadmap\nQ1 then Q2.\n';
  let rootHash: string;
  let deepHash: string;

  beforeAll(async () => {
    caller = await newCaller(suite.gateway, 'depth');
    rootHash = await seedNote(caller, 'Home.md', root);
    deepHash = await seedNote(caller, 'Projects/Tidewater/Roadmap.md', deep);
  });

  const inventory = async () => ((await caller.api.get('/notes', { query: { mappingId: caller.mappingId } })).body as { notes: Array<{ path: string }> }).notes;

  it.each(['/notes/Home.md', '/notes/Projects/Tidewater/Roadmap.md'])(
    'GET %s answers 400 invalid_path naming the two-segment rule and the route for any depth',
    async (url) => {
      expect((await inventory()).map((n) => n.path)).toEqual(expect.arrayContaining(['Home.md', 'Projects/Tidewater/Roadmap.md']));
      const response = await expectUnchanged(suite.gateway, () => caller.api.get(url, { query: { mappingId: caller.mappingId } }), 400, 'invalid_path');
      expect(response.body.reason).toBe('segments');
      expect(response.body.detail).toContain('exactly two path segments');
      expect(response.body.detail).toContain('GET /api/dev/notes/by-path?path=');
    },
  );

  it('DELETE at another depth answers 400 invalid_path naming the transaction route, and deletes nothing', async () => {
    for (const url of ['/notes/Home.md', '/notes/Projects/Tidewater/Roadmap.md']) {
      const response = await expectUnchanged(
        suite.gateway,
        () => caller.api.delete(url, { query: { mappingId: caller.mappingId, dryRun: false }, headers: { 'idempotency-key': newKey(), 'if-match': `"${rootHash}"` } }),
        400,
        'invalid_path',
      );
      expect(response.body.detail).toContain('POST /api/dev/transactions');
    }
    expect((await inventory()).map((n) => n.path)).toEqual(expect.arrayContaining(['Home.md', 'Projects/Tidewater/Roadmap.md']));
  });

  it('GET /notes/by-path reads a note at the root and three levels deep, with its revision as ETag', async () => {
    for (const [path, content, hash] of [
      ['Home.md', root, rootHash],
      ['Projects/Tidewater/Roadmap.md', deep, deepHash],
    ] as const) {
      const response = await caller.api.get('/notes/by-path', { query: { mappingId: caller.mappingId, path } });
      expectSuccess(response);
      expect(response.headers.get('etag')).toBe(`"${hash}"`);
      expect(response.body).toMatchObject({ path, content, revision: hash, contentHash: hash });
    }
  });

  it('GET /notes/by-path answers If-None-Match with 304 and Accept: text/markdown with the Markdown, as the two-segment route does', async () => {
    const query = { mappingId: caller.mappingId, path: 'Projects/Tidewater/Roadmap.md' };
    const notModified = await caller.api.get('/notes/by-path', { query, headers: { 'if-none-match': `W/"${deepHash}"` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(`"${deepHash}"`);
    const markdown = await caller.api.get('/notes/by-path', { query, headers: { accept: 'text/markdown' } });
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.text).toBe(deep);
    // A two-segment note reads the same through both routes.
    const twoSegments = await seedNote(caller, 'Inbox/note.md', 'two\n');
    const byPath = await caller.api.get('/notes/by-path', { query: { mappingId: caller.mappingId, path: 'Inbox/note.md' } });
    const bySegments = await caller.api.get('/notes/Inbox/note.md', { query: { mappingId: caller.mappingId } });
    expect(byPath.body).toEqual(bySegments.body);
    expect(byPath.headers.get('etag')).toBe(`"${twoSegments}"`);
  });

  it('GET /notes/by-path refuses a missing path, an invalid one and a stranger’s mapping, and changes nothing', async () => {
    await expectUnchanged(suite.gateway, () => caller.api.get('/notes/by-path', { query: { mappingId: caller.mappingId } }), 400, 'invalid_request');
    const dots = await expectUnchanged(
      suite.gateway,
      () => caller.api.get('/notes/by-path', { query: { mappingId: caller.mappingId, path: 'Projects/../Home.md' } }),
      400,
      'invalid_path',
    );
    expect(dots.body.reason).toBe('dot_segment');
    await expectUnchanged(suite.gateway, () => caller.api.get('/notes/by-path', { query: { mappingId: caller.mappingId, path: 'Nope/none.md' } }), 404, 'not_found');
    await expectUnchanged(
      suite.gateway,
      () => caller.api.get('/notes/by-path', { query: { mappingId: suite.stranger.mappingId, path: 'shared/secret.md' } }),
      404,
      'not_found',
    );
  });

  it('leaves other paths under /notes unrouted', async () => {
    const before = await snapshotOf(suite.gateway);
    expectProblem(await caller.api.get('/notes/', { query: { mappingId: caller.mappingId } }), 404, 'not_found');
    expectProblem(await caller.api.delete('/notes/trash', { query: { mappingId: caller.mappingId } }), 404, 'not_found');
    expect(await snapshotOf(suite.gateway)).toBe(before);
  });
});
