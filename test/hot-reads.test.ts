import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServices } from '../src/app/services.ts';
import { contentHash } from '../src/kernel/hashing.ts';
import { TEST_ENGINE } from './support/database.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { newCaller, newKey, seedNote, trashNote, type Caller } from './support/rest-notes.ts';

// Reads served from memory (authority, content versions, note bodies) must never be staler than the database:
// this process's own changes are seen by the very next request, other processes' changes as soon as their
// notification arrives, and nothing is served from memory while notifications may be missed.
describe('hot reads from memory', () => {
  let gateway: TestGateway;
  let caller: Caller;

  beforeAll(async () => {
    gateway = await startTestGateway();
    caller = await newCaller(gateway, 'hot');
  });
  afterAll(() => gateway.stop());

  const read = (who: Caller, path: string, mappingId = who.mappingId) =>
    who.api.get<{ content: string; revision: string }>('/notes/by-path', { query: { mappingId, path } });
  const contentOf = async (who: Caller, path: string, mappingId?: string) => {
    const response = await read(who, path, mappingId);
    return response.status === 200 ? response.body.content : response.status;
  };
  const counts = (name: 'mapping_authority' | 'note_bodies' | 'search_pages') => gateway.services.caches[name]!.counts();
  const vaultOf = (who: Caller) => who.owner.mapping.vaultId;
  /** Changes a stored body behind the gateway's back, as a process that does not announce it would. */
  const overwriteSilently = (who: Caller, path: string, content: string) =>
    gateway.db.query('UPDATE notes SET content = $3 WHERE vault_id = $1 AND path = $2', [vaultOf(who), path, content]);
  const bumpVersion = (who: Caller) => gateway.db.query('UPDATE vaults SET content_version = content_version + 1 WHERE id = $1', [vaultOf(who)]);

  /**
   * Waits until the gateway has taken every vault notice of changes committed so far. A writer's own notice comes
   * back some time after its answer and forgets what was cached meanwhile; notices arrive in commit order, so once a
   * marker sent now has arrived, every earlier one has too.
   */
  const noticesSettled = async () => {
    const marker = `v:${randomUUID()}`;
    const seen = vi.spyOn(gateway.services.authorityCache, 'forgetNotice');
    try {
      await gateway.db.query("SELECT pg_notify('kgate_vaults', $1)", [marker]);
      await expect.poll(() => seen.mock.calls.some(([payload]) => payload === marker), { timeout: 5000, interval: 10 }).toBe(true);
    } finally {
      seen.mockRestore();
    }
  };

  it('a note read again is served from memory: authority and body, no database', async () => {
    await seedNote(caller, 'memo/first.md', '# First\none\n');
    await noticesSettled();
    expect(await contentOf(caller, 'memo/first.md')).toBe('# First\none\n');
    const before = { authority: counts('mapping_authority'), bodies: counts('note_bodies') };
    // Changed in the database without a version change or a notice: only a read from memory still sees "one".
    await overwriteSilently(caller, 'memo/first.md', 'not what was read');
    expect(await contentOf(caller, 'memo/first.md')).toBe('# First\none\n');
    expect(counts('mapping_authority').hits).toBe(before.authority.hits + 1);
    expect(counts('note_bodies').hits).toBe(before.bodies.hits + 1);
    // Once the version moves (every writer moves it), the notice makes the next reads go to the database.
    await bumpVersion(caller);
    await expect.poll(() => contentOf(caller, 'memo/first.md'), { timeout: 5000, interval: 20 }).toBe('not what was read');
  });

  it("this process's writes are read by the very next request: write, delete, restore, move, import", async () => {
    const path = 'memo/second.md';
    const first = await seedNote(caller, path, 'v1\n');
    expect(await contentOf(caller, path)).toBe('v1\n');
    const written = await caller.api.post('/transactions', {
      json: { mappingId: caller.mappingId, dryRun: false, actions: [{ type: 'write-note', path, content: 'v2\n', expectedHash: first }] },
      headers: { 'idempotency-key': newKey() },
    });
    expect(written.status, written.text).toBe(200);
    expect(await contentOf(caller, path)).toBe('v2\n');

    const current = (await read(caller, path)).body.revision;
    const trashId = await trashNote(caller, path, current);
    expect(await contentOf(caller, path)).toBe(404);
    const restored = await caller.api.post('/transactions', {
      json: { mappingId: caller.mappingId, dryRun: false, actions: [{ type: 'restore-note', trashId, path }] },
      headers: { 'idempotency-key': newKey() },
    });
    expect(restored.status, restored.text).toBe(200);
    expect(await contentOf(caller, path)).toBe('v2\n');

    const moved = await caller.api.post('/transactions', {
      json: { mappingId: caller.mappingId, dryRun: false, actions: [{ type: 'move-note', path, newPath: 'memo/moved.md', expectedHash: current }] },
      headers: { 'idempotency-key': newKey() },
    });
    expect(moved.status, moved.text).toBe(200);
    expect(await contentOf(caller, path)).toBe(404);
    expect(await contentOf(caller, 'memo/moved.md')).toBe('v2\n');

    await gateway.services.notes.importNotes(caller.owner.actor, caller.mappingId, [{ path: 'memo/moved.md', content: 'imported\n' }]);
    expect(await contentOf(caller, 'memo/moved.md')).toBe('imported\n');
  });

  it('without any notice at all, writes of the same process are seen: they forget on commit, before they answer', async () => {
    // A second set of services over the same database with its cache on and no listener: only the writers' own
    // forgetting (Sql.afterCommit) can keep it true here.
    const services = createServices(gateway.db);
    services.authorityCache.setEnabled(true);
    const actor = caller.owner.actor;
    const readHere = async (path: string) => (await services.notes.readNote(actor, caller.mappingId, path)).content;
    await services.notes.importNotes(actor, caller.mappingId, [{ path: 'quiet/a.md', content: 'one\n' }]);
    expect(await readHere('quiet/a.md')).toBe('one\n');
    await services.notes.importNotes(actor, caller.mappingId, [{ path: 'quiet/a.md', content: 'two\n' }]);
    expect(await readHere('quiet/a.md')).toBe('two\n');
    const outcome = await services.idempotency.run(
      { accountId: actor.accountId, key: randomUUID(), operation: 'test.write', input: {} },
      (commit) =>
        services.notes.runTransaction({
          actor,
          mappingId: caller.mappingId,
          dryRun: false,
          capability: 'direct',
          commit,
          actions: [{ type: 'write-note', path: 'quiet/a.md', content: 'three\n', expectedHash: contentHash('two\n') }],
        }),
    );
    expect(outcome).toBeDefined();
    expect(await readHere('quiet/a.md')).toBe('three\n');
    expect(services.caches.note_bodies!.counts().hits).toBe(0);
    expect(await readHere('quiet/a.md')).toBe('three\n');
    expect(services.caches.note_bodies!.counts().hits).toBe(1);
    await services.vaults.updateMappingFlags(caller.mappingId, { deviceEncrypted: true });
    await expect(readHere('quiet/a.md')).rejects.toMatchObject({ code: 'device_encrypted' });
    await services.vaults.updateMappingFlags(caller.mappingId, { deviceEncrypted: false });
    expect(await readHere('quiet/a.md')).toBe('three\n');
  });

  it('a search repeated at the same content version is answered from memory; after a write, from the new content', async () => {
    await seedNote(caller, 'memo/search.md', '# Findme\nthe word zanzibar\n');
    const search = async (query: string) =>
      (await caller.api.get<{ results: { path: string }[] }>('/search', { query: { mappingId: caller.mappingId, query } })).body.results.map((r) => r.path);
    expect(await search('zanzibar')).toEqual(['memo/search.md']);
    const hits = counts('search_pages').hits;
    expect(await search('zanzibar')).toEqual(['memo/search.md']);
    expect(counts('search_pages').hits).toBe(hits + 1);
    await seedNote(caller, 'memo/search-2.md', 'zanzibar again\n');
    expect((await search('zanzibar')).sort()).toEqual(['memo/search-2.md', 'memo/search.md']);
  });

  it("a mapping's switches changed here apply to the next request, and changed elsewhere once notified", async () => {
    await seedNote(caller, 'memo/switch.md', 'body\n');
    expect(await contentOf(caller, 'memo/switch.md')).toBe('body\n');
    await gateway.services.vaults.updateMappingFlags(caller.mappingId, { deviceEncrypted: true });
    expect((await read(caller, 'memo/switch.md')).status).toBe(409);
    await gateway.services.vaults.updateMappingFlags(caller.mappingId, { deviceEncrypted: false });
    expect(await contentOf(caller, 'memo/switch.md')).toBe('body\n');
    await gateway.db.query('UPDATE mappings SET device_encrypted = true WHERE id = $1', [caller.mappingId]);
    await expect.poll(async () => (await read(caller, 'memo/switch.md')).status, { timeout: 5000, interval: 20 }).toBe(409);
    await gateway.db.query('UPDATE mappings SET device_encrypted = false WHERE id = $1', [caller.mappingId]);
    await expect.poll(() => contentOf(caller, 'memo/switch.md'), { timeout: 5000, interval: 20 }).toBe('body\n');
  });

  it("a member's role: a change here applies to the next request; removal elsewhere once notified", async () => {
    const guest = await newCaller(gateway, 'guest');
    await seedNote(caller, 'memo/shared.md', 'shared\n');
    const asGuest = () => contentOf(guest, 'memo/shared.md', caller.mappingId);
    expect(await asGuest()).toBe(404);
    await gateway.services.workspaces.setMemberRole(caller.owner.workspaceId, guest.owner.accountId, 'viewer');
    expect(await asGuest()).toBe('shared\n');
    const write = () =>
      guest.api.post('/notes', {
        json: { mappingId: caller.mappingId, path: 'memo/by-guest.md', content: 'x', dryRun: true },
      });
    expect((await write()).status).toBe(403);
    await gateway.services.workspaces.setMemberRole(caller.owner.workspaceId, guest.owner.accountId, 'editor');
    expect((await write()).status).toBe(200);
    await gateway.db.query('DELETE FROM workspace_members WHERE workspace_id = $1 AND account_id = $2', [
      caller.owner.workspaceId,
      guest.owner.accountId,
    ]);
    await expect.poll(asGuest, { timeout: 5000, interval: 20 }).toBe(404);
  });

  it('another caller never gets a body through someone else’s cached read', async () => {
    const other = await newCaller(gateway, 'other');
    await seedNote(caller, 'memo/private.md', 'private\n');
    expect(await contentOf(caller, 'memo/private.md')).toBe('private\n');
    expect(await contentOf(other, 'memo/private.md', caller.mappingId)).toBe(404);
  });

  it.runIf(TEST_ENGINE === 'postgres')('serves nothing from memory while the notification connection is down', async () => {
    await seedNote(caller, 'memo/down.md', 'before\n');
    expect(await contentOf(caller, 'memo/down.md')).toBe('before\n');
    const logged = (text: string) => gateway.logs.filter((line) => line.includes(text)).length;
    const lostBefore = logged('vault notifications lost');
    const restoredBefore = logged('vault notifications restored');
    await gateway.db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kgate-listener' AND datname = current_database()");
    await expect.poll(() => logged('vault notifications lost'), { timeout: 5000 }).toBeGreaterThan(lostBefore);
    // Changed as another process would (the version moves; its notice cannot arrive): seen by the next request.
    await gateway.db.query("UPDATE notes SET content = 'after\n' WHERE vault_id = $1 AND path = 'memo/down.md'", [vaultOf(caller)]);
    await bumpVersion(caller);
    expect(await contentOf(caller, 'memo/down.md')).toBe('after\n');
    await gateway.db.query('UPDATE mappings SET read_only = true WHERE id = $1', [caller.mappingId]);
    const refused = await caller.api.post('/notes', { json: { mappingId: caller.mappingId, path: 'memo/x.md', content: 'x', dryRun: true } });
    expect(refused.status).toBe(403);
    await gateway.db.query('UPDATE mappings SET read_only = false WHERE id = $1', [caller.mappingId]);
    await expect.poll(() => logged('vault notifications restored'), { timeout: 10_000 }).toBeGreaterThan(restoredBefore);
    expect(await contentOf(caller, 'memo/down.md')).toBe('after\n');
  });
});
