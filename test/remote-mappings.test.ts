import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_BUDGETS, type RemoteKind } from '../src/domains/providers/index.ts';
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
import { expectProblem, hashOf } from './support/rest-transactions.ts';

/**
 * Remote mappings as clients see them through the real gateway (MCP SDK client and Developer REST API, personal
 * access tokens), against the three providers' fakes: discovery, reads of the synchronized copy and live reads at the
 * provider, and device-held encryption. Writes: remote-mappings-writes.test.ts; connections and bounds:
 * remote-mappings-connections.test.ts.
 */

const ALPHA = '# Alpha\nThe zephyr launch depends on [[beta]].\n';
const BETA = '---\nstatus: active\nowner: ada\n---\n# Beta\nThe plan for the launch.\n';
// 18 notes after Projects/ in path order, so that a schema scan of 20 reads both project notes and stops before the end.
const BULK = Array.from({ length: 21 }, (_, i) => `Zbulk/n${String(i + 1).padStart(2, '0')}.md`);
const NOTES = 2 + BULK.length;

/** The mappings of one provider: the owner's, each with one write condition off, and a stranger's. */
interface KindMappings {
  main: Mapping;
  switchOff: Mapping;
  pullOnly: Mapping;
  encrypted: Mapping;
  /** The stranger's mapping of the same folder, under a grant of read access only. */
  foreign: Mapping;
}

