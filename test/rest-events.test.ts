import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import {
  allEvents,
  apply,
  expectRejected,
  hashOf,
  newKey,
  preview,
  withoutRequestId,
  type EventBody,
} from './support/rest-transactions.ts';

interface EventPage {
  events: EventBody[];
  nextSince: number;
  nextBefore?: number | null;
  truncated: boolean;
}

// GET /api/dev/events: the provenance feed of one mapping for the calling account, in seq order, paged by `since`.
describe('GET /api/dev/events', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let editor: Owner;
  let api: RestClient;
  let editorApi: RestClient;
  let mappingId: string;
  /** The owner's keys, in the order their transactions were applied. */
  const keys = Array.from({ length: 5 }, () => newKey());
  const editorKey = newKey();
  let trashId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'events');
    editor = await createOwner(gateway.services, 'events-editor');
    await gateway.services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
    api = restClient(gateway, owner.token);
    editorApi = restClient(gateway, editor.token);
    mappingId = owner.mapping.id;

    const ok = async (response: Promise<{ status: number; text: string }>) => {
      const r = await response;
      expect(r.status, r.text).toBe(200);
    };
    await ok(apply(api, mappingId, [{ type: 'write-note', path: 'e/a.md', content: 'v1\n' }], keys[0]));
    await ok(apply(api, mappingId, [{ type: 'write-note', path: 'e/a.md', content: 'v2\n', expectedHash: hashOf('v1\n') }], keys[1]));
    const deleted = await apply(api, mappingId, [{ type: 'delete-note', path: 'e/a.md', expectedHash: hashOf('v2\n') }], keys[2]);
    trashId = deleted.body.actions[0]!.trashId!;
    await ok(apply(editorApi, mappingId, [{ type: 'write-note', path: 'e/by-editor.md', content: 'editor\n' }], editorKey));
    await ok(apply(api, mappingId, [{ type: 'restore-note', trashId, path: 'e/a.md' }], keys[3]));
    await ok(
      apply(
        api,
        mappingId,
        [
          { type: 'write-note', path: 'e/b.md', content: 'b\n' },
          { type: 'write-note', path: 'e/c.md', content: 'c\n' },
        ],
        keys[4],
      ),
    );
  });
  afterAll(() => gateway.stop());

  const feed = (query: Record<string, string | number | undefined>, client: RestClient = api) =>
    client.get<EventPage>('/events', { query: { mappingId, ...query } });

  it('records one event per applied change, with kinds, revisions, keys and trash ids, in seq order', async () => {
    const response = await feed({});
    expect(response.status, response.text).toBe(200);
    expect(response.body.truncated).toBe(false);
    const { events } = response.body;
    expect(events.map((e) => [e.kind, e.path, e.beforeRevision, e.afterRevision, e.idempotencyKey, e.trashId])).toEqual([
      ['note.created', 'e/a.md', null, hashOf('v1\n'), keys[0], null],
      ['note.updated', 'e/a.md', hashOf('v1\n'), hashOf('v2\n'), keys[1], null],
      ['note.deleted', 'e/a.md', hashOf('v2\n'), null, keys[2], trashId],
      ['note.restored', 'e/a.md', null, hashOf('v2\n'), keys[3], trashId],
      ['note.created', 'e/b.md', null, hashOf('b\n'), keys[4], null],
      ['note.created', 'e/c.md', null, hashOf('c\n'), keys[4], null],
    ]);
    const seqs = events.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(response.body.nextSince).toBe(seqs.at(-1));
    for (const event of events) {
      expect(event).toMatchObject({ credentialKind: 'personal_access_token', client: null, details: {} });
      expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Date(event.createdAt).toISOString()).toBe(event.createdAt);
    }
  });

  it('gives the diff of each change that replaced content when asked, and none otherwise', async () => {
    const plain = await feed({});
    expect(plain.body.events.every((e) => !('diff' in e))).toBe(true);
    const withDiffs = await feed({ diffs: 'true' });
    expect(withDiffs.status, withDiffs.text).toBe(200);
    const byKind = withDiffs.body.events.filter((e) => e.path === 'e/a.md').map((e) => [e.kind, (e as { diff?: string | null }).diff]);
    expect(byKind).toEqual([
      ['note.created', null],
      ['note.updated', '--- a/e/a.md\n+++ b/e/a.md\n@@ -1,1 +1,1 @@\n-v1\n+v2\n'],
      ['note.deleted', null],
      ['note.restored', null],
    ]);
    expect((await feed({ diffs: 'maybe' })).status).toBe(400);
  });

  it('records nothing for previews and for refused applies', async () => {
    const before = (await feed({})).body.events;
    expect((await preview(api, mappingId, [{ type: 'write-note', path: 'e/preview.md', content: 'p\n' }])).status).toBe(200);
    await expectRejected(
      gateway,
      () => apply(api, mappingId, [{ type: 'write-note', path: 'e/a.md', content: 'v3\n', expectedHash: hashOf('v1\n') }]),
      412,
      'stale_revision',
    );
    expect((await feed({})).body.events).toEqual(before);
  });

  it('shows each account only its own events on a shared mapping', async () => {
    const mine = await allEvents(api, mappingId);
    const theirs = await allEvents(editorApi, mappingId);
    expect(mine.map((e) => e.idempotencyKey)).not.toContain(editorKey);
    expect(theirs.map((e) => [e.kind, e.path, e.idempotencyKey])).toEqual([['note.created', 'e/by-editor.md', editorKey]]);
    // The editor's event sits between the owner's in seq, yet neither feed shows the other's.
    expect(theirs[0]!.seq).toBeGreaterThan(mine[2]!.seq);
    expect(theirs[0]!.seq).toBeLessThan(mine[3]!.seq);
    const viewer = await createOwner(gateway.services, 'events-viewer');
    await gateway.services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
    const viewed = await feed({}, restClient(gateway, viewer.token));
    expect(viewed.status).toBe(200);
    expect(viewed.body).toEqual({ events: [], nextSince: 0, truncated: false });
  });

  it('pages with since and limit: truncated and nextSince lead through every event exactly once', async () => {
    const all = (await feed({})).body.events;
    for (const limit of [1, 2, 4]) {
      const seen: EventBody[] = [];
      let since = 0;
      for (let pages = 0; pages < 10; pages++) {
        const response = await feed({ since, limit });
        expect(response.status, response.text).toBe(200);
        expect(response.body.events.length).toBeLessThanOrEqual(limit);
        seen.push(...response.body.events);
        if (response.body.events.length > 0) expect(response.body.nextSince).toBe(response.body.events.at(-1)!.seq);
        if (!response.body.truncated) break;
        since = response.body.nextSince;
      }
      expect(seen).toEqual(all);
    }
    const last = all.at(-1)!.seq;
    expect((await feed({ since: last })).body).toEqual({ events: [], nextSince: last, truncated: false });
    expect((await feed({ since: all[1]!.seq })).body.events).toEqual(all.slice(2));
    // A page that ends exactly at the last event says so.
    expect((await feed({ since: all[1]!.seq, limit: all.length - 2 })).body.truncated).toBe(false);
  });

  it('lists the latest events first with order=desc, and pages back with before and nextBefore', async () => {
    const all = (await feed({})).body.events;
    const newest = await feed({ order: 'desc', limit: 2 });
    expect(newest.status, newest.text).toBe(200);
    expect(newest.body).toEqual({ events: all.slice(-2).reverse(), nextSince: all.at(-1)!.seq, nextBefore: all.at(-2)!.seq, truncated: true });
    for (const limit of [1, 2, 4]) {
      const seen: EventBody[] = [];
      let before: number | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const response = await feed({ order: 'desc', limit, ...(before !== undefined ? { before } : {}) });
        expect(response.status, response.text).toBe(200);
        seen.push(...response.body.events);
        if (!response.body.truncated) break;
        before = response.body.nextBefore!;
      }
      expect(seen).toEqual([...all].reverse());
    }
    // since and before bound the range (both exclusive) in either order; an empty page has no next cursor.
    expect((await feed({ order: 'desc', since: all[1]!.seq, before: all[4]!.seq })).body.events).toEqual([all[3], all[2]]);
    expect((await feed({ since: all[1]!.seq, before: all[4]!.seq })).body.events).toEqual([all[2], all[3]]);
    expect((await feed({ order: 'desc', before: all[0]!.seq })).body).toEqual({ events: [], nextSince: 0, nextBefore: null, truncated: false });
    // The default order is unchanged, and says nothing of nextBefore.
    expect((await feed({ order: 'asc' })).body).toEqual((await feed({})).body);
    expect((await feed({})).body).not.toHaveProperty('nextBefore');
  });

  it('returns at most 100 events when no limit is given', async () => {
    const busy = await createOwner(gateway.services, 'events-busy');
    const busyApi = restClient(gateway, busy.token);
    const writes = Array.from({ length: 60 }, (_, i) => ({ type: 'write-note' as const, path: `bulk/n${i}.md`, content: `${i}\n` }));
    expect((await apply(busyApi, busy.mapping.id, writes)).status).toBe(200);
    expect((await apply(busyApi, busy.mapping.id, writes.map((w) => ({ ...w, path: w.path.replace('bulk/', 'more/') })))).status).toBe(200);
    const first = await feed({ mappingId: busy.mapping.id }, busyApi);
    expect(first.body.events).toHaveLength(100);
    expect(first.body.truncated).toBe(true);
    const rest = await feed({ mappingId: busy.mapping.id, since: first.body.nextSince }, busyApi);
    expect(rest.body.events).toHaveLength(20);
    expect(rest.body.truncated).toBe(false);
  });

  it.each([
    ['a negative since', { since: -1 }],
    ['a since that is not a number', { since: 'latest' }],
    ['a fractional since', { since: '1.5' }],
    ['a since beyond safe integers', { since: '99999999999999999999' }],
    ['limit 0', { limit: 0 }],
    ['limit 1001', { limit: 1001 }],
    ['a limit that is not a number', { limit: 'all' }],
    ['no mappingId', { mappingId: undefined }],
    ['a mappingId that is not a UUID', { mappingId: 'vault' }],
    ['an order that is neither asc nor desc', { order: 'newest' }],
    ['before 0', { before: 0 }],
    ['a before that is not a number', { before: 'now' }],
  ])('400 for %s', async (_label, query) => {
    await expectRejected(gateway, () => api.get('/events', { query: { mappingId, ...query } }), 400, 'invalid_request');
  });

  it("404 for another account's mapping, as for an unknown one; 401 without a token", async () => {
    const strangerApi = restClient(gateway, (await createOwner(gateway.services, 'peek')).token);
    const theirs = await expectRejected(gateway, () => feed({}, strangerApi), 404, 'not_found');
    const unknown = await expectRejected(gateway, () => feed({ mappingId: randomUUID() }, strangerApi), 404, 'not_found');
    expect(withoutRequestId(theirs)).toEqual(withoutRequestId(unknown));
    await expectRejected(gateway, () => api.get('/events', { token: null, query: { mappingId } }), 401, 'unauthenticated');
  });
});
