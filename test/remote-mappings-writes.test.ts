import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteKind } from '../src/domains/providers/index.ts';
import type { Mapping } from '../src/domains/vaults/index.ts';
import type { TestGateway } from './support/gateway.ts';
import {
  REMOTE_KINDS,
  requestsDuring,
  syncMapping,
  type RemoteCaller,
  connectOwnerAndStranger,
  createRemoteMapping,
  startRemoteSuite,
  syncEvery,
  type RemoteSuite,
} from './support/remote-gateway.ts';
import { snapshotOf } from './support/rest-client.ts';
import { expectProblem, hashOf, newKey } from './support/rest-transactions.ts';

/**
 * Applied changes to remote mappings through the real gateway, against each provider's fake: the provider first,
 * conditionally on its concurrency token, then the synchronized copy and a provenance event; the four write
 * conditions of spec 3.1, one note per idempotency key, and recoverable deletes.
 */

const SEED = '# Plan\nThe first draft.\n';

interface KindMappings {
  main: Mapping;
  pullOnly: Mapping;
  encrypted: Mapping;
  /** The stranger's mapping under a grant without file-write access (the switch is on). */
  readOnlyGrant: Mapping;
}

describe('remote mappings through the gateway: writes', () => {
  const mappings = new Map<RemoteKind, KindMappings>();
  let suite: RemoteSuite;
  let fixtures: RemoteSuite['fixtures'];
  let gateway: TestGateway;
  let owner: RemoteCaller;
  let stranger: RemoteCaller;

  beforeAll(async () => {
    suite = await startRemoteSuite();
    ({ fixtures, gateway, owner, stranger } = suite);
    await Promise.all(
      REMOTE_KINDS.map(async (kind) => {
        fixtures.get(kind)!.put('Plans/seed.md', SEED);
        const { connection, readOnly } = await connectOwnerAndStranger(suite, kind);
        const create = (caller: RemoteCaller, connectionId: string, name: string, flags: { pullOnly?: boolean; deviceEncrypted?: boolean }) =>
          createRemoteMapping(suite, kind, caller, connectionId, name, { allowMcpNoteChanges: true, ...flags });
        const set: KindMappings = {
          main: await create(owner, connection.id, 'main', {}),
          pullOnly: await create(owner, connection.id, 'pull-only', { pullOnly: true }),
          encrypted: await create(owner, connection.id, 'encrypted', { deviceEncrypted: true }),
          readOnlyGrant: await create(stranger, readOnly.id, 'read-only grant', {}),
        };
        mappings.set(kind, set);
        await syncEvery(gateway, Object.values(set));
      }),
    );
  }, 60_000);

  afterAll(() => suite?.close());

  describe.each(REMOTE_KINDS)('%s', (kind) => {
    const fixture = () => fixtures.get(kind)!;
    const mappingId = () => mappings.get(kind)!.main.id;

    it('apply_note_writes of one note creates it at the provider and in the copy, with a provenance event naming the caller; the same key replays without a second provider write', async () => {
      const path = 'Inbox/created.md';
      const content = `# Created\nA quokka note made by an agent on ${kind}.\n`;
      const request = { mappingId: mappingId(), notes: [{ path, content }], idempotencyKey: `create-${kind}` };
      const applied = await owner.call('apply_note_writes', request);
      expect(applied.isError, JSON.stringify(applied.data)).toBe(false);
      expect(applied.data).toMatchObject({ applied: true, actions: [{ path, status: 'create', beforeRevision: null, afterRevision: hashOf(content) }] });
      expect(fixture().content(path)).toBe(content);

      // The copy: search sees it, and a live read answers the provider's revision.
      const found = await owner.call('search_notes', { mappingId: mappingId(), query: 'quokka' });
      expect((found.data.results as Array<{ path: string }>).map((hit) => hit.path)).toEqual([path]);
      const read = await owner.call('get_note_content', { mappingId: mappingId(), path });
      expect(read.data).toMatchObject({ content, contentHash: hashOf(content), revision: fixture().revision(path) });

      const events = await owner.call('get_knowledge_events', { mappingId: mappingId(), order: 'desc', limit: 1 });
      expect(events.data.events[0]).toMatchObject({
        kind: 'note.created',
        path,
        afterRevision: hashOf(content),
        idempotencyKey: `create-${kind}`,
        credentialKind: 'personal_access_token',
        details: expect.objectContaining({ via: 'remote', providerRevision: fixture().revision(path) }),
      });

      // The same key and body again: the stored answer, and not one request to the provider.
      const before = await snapshotOf(gateway);
      const revision = fixture().revision(path);
      let replay: Awaited<ReturnType<RemoteCaller['call']>> | undefined;
      const sent = await requestsDuring(fixture(), async () => {
        replay = await owner.call('apply_note_writes', request);
      });
      expect(replay!.data).toEqual({ ...applied.data, replayed: true });
      expect(sent).toEqual([]);
      expect(fixture().revision(path)).toBe(revision);
      expect(await snapshotOf(gateway)).toBe(before);

      // The next sync meets kgate's own write at the provider: already in the copy, so nothing is copied or recorded again.
      const outcome = await syncMapping(gateway, mappingId());
      expect(outcome.error).toBeUndefined();
      expect(outcome.counters).toMatchObject({ downloads: 0, created: 0, updated: 0 });
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it('an update with the current contentHash succeeds; a stale one answers stale_revision and nothing changes at the provider', async () => {
      const path = 'Plans/seed.md';
      const current = await owner.call('get_note_content', { mappingId: mappingId(), path });
      expect(current.data.contentHash).toBe(hashOf(SEED));
      const next = `${SEED}- second step\n`;
      const updated = await owner.call('apply_note_writes', { mappingId: mappingId(), notes: [{ path, content: next, expectedHash: hashOf(SEED) }], idempotencyKey: `update-${kind}` });
      expect(updated.isError, JSON.stringify(updated.data)).toBe(false);
      expect(updated.data.actions[0]).toMatchObject({ status: 'update', beforeRevision: hashOf(SEED), afterRevision: hashOf(next) });
      expect(fixture().content(path)).toBe(next);

      // Over REST, against the hash the note had before: 412, and neither the provider nor the copy changed.
      const revision = fixture().revision(path);
      const before = await snapshotOf(gateway);
      const stale = await owner.api.post('/notes', {
        json: { mappingId: mappingId(), path, content: '# Overwrite\n', expectedHash: hashOf(SEED), dryRun: false },
        headers: { 'idempotency-key': newKey() },
      });
      expectProblem(stale, 412, 'stale_revision');
      expect(fixture().content(path)).toBe(next);
      expect(fixture().revision(path)).toBe(revision);
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it("a write racing another device answers conflict (409) and the other device's content stays (no lost update)", async () => {
      const path = 'Plans/raced.md';
      const first = '# Raced\nv1\n';
      const created = await owner.call('apply_note_writes', { mappingId: mappingId(), notes: [{ path, content: first }], idempotencyKey: `race-create-${kind}` });
      expect(created.isError, JSON.stringify(created.data)).toBe(false);

      // kgate reads the note live (hash v1 matches), then another device saves v2 before kgate's conditional write.
      const theirs = '# Raced\nv2, written on a laptop.\n';
      fixture().raceNextWrite(() => fixture().put(path, theirs));
      const before = await snapshotOf(gateway);
      const raced = await owner.api.post('/notes', {
        json: { mappingId: mappingId(), path, content: '# Raced\nv2 from the agent.\n', expectedHash: hashOf(first), dryRun: false },
        headers: { 'idempotency-key': newKey() },
      });
      expectProblem(raced, 409, 'conflict');
      expect(fixture().content(path)).toBe(theirs);
      expect(await snapshotOf(gateway)).toBe(before);
      const read = await owner.call('get_note_content', { mappingId: mappingId(), path });
      expect(read.data).toMatchObject({ content: theirs, revision: fixture().revision(path) });
    });

    it('two notes in one applied request answer one_note_per_key and write nothing; a preview may hold both', async () => {
      const notes = [
        { path: 'Pair/one.md', content: '# One\n' },
        { path: 'Pair/two.md', content: '# Two\n' },
      ];
      const before = await snapshotOf(gateway);
      const sent = await requestsDuring(fixture(), async () => {
        const applied = await owner.call('apply_note_writes', { mappingId: mappingId(), notes, idempotencyKey: `pair-${kind}` });
        expect(applied).toMatchObject({ isError: true, data: { code: 'one_note_per_key' } });
        const rest = await owner.api.post('/transactions', {
          json: { mappingId: mappingId(), dryRun: false, actions: notes.map((note) => ({ type: 'write-note', ...note })) },
          headers: { 'idempotency-key': newKey() },
        });
        expectProblem(rest, 400, 'one_note_per_key');
        const preview = await owner.call('preview_note_writes', { mappingId: mappingId(), notes });
        expect(preview.isError, JSON.stringify(preview.data)).toBe(false);
        expect(preview.data.actions).toMatchObject([{ status: 'create' }, { status: 'create' }]);
      });
      expect(sent).toEqual([]);
      expect(fixture().content('Pair/one.md')).toBeNull();
      expect(fixture().content('Pair/two.md')).toBeNull();
      // The preview left its receipt only: notes, trash and events are as they were.
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it('each write condition off in turn answers its own code and nothing reaches the provider', async () => {
      const set = mappings.get(kind)!;
      const path = 'Refused/note.md';
      const before = await snapshotOf(gateway);
      const attempt = (caller: RemoteCaller, mapping: Mapping) =>
        caller.call('apply_note_writes', { mappingId: mapping.id, notes: [{ path, content: '# Refused\n' }], idempotencyKey: newKey() });
      const sent = await requestsDuring(fixture(), async () => {
        await gateway.services.vaults.setMcpNoteChanges(owner.owner.accountId, set.main.id, false);
        try {
          expect(await attempt(owner, set.main)).toMatchObject({ isError: true, data: { code: 'mcp_changes_disabled' } });
          // The switch governs every writer of a remote mapping, the owner's own REST scripts included.
          const rest = await owner.api.post('/notes', { json: { mappingId: set.main.id, path, content: '# Refused\n', dryRun: false }, headers: { 'idempotency-key': newKey() } });
          expectProblem(rest, 403, 'mcp_changes_disabled');
        } finally {
          await gateway.services.vaults.setMcpNoteChanges(owner.owner.accountId, set.main.id, true);
        }
        expect(await attempt(owner, set.pullOnly)).toMatchObject({ isError: true, data: { code: 'mapping_pull_only' } });
        expect(await attempt(stranger, set.readOnlyGrant)).toMatchObject({ isError: true, data: { code: 'provider_write_not_granted' } });
        expect(await attempt(owner, set.encrypted)).toMatchObject({ isError: true, data: { code: 'device_encrypted' } });
      });
      expect(sent).toEqual([]);
      expect(fixture().content(path)).toBeNull();
      expect(await snapshotOf(gateway)).toBe(before);
    });

    it("a delete goes to the provider's trash (Drive, Dropbox) or into a commit (GitHub)", async () => {
      const path = 'Plans/doomed.md';
      const content = '# Doomed\nTo be deleted.\n';
      fixture().put(path, content);
      await syncMapping(gateway, mappingId());
      const deleted = await owner.call('apply_note_deletions', { mappingId: mappingId(), notes: [{ path, expectedHash: hashOf(content) }], idempotencyKey: `delete-${kind}` });
      expect(deleted.isError, JSON.stringify(deleted.data)).toBe(false);
      expect(deleted.data.actions[0]).toMatchObject({ path, status: 'delete', beforeRevision: hashOf(content) });
      expect(fixture().deletedRecoverably(path)).toBe(true);
      expect(await owner.call('get_note_content', { mappingId: mappingId(), path })).toMatchObject({ isError: true, data: { code: 'not_found' } });
      const events = await owner.call('get_knowledge_events', { mappingId: mappingId(), order: 'desc', limit: 1 });
      expect(events.data.events[0]).toMatchObject({ kind: 'note.deleted', path, idempotencyKey: `delete-${kind}`, credentialKind: 'personal_access_token' });
      const found = await owner.call('search_notes', { mappingId: mappingId(), query: 'doomed' });
      expect(found.data.results).toEqual([]);
    });
  });
});