describe('remote mappings through the gateway: discovery and reads', () => {
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
        const fixture = fixtures.get(kind)!;
        fixture.put('Projects/alpha.md', ALPHA);
        fixture.put('Projects/beta.md', BETA);
        BULK.forEach((path, i) => fixture.put(path, `---\nindex: ${i}\n---\n# Note ${i}\n`));
        const { connection, readOnly } = await connectOwnerAndStranger(suite, kind);
        // Mappings only discovered or refused map the small Projects folder: fewer notes to copy.
        const small = fixture.rootAt('Projects');
        const set: KindMappings = {
          main: await createRemoteMapping(suite, kind, owner, connection.id, 'main', { allowMcpNoteChanges: true }),
          switchOff: await createRemoteMapping(suite, kind, owner, connection.id, 'switch off', { root: small }),
          pullOnly: await createRemoteMapping(suite, kind, owner, connection.id, 'pull-only', { pullOnly: true, allowMcpNoteChanges: true, root: small }),
          encrypted: await createRemoteMapping(suite, kind, owner, connection.id, 'encrypted', { deviceEncrypted: true, allowMcpNoteChanges: true }),
          foreign: await createRemoteMapping(suite, kind, stranger, readOnly.id, 'foreign', { allowMcpNoteChanges: true, root: small }),
        };
        mappings.set(kind, set);
        await syncEvery(gateway, Object.values(set));
      }),
    );
  }, 60_000);

  afterAll(() => suite?.close());

  describe('discovery', () => {
    it("list_vaults shows the caller's hosted and remote mappings, with readOnly and writeAccess for each combination of switches", async () => {
      const listed = await owner.call('list_vaults', {});
      expect(listed.isError).toBe(false);
      const byId = new Map((listed.data.vaults as Array<Record<string, unknown>>).map((vault) => [vault.mappingId, vault]));
      expect(byId.get(owner.owner.mapping.id)).toMatchObject({ provider: 'hosted', readOnly: false, role: 'owner' });
      for (const kind of REMOTE_KINDS) {
        const set = mappings.get(kind)!;
        expect(byId.get(set.main.id)).toMatchObject({ provider: kind, readOnly: false, writeAccess: true, deviceEncrypted: false, role: 'owner' });
        expect(byId.get(set.switchOff.id)).toMatchObject({ provider: kind, readOnly: false, writeAccess: false, deviceEncrypted: false });
        expect(byId.get(set.pullOnly.id)).toMatchObject({ provider: kind, readOnly: true, writeAccess: false, deviceEncrypted: false });
        expect(byId.get(set.encrypted.id)).toMatchObject({ provider: kind, readOnly: false, writeAccess: false, deviceEncrypted: true });
        // Another account's mapping of the very same folder is never discovered.
        expect(byId.has(set.foreign.id)).toBe(false);
      }
      expect(byId.size).toBe(1 + 4 * REMOTE_KINDS.length);

      // The REST API discovers exactly the same.
      const rest = await owner.api.get<{ vaults: unknown[] }>('/mappings');
      expect(rest.status, rest.text).toBe(200);
      expect(rest.body.vaults).toEqual(listed.data.vaults);

      // The stranger sees its own mappings only; a grant without file-write access makes its mapping read-only.
      const theirs = await stranger.call('list_vaults', {});
      const ids = (theirs.data.vaults as Array<{ mappingId: string }>).map((vault) => vault.mappingId).sort();
      expect(ids).toEqual([stranger.owner.mapping.id, ...REMOTE_KINDS.map((kind) => mappings.get(kind)!.foreign.id)].sort());
      for (const kind of REMOTE_KINDS) {
        expect((theirs.data.vaults as Array<Record<string, unknown>>).find((vault) => vault.mappingId === mappings.get(kind)!.foreign.id)).toMatchObject({
          provider: kind,
          readOnly: true,
          writeAccess: false,
        });
      }
    });

    it('refuses a malformed root, a folder the provider does not have, and another account\'s connection, creating nothing', async () => {
      const counts = async () => (await gateway.db.query<{ m: number; v: number }>('SELECT (SELECT count(*)::int FROM mappings) AS m, (SELECT count(*)::int FROM vaults) AS v'))[0];
      const before = await counts();
      const ownConnection = mappings.get('dropbox')!.main.connection!.id;
      const foreignConnection = mappings.get('dropbox')!.foreign.connection!.id;
      const create = (connectionId: string, root: { folder: string; repository?: string }) =>
        gateway.services.remoteMappings.create(owner.owner.accountId, { workspaceId: owner.owner.workspaceId, connectionId, name: 'refused', root });
      await expect(create(ownConnection, { folder: 'Projects/../..' })).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'folder' } });
      await expect(create(ownConnection, { folder: 'Nowhere/at/all' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(create(foreignConnection, { folder: 'Projects' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(create(mappings.get('github')!.main.connection!.id, { folder: '', repository: 'no-slash' })).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'repository' } });
      expect(await counts()).toEqual(before);
    });

    it('a guessed or foreign mappingId answers not_found, on MCP and REST, without reaching the provider', async () => {
      for (const kind of REMOTE_KINDS) {
        const fixture = fixtures.get(kind)!;
        const foreign = mappings.get(kind)!.foreign.id;
        const sent = await requestsDuring(fixture, async () => {
          for (const mappingId of [foreign, randomUUID()]) {
            expect(await owner.call('get_note_content', { mappingId, path: 'Projects/alpha.md' })).toMatchObject({ isError: true, data: { code: 'not_found' } });
            expect(await owner.call('search_notes', { mappingId, query: 'zephyr' })).toMatchObject({ isError: true, data: { code: 'not_found' } });
            expectProblem(await owner.api.get('/notes', { query: { mappingId } }), 404, 'not_found');
          }
          // And the other way round: the stranger cannot name the owner's mapping either.
          const main = mappings.get(kind)!.main.id;
          expect(await stranger.call('get_note_content', { mappingId: main, path: 'Projects/alpha.md' })).toMatchObject({ isError: true, data: { code: 'not_found' } });
        });
        expect(sent).toEqual([]);
      }
    });
  });

  describe.each(REMOTE_KINDS)('reads of a %s mapping', (kind) => {
    const fixture = () => fixtures.get(kind)!;
    const mappingId = () => mappings.get(kind)!.main.id;

    it('search_notes and query_graph_relations see the synchronized notes', async () => {
      const found = await owner.call('search_notes', { mappingId: mappingId(), query: 'zephyr' });
      expect(found.isError, JSON.stringify(found.data)).toBe(false);
      expect((found.data.results as Array<{ path: string }>).map((hit) => hit.path)).toEqual(['Projects/alpha.md']);

      const relations = await owner.call('query_graph_relations', { mappingId: mappingId(), path: 'Projects/beta.md' });
      expect(relations.isError, JSON.stringify(relations.data)).toBe(false);
      expect(relations.data.incoming).toEqual([expect.objectContaining({ sourcePath: 'Projects/alpha.md' })]);
    });

    it('get_note_content answers the provider revision as revision and our contentHash, and reads live at the provider', async () => {
      const read = await owner.call('get_note_content', { mappingId: mappingId(), path: 'Projects/beta.md' });
      expect(read.isError, JSON.stringify(read.data)).toBe(false);
      expect(read.data).toMatchObject({ path: 'Projects/beta.md', content: BETA, contentHash: hashOf(BETA), revision: fixture().revision('Projects/beta.md') });
      expect(read.data.revision).not.toBe(read.data.contentHash);

      // The REST inventory lists what the last sync saw, with provider revisions.
      const inventory = await owner.api.get<{ notes: Array<{ path: string; revision: string }>; truncated: boolean }>('/notes', { query: { mappingId: mappingId() } });
      expect(inventory.status, inventory.text).toBe(200);
      expect(inventory.body.notes).toHaveLength(NOTES);
      const synced = fixture().revision('Projects/beta.md');
      expect(inventory.body.notes.find((note) => note.path === 'Projects/beta.md')).toMatchObject({ revision: synced });

      // Another device edits the note after the sync: a read is live, so it sees the edit at once.
      const edited = `${BETA}Edited on a phone.\n`;
      fixture().put('Projects/beta.md', edited);
      const live = await owner.call('get_note_content', { mappingId: mappingId(), path: 'Projects/beta.md' });
      expect(live.data).toMatchObject({ content: edited, contentHash: hashOf(edited), revision: fixture().revision('Projects/beta.md') });
      expect(live.data.revision).not.toBe(synced);
      const rest = await owner.api.get<{ content: string; contentHash: string; revision: string }>('/notes/Projects/beta.md', { query: { mappingId: mappingId() } });
      expect(rest.status, rest.text).toBe(200);
      expect(rest.body).toMatchObject({ content: edited, contentHash: hashOf(edited), revision: fixture().revision('Projects/beta.md') });
      // The inventory still says what the last sync saw, until the next sync.
      const before = await owner.api.get<{ notes: Array<{ path: string; revision: string }> }>('/notes', { query: { mappingId: mappingId() } });
      expect(before.body.notes.find((note) => note.path === 'Projects/beta.md')?.revision).toBe(synced);
      await syncMapping(gateway, mappingId());
      const after = await owner.api.get<{ notes: Array<{ path: string; revision: string }> }>('/notes', { query: { mappingId: mappingId() } });
      expect(after.body.notes.find((note) => note.path === 'Projects/beta.md')?.revision).toBe(fixture().revision('Projects/beta.md'));
    });

    it('get_vault_schema reads at most 20 notes live at the provider and says it stopped early', async () => {
      let schema: Awaited<ReturnType<RemoteCaller['call']>> | undefined;
      const sent = await requestsDuring(fixture(), async () => {
        schema = await owner.call('get_vault_schema', { mappingId: mappingId() });
      });
      expect(schema!.isError, JSON.stringify(schema!.data)).toBe(false);
      // Every note read but alpha has frontmatter.
      expect(schema!.data).toMatchObject({ scanned: 20, total: NOTES, truncated: true, notesWithFrontmatter: 19 });
      const keys = new Map((schema!.data.keys as Array<{ key: string; count: number }>).map((key) => [key.key, key.count]));
      // Path order: the two project notes, then the first 18 of the bulk folder.
      expect(Object.fromEntries(keys)).toEqual({ status: 1, owner: 1, index: 18 });
      expect(sent.filter((request) => fixture().isDownload(request))).toHaveLength(20);
    });
  });

  // One budget for the whole scan (PROVIDER_BUDGETS.schema), not one per read: on Drive, where a read walks the path
  // folder by folder, 20 reads each on a budget of their own could send several times as many requests.
  it('get_vault_schema keeps to its own provider request budget as a whole (Drive)', async () => {
    const drive = fixtures.get('drive')!;
    const sent = await requestsDuring(drive, async () => {
      const schema = await owner.call('get_vault_schema', { mappingId: mappings.get('drive')!.main.id });
      expect(schema.isError, JSON.stringify(schema.data)).toBe(false);
    });
    expect(sent.length).toBeLessThanOrEqual(PROVIDER_BUDGETS.schema.maxRequests);
  });

  describe.each(REMOTE_KINDS)('device-held encryption on a %s mapping', (kind) => {
    it('the inventory works; bodies, search, graph, schema and scope-bound knowledge answer device_encrypted without reaching the provider', async () => {
      const mappingId = mappings.get(kind)!.encrypted.id;
      const inventory = await owner.api.get<{ notes: Array<{ path: string; revision: string }> }>('/notes', { query: { mappingId } });
      expect(inventory.status, inventory.text).toBe(200);
      expect(inventory.body.notes).toHaveLength(NOTES);
      expect(inventory.body.notes.find((note) => note.path === 'Projects/alpha.md')).toMatchObject({ revision: fixtures.get(kind)!.revision('Projects/alpha.md') });

      const scope = await gateway.services.scopes.create(owner.owner.actor, mappingId, {
        name: 'everything',
        pathPrefixes: [],
        tags: [],
        audience: { minimumRole: 'viewer', agents: true },
      });
      const sent = await requestsDuring(fixtures.get(kind)!, async () => {
        for (const [tool, args] of [
          ['get_note_content', { path: 'Projects/alpha.md' }],
          ['search_notes', { query: 'zephyr' }],
          ['query_graph_relations', { path: 'Projects/beta.md' }],
          ['get_vault_schema', {}],
          ['get_open_questions', { contextScopeId: scope.id }],
        ] as const) {
          const answer = await owner.call(tool, { mappingId, ...args });
          expect(answer, tool).toMatchObject({ isError: true, data: { code: 'device_encrypted' } });
        }
        expectProblem(await owner.api.get('/notes/Projects/alpha.md', { query: { mappingId } }), 409, 'device_encrypted');
      });
      expect(sent).toEqual([]);
      // No copy of a body was ever made to index: the mapping's vault holds no note.
      const rows = await gateway.db.query<{ count: number }>('SELECT count(*)::int AS count FROM notes WHERE vault_id = $1', [mappings.get(kind)!.encrypted.vaultId]);
      expect(rows[0]!.count).toBe(0);
    });
  });
});
