import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { apply, expectRejected, hashOf, seedNotes, withoutRequestId, type TrashEntryBody } from './support/rest-transactions.ts';

interface TrashPage {
  entries: TrashEntryBody[];
  nextCursor: string | null;
  truncated: boolean;
}

// GET /api/dev/notes/trash: what transactions put in the trash, listed without content, newest first, in pages.
describe('GET /api/dev/notes/trash', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let editor: Owner;
  let api: RestClient;
  let mappingId: string;
  /** Note bodies that must never appear in a listing. */
  const bodyOf = (i: number) => `BODY-${i}-must-not-leak \u00e9\u00e9\n`;
  /** Trash ids in the order they were deleted (oldest first), without the restored one. */
  const listed: string[] = [];
  let restoredId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'trash');
    editor = await createOwner(gateway.services, 'trash-editor');
    await gateway.services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
    api = restClient(gateway, owner.token);
    mappingId = owner.mapping.id;
    const notes = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`t/n${i}.md`, bodyOf(i)]));
    const hashes = await seedNotes(api, mappingId, notes);
    const del = async (client: RestClient, indexes: number[]) => {
      const response = await apply(
        client,
        mappingId,
        indexes.map((i) => ({ type: 'delete-note' as const, path: `t/n${i}.md`, expectedHash: hashes[`t/n${i}.md`]! })),
      );
      expect(response.status, response.text).toBe(200);
      return response.body.actions.map((a) => a.trashId!);
    };
    // Three deletes on their own (one by the editor), then four in one transaction: they share one deletedAt.
    listed.push(...(await del(api, [0])));
    restoredId = (await del(api, [1]))[0]!;
    listed.push(...(await del(restClient(gateway, editor.token), [2])));
    listed.push(...(await del(api, [3, 4, 5, 6])));
    const restored = await apply(api, mappingId, [{ type: 'restore-note', trashId: restoredId, path: 't/n1.md' }]);
    expect(restored.status, restored.text).toBe(200);
    // Another vault's trash must never show up here.
    const stranger = await createOwner(gateway.services, 'trash-stranger');
    const strangerApi = restClient(gateway, stranger.token);
    const theirs = await seedNotes(strangerApi, stranger.mapping.id, { 't/n0.md': 'theirs\n' });
    await apply(strangerApi, stranger.mapping.id, [{ type: 'delete-note', path: 't/n0.md', expectedHash: theirs['t/n0.md']! }]);
  });
  afterAll(() => gateway.stop());

  const page = (query: Record<string, string | number | undefined>, client: RestClient = api) =>
    client.get<TrashPage>('/notes/trash', { query: { mappingId, ...query } });

  it('lists restorable entries as content-free metadata', async () => {
    const response = await page({});
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ nextCursor: null, truncated: false });
    expect(response.text).not.toContain('"content"');
    expect(response.text).not.toContain('must-not-leak');
    expect(response.body.entries).toHaveLength(6);
    expect(response.body.entries.map((e) => e.trashId)).not.toContain(restoredId);
    for (const entry of response.body.entries) {
      expect(Object.keys(entry).sort()).toEqual(['contentHash', 'deletedAt', 'deletedBy', 'originalPath', 'size', 'trashId']);
      const i = Number(/^t\/n(\d)\.md$/.exec(entry.originalPath)![1]);
      expect(entry.contentHash).toBe(hashOf(bodyOf(i)));
      expect(entry.size).toBe(Buffer.byteLength(bodyOf(i), 'utf8'));
      expect(entry.deletedBy).toBe(i === 2 ? editor.accountId : owner.accountId);
      expect(new Date(entry.deletedAt).toISOString()).toBe(entry.deletedAt);
    }
  });

  it('lists the newest deletion first', async () => {
    const { entries } = (await page({})).body;
    // The four of one transaction (in any order among themselves), then the editor's delete, then the first one.
    expect(new Set(entries.slice(0, 4).map((e) => e.originalPath))).toEqual(new Set(['t/n3.md', 't/n4.md', 't/n5.md', 't/n6.md']));
    expect(entries.slice(4).map((e) => e.originalPath)).toEqual(['t/n2.md', 't/n0.md']);
    const times = entries.map((e) => Date.parse(e.deletedAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(entries.map((e) => e.trashId))).toEqual(new Set(listed));
  });

  it.each([1, 2, 3, 4])('pages with limit %i and nextCursor through every entry exactly once', async (limit) => {
    const all = (await page({})).body.entries;
    const seen: TrashEntryBody[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const response = await page({ limit, cursor });
      expect(response.status, response.text).toBe(200);
      expect(response.body.entries.length).toBeLessThanOrEqual(limit);
      expect(response.body.truncated).toBe(response.body.nextCursor !== null);
      seen.push(...response.body.entries);
      if (response.body.nextCursor === null) break;
      cursor = response.body.nextCursor;
    }
    expect(seen.map((e) => e.trashId)).toEqual(all.map((e) => e.trashId));
  });

  it('400 for a bad limit or a cursor it did not issue', async () => {
    for (const limit of [0, 1001, 'ten', '2.5', -1]) {
      await expectRejected(gateway, () => page({ limit }), 400, 'invalid_request');
    }
    // A cursor of the notes inventory is not a trash cursor.
    for (const cursor of ['not-a-cursor', Buffer.from('{"p":"t/n0.md"}').toString('base64url'), 'x'.repeat(2049)]) {
      await expectRejected(gateway, () => page({ cursor }), 400, 'invalid_request');
    }
  });

  it("404 for another account's mapping, as for an unknown one; 401 without a token", async () => {
    const strangerApi = restClient(gateway, (await createOwner(gateway.services, 'peek')).token);
    const theirs = await expectRejected(gateway, () => page({}, strangerApi), 404, 'not_found');
    const unknown = await expectRejected(gateway, () => page({ mappingId: randomUUID() }, strangerApi), 404, 'not_found');
    expect(withoutRequestId(theirs)).toEqual(withoutRequestId(unknown));
    await expectRejected(gateway, () => api.get('/notes/trash', { token: null, query: { mappingId } }), 401, 'unauthenticated');
  });
});
