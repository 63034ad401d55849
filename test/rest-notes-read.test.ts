import { beforeAll, describe, expect, it } from 'vitest';
import { notePathUrl, snapshotOf, type ApiResponse } from './support/rest-client.ts';
import {
  STRANGER_NOTE,
  expectProblem,
  expectSuccess,
  expectUnchanged,
  itRejectsUnauthorizedCallers,
  newCaller,
  newKey,
  rawRequest,
  seedNote,
  trashNote,
  useNotesSuite,
  type Caller,
} from './support/rest-notes.ts';

// Reads of the Developer REST API. Reads take no precondition and no idempotency key, so stale-hash and key rules
// are covered by rest-notes-write.test.ts; here "stale" means an old ETag, which must not answer 304.
const suite = useNotesSuite();

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

interface TrashPage {
  entries: Record<string, unknown>[];
  nextCursor: string | null;
  truncated: boolean;
}

interface Inventory {
  notes: { path: string; revision: string; size: number }[];
  nextCursor: string | null;
  truncated: boolean;
}

describe('GET /api/dev/notes/trash', () => {
  let caller: Caller;
  const trashIds: string[] = [];

  beforeAll(async () => {
    caller = await newCaller(suite.gateway, 'trash');
    for (const name of ['one', 'two', 'three']) {
      const hash = await seedNote(caller, `old/${name}.md`, `# ${name}\nsecret words of ${name}\n`);
      if (name !== 'three') trashIds.push(await trashNote(caller, `old/${name}.md`, hash));
    }
  });

  const trash = (query: Record<string, string | number> = {}) =>
    caller.api.get<TrashPage>('/notes/trash', {
      query: { mappingId: caller.mappingId, ...query },
    });

  it('lists trash entries newest first, with metadata and never the content', async () => {
    const response = await trash();
    expectSuccess(response);
    expect(response.text).not.toContain('secret words');
    expect(response.body.entries.map((e) => e.trashId)).toEqual([...trashIds].reverse());
    expect(response.body.entries[0]).toEqual({
      trashId: trashIds[1],
      originalPath: 'old/two.md',
      deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      deletedBy: caller.owner.accountId,
      size: Buffer.byteLength('# two\nsecret words of two\n'),
      contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
  });

  it('pages with limit and cursor', async () => {
    const first = await trash({ limit: 1 });
    expectSuccess(first);
    expect(first.body).toMatchObject({ truncated: true, entries: [{ trashId: trashIds[1] }] });
    const second = await trash({ limit: 1, cursor: first.body.nextCursor! });
    expect(second.body).toMatchObject({ truncated: false, nextCursor: null, entries: [{ trashId: trashIds[0] }] });
  });

  it('pages through entries deleted in one transaction without skipping any', async () => {
    const batch = await newCaller(suite.gateway, 'trash-batch');
    const actions = [];
    for (const name of ['a', 'b', 'c']) {
      actions.push({ type: 'delete-note', path: `batch/${name}.md`, expectedHash: await seedNote(batch, `batch/${name}.md`, name) });
    }
    const deleted = await batch.api.post<{ actions: { trashId: string }[] }>('/transactions', {
      json: { mappingId: batch.mappingId, dryRun: false, actions },
      headers: { 'idempotency-key': newKey() },
    });
    expect(deleted.status, deleted.text).toBe(200);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page += 1) {
      const response: ApiResponse<TrashPage> = await batch.api.get<TrashPage>('/notes/trash', {
        query: { mappingId: batch.mappingId, limit: 1, ...(cursor ? { cursor } : {}) },
      });
      expectSuccess(response);
      seen.push(...response.body.entries.map((e) => e.trashId));
      cursor = response.body.nextCursor;
      if (!cursor) break;
    }
    expect([...seen].sort()).toEqual(deleted.body.actions.map((a) => a.trashId).sort());
  });

  it.each([
    ['a cursor this API never returned', { cursor: '%%%' }],
    ["an inventory cursor (another shape)", { cursor: cursorOf({ p: 'old/one.md' }) }],
    ['an oversized cursor', { cursor: 'A'.repeat(3000) }],
    ['a limit above 1,000', { limit: 1001 }],
    ['a mapping id that is not a UUID', { mappingId: '1234' }],
  ])('answers 400 invalid_request for %s', async (_label, query) => {
    await expectUnchanged(suite.gateway, () => trash(query), 400, 'invalid_request');
  });

  itRejectsUnauthorizedCallers(suite, (token, mappingId) => suite.client.get('/notes/trash', { token, query: { mappingId } }));
});

describe('GET /api/dev/notes/:category/:filename', () => {
  let caller: Caller;
  let revision: string;
  const content = '# Today\nWrote tests.\n';

  beforeAll(async () => {
    caller = await newCaller(suite.gateway, 'reader');
    revision = await seedNote(caller, 'journal/today.md', content);
  });

  const read = (path: string, headers: Record<string, string> = {}) =>
    caller.api.get(notePathUrl(path), { query: { mappingId: caller.mappingId }, headers });

  it('answers JSON with content, hash and revision, and the revision as a quoted ETag', async () => {
    const response = await read('journal/today.md');
    expectSuccess(response);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('etag')).toBe(`"${revision}"`);
    expect(response.headers.get('vary')).toMatch(/accept/i);
    expect(response.body).toEqual({
      path: 'journal/today.md',
      title: 'Today',
      revision,
      contentHash: revision,
      size: Buffer.byteLength(content),
      content,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it.each([
    ['text/markdown', 'Markdown'],
    ['text/markdown, application/json;q=0.5', 'Markdown'],
    ['text/markdown, */*;q=0.1', 'Markdown'],
    ['application/json', 'JSON'],
    ['text/markdown;q=0.5, application/json', 'JSON'],
    ['*/*', 'JSON'],
  ])('answers Accept: %s with %s', async (accept, kind) => {
    const markdown = kind === 'Markdown';
    const response = await read('journal/today.md', { accept });
    expectSuccess(response);
    expect(response.headers.get('etag')).toBe(`"${revision}"`);
    if (markdown) {
      expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(response.text).toBe(content);
    } else {
      expect(response.body).toMatchObject({ content, revision });
    }
  });

  const STALE_TAG = '"sha256:0000000000000000000000000000000000000000000000000000000000000000"';
  it.each([
    ['the current ETag with 304', (rev: string) => `"${rev}"`, 304],
    ['a weak form of it with 304', (rev: string) => `W/"${rev}"`, 304],
    ['* with 304', () => '*', 304],
    ['a list holding it with 304', (rev: string) => `${STALE_TAG}, "${rev}"`, 304],
    ['a stale ETag with 200 and the content', () => STALE_TAG, 200],
  ])('answers If-None-Match: %s', async (_label, header, status) => {
    const response = await read('journal/today.md', { 'if-none-match': header(revision), accept: 'text/markdown' });
    expect(response.status).toBe(status);
    expect(response.headers.get('etag')).toBe(`"${revision}"`);
    expect(response.text).toBe(status === 304 ? '' : content);
  });

  it('gives a changed note a new ETag, so the old one no longer answers 304', async () => {
    const old = await seedNote(caller, 'journal/changing.md', 'v1');
    const update = await caller.api.post('/notes', {
      json: { mappingId: caller.mappingId, path: 'journal/changing.md', content: 'v2', dryRun: false, expectedHash: old },
      headers: { 'idempotency-key': newKey() },
    });
    expect(update.status).toBe(200);
    const response = await read('journal/changing.md', { 'if-none-match': `"${old}"` });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).not.toBe(`"${old}"`);
    expect(response.body).toMatchObject({ content: 'v2' });
  });

  it('takes the mapping id from X-Service-Mapping, and refuses a query and header that disagree', async () => {
    const byHeader = await caller.api.get(notePathUrl('journal/today.md'), { headers: { 'x-service-mapping': caller.mappingId } });
    expectSuccess(byHeader);
    expect(byHeader.body).toMatchObject({ content });
    const conflicting = () => read('journal/today.md', { 'x-service-mapping': suite.stranger.mappingId });
    await expectUnchanged(suite.gateway, conflicting, 400, 'invalid_request');
  });

  it('finds a note by its canonical (NFC) path', async () => {
    await seedNote(caller, 'journal/café.md', '# Café\n');
    const response = await read('journal/cafe\u0301.md');
    expectSuccess(response);
    expect(response.body).toMatchObject({ path: 'journal/café.md', content: '# Café\n' });
  });

  it('answers 404 not_found for a note that does not exist', async () => {
    await expectUnchanged(suite.gateway, () => read('journal/missing.md'), 404, 'not_found');
  });

  it.each([
    ['a backslash', '/notes/a%5Cb/today.md', 'backslash'],
    ['a file that is not Markdown', '/notes/journal/today.txt', 'not_markdown'],
    ['a bare ".md"', '/notes/journal/.md', 'not_markdown'],
    ['an encoded slash (a third segment)', '/notes/journal/..%2Ftoday.md', 'segments'],
    ['a NUL character', '/notes/journal/to%00day.md', 'control_character'],
    ['a bidi override', '/notes/journal/%E2%80%AEdm.txt.md', 'bidi_control'],
    ['an oversized file name', `/notes/journal/${'a'.repeat(300)}.md`, 'segment_too_long'],
  ])('answers 400 invalid_path for %s', async (_label, url, reason) => {
    const response = await expectUnchanged(suite.gateway, () => caller.api.get(url, { query: { mappingId: caller.mappingId } }), 400, 'invalid_path');
    expect(response.body.reason).toBe(reason);
  });

  it.each(['/api/dev/notes/../journal/today.md', '/api/dev/notes/%2E%2E/today.md', '/api/dev/notes/journal/%2e%2e'])(
    'resolves the dot segments of %s before routing (RFC 3986 s5.2.4), so they reach no note',
    async (path) => {
      const before = await snapshotOf(suite.gateway);
      const headers = { authorization: `Bearer ${caller.owner.token}` };
      const response = await rawRequest(suite.gateway, { method: 'GET', path: `${path}?mappingId=${caller.mappingId}`, headers });
      expectProblem(response, 404, 'not_found');
      expect(response.text).not.toContain('Wrote tests');
      expect(await snapshotOf(suite.gateway)).toBe(before);
    },
  );

  it('refuses bodies of a device-encrypted mapping with 409 device_encrypted, while the inventory still works', async () => {
    const sealed = await newCaller(suite.gateway, 'sealed-reader');
    const hash = await seedNote(sealed, 'vault/sealed.md', '# Sealed\n');
    await suite.gateway.services.vaults.updateMappingFlags(sealed.mappingId, { deviceEncrypted: true });
    for (const accept of ['application/json', 'text/markdown']) {
      const response = await expectUnchanged(
        suite.gateway,
        () => sealed.api.get(notePathUrl('vault/sealed.md'), { query: { mappingId: sealed.mappingId }, headers: { accept } }),
        409,
        'device_encrypted',
      );
      expect(response.text).not.toContain('# Sealed');
    }
    const inventory = await sealed.api.get('/notes', { query: { mappingId: sealed.mappingId } });
    expectSuccess(inventory);
    expect(inventory.body).toMatchObject({ notes: [{ path: 'vault/sealed.md', revision: hash }] });
  });

  itRejectsUnauthorizedCallers(suite, (token, mappingId) => suite.client.get(notePathUrl(STRANGER_NOTE), { token, query: { mappingId } }));
});

describe('GET /api/dev/notes (inventory)', () => {
  let caller: Caller;
  const hashes = new Map<string, string>();
  // Byte order: uppercase before lowercase, and "é" (0xC3 0xA9) after every ASCII letter.
  const paths = ['Zeta/z.md', 'alpha/Beta.md', 'alpha/a.md', 'alpha/b.md', 'émile/e.md'];

  beforeAll(async () => {
    caller = await newCaller(suite.gateway, 'inventory');
    for (const path of [...paths].reverse()) hashes.set(path, await seedNote(caller, path, `# ${path}\nbody of ${path}\n`));
  });

  const list = (query: Record<string, string | number>) => caller.api.get<Inventory>('/notes', { query: { mappingId: caller.mappingId, ...query } });

  it('lists path, title, revision, size and update time in byte order of path, without content', async () => {
    const response = await list({});
    expectSuccess(response);
    expect(response.body.notes.map((n) => n.path)).toEqual(paths);
    expect(response.body).toMatchObject({ nextCursor: null, truncated: false });
    for (const note of response.body.notes) {
      expect(Object.keys(note).sort()).toEqual(['path', 'revision', 'size', 'title', 'updatedAt']);
      expect(note).toMatchObject({ title: note.path, revision: hashes.get(note.path), size: Buffer.byteLength(`# ${note.path}\nbody of ${note.path}\n`) });
    }
  });

  it('takes the mapping id from the X-Service-Mapping header, and refuses a query and header that disagree', async () => {
    const byHeader = await caller.api.get<Inventory>('/notes', { headers: { 'x-service-mapping': caller.mappingId } });
    expectSuccess(byHeader);
    expect(byHeader.body.notes).toHaveLength(paths.length);
    const sameInOtherCase = await caller.api.get('/notes', {
      query: { mappingId: caller.mappingId },
      headers: { 'x-service-mapping': caller.mappingId.toUpperCase() },
    });
    expectSuccess(sameInOtherCase);
    const conflicting = () =>
      caller.api.get('/notes', { query: { mappingId: caller.mappingId }, headers: { 'x-service-mapping': suite.prober.mappingId } });
    expect((await expectUnchanged(suite.gateway, conflicting, 400, 'invalid_request')).body.field).toBe('mappingId');
  });

  it('pages with limit and cursor: every note exactly once, in order', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const response = await list({ limit: 2, ...(cursor ? { cursor } : {}) });
      expectSuccess(response);
      seen.push(...response.body.notes.map((n) => n.path));
      cursor = response.body.nextCursor;
      expect(response.body.truncated).toBe(cursor !== null);
      if (!cursor) break;
    }
    expect(seen).toEqual(paths);
  });

  it.each([
    ['a cursor this API never returned', { cursor: 'not-a-cursor' }],
    ['a cursor of the wrong shape', { cursor: cursorOf({ d: '2020-01-01', i: 'x' }) }],
    ['an oversized cursor', { cursor: 'A'.repeat(3000) }],
    ['a limit of 0', { limit: 0 }],
    ['a limit that is not a number', { limit: 'ten' }],
    ['a fractional limit', { limit: '1.5' }],
    ['an empty mapping id', { mappingId: '' }],
  ])('answers 400 invalid_request for %s', async (_label, query) => {
    await expectUnchanged(suite.gateway, () => list(query), 400, 'invalid_request');
  });

  it('answers 400 invalid_request without a mapping id', async () => {
    await expectUnchanged(suite.gateway, () => caller.api.get('/notes'), 400, 'invalid_request');
  });

  itRejectsUnauthorizedCallers(suite, (token, mappingId) => suite.client.get('/notes', { token, query: { mappingId } }));

  // Last: the 1,001 notes it adds make every later whole-database snapshot slower.
  it('serves at most 1,000 notes per request, with a cursor to the rest', async () => {
    const big = await newCaller(suite.gateway, 'big-inventory');
    for (let batch = 0; batch < 11; batch += 1) {
      const count = batch < 10 ? 100 : 1;
      const actions = Array.from({ length: count }, (_, i) => ({ type: 'write-note', path: `bulk/n${String(batch * 100 + i).padStart(4, '0')}.md`, content: `n${i}` }));
      const seeded = await big.api.post('/transactions', {
        json: { mappingId: big.mappingId, dryRun: false, actions },
        headers: { 'idempotency-key': newKey() },
      });
      expect(seeded.status, seeded.text).toBe(200);
    }
    const first = await big.api.get<Inventory>('/notes', { query: { mappingId: big.mappingId } });
    expectSuccess(first);
    expect(first.body.notes).toHaveLength(1000);
    expect(first.body).toMatchObject({ truncated: true, nextCursor: expect.any(String) });
    const rest = await big.api.get<Inventory>('/notes', { query: { mappingId: big.mappingId, cursor: first.body.nextCursor! } });
    expect(rest.body.notes.map((n) => n.path)).toEqual(['bulk/n1000.md']);
    expect(rest.body).toMatchObject({ truncated: false, nextCursor: null });
    await expectUnchanged(suite.gateway, () => big.api.get('/notes', { query: { mappingId: big.mappingId, limit: 1001 } }), 400, 'invalid_request');
  });
});
