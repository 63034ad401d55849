import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient, type RestClient } from './support/rest-client.ts';
import { definition, expectScopesUnchanged, scopeRequests, scopeSnapshot, type ScopeChangeBody } from './support/rest-scopes.ts';
import { newKey } from './support/rest-transactions.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// Managing context scopes over the Developer REST API: GET /scopes, POST /scopes, POST /scopes/update and
// DELETE /scopes. Changes preview by default and apply with dryRun false and an Idempotency-Key.
describe('context scopes over REST', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let scopes: ReturnType<typeof scopeRequests>;
  let mappingId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'scopes');
    await gateway.services.accounts.setPlan(owner.accountId, 'team');
    api = restClient(gateway, owner.token);
    mappingId = owner.mapping.id;
    scopes = scopeRequests(api, mappingId);
  });
  afterAll(() => gateway.stop());

  describe('the owner', () => {
    let scopeId: string;

    it('lists no scopes at first, as their manager', async () => {
      const listed = await scopes.list();
      expect(listed.status, listed.text).toBe(200);
      expect(listed.body).toEqual({ view: 'managed', scopes: [], truncated: false });
    });

    it('previews a creation: the scope as it would be stored, normalized, with no id, and nothing stored', async () => {
      const before = await scopeSnapshot(gateway);
      const body = { name: '  Tidewater  ', pathPrefixes: ['Projects/Tidewater', 'Clients/'], tags: ['#Client/Acme', 'pilot'] };
      const previewed = await scopes.create(body);
      expect(previewed.status, previewed.text).toBe(200);
      expect(previewed.headers.get('idempotent-replayed')).toBeNull();
      expect(previewed.body).toEqual({
        dryRun: true,
        applied: false,
        scope: {
          id: null,
          mappingId,
          name: 'Tidewater',
          pathPrefixes: ['Clients/', 'Projects/Tidewater/'],
          tags: ['client/acme', 'pilot'],
          audience: { minimumRole: 'viewer', agents: true },
          createdAt: null,
          updatedAt: null,
        },
      });
      expect(await scopeSnapshot(gateway)).toBe(before);
      // Applying needs the key.
      await expectScopesUnchanged(gateway, () => api.post('/scopes', { json: { mappingId, ...body, dryRun: false } }), 400, 'idempotency_key_required');
    });

    it('creates it with dryRun false and an Idempotency-Key; a retry replays the same scope and creates no other', async () => {
      const key = newKey();
      const body = { mappingId, name: 'Tidewater', pathPrefixes: ['Projects/Tidewater/'], tags: ['client/acme'], audience: { minimumRole: 'editor', agents: false }, dryRun: false };
      const created = await api.post<ScopeChangeBody>('/scopes', { json: body, headers: { 'Idempotency-Key': key } });
      expect(created.status, created.text).toBe(200);
      expect(created.body).toMatchObject({ dryRun: false, applied: true, scope: { mappingId, name: 'Tidewater', audience: { minimumRole: 'editor', agents: false } } });
      scopeId = created.body.scope.id;
      expect(scopeId).toMatch(/^[0-9a-f-]{36}$/);
      expect(created.body.scope.createdAt).toMatch(ISO);
      expect(created.body.scope.updatedAt).toBe(created.body.scope.createdAt);

      const replayed = await api.post<ScopeChangeBody>('/scopes', { json: body, headers: { 'Idempotency-Key': key } });
      expect(replayed.status).toBe(200);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(replayed.body).toEqual(created.body);
      const rows = await gateway.db.query('SELECT id FROM context_scopes WHERE mapping_id = $1', [mappingId]);
      expect(rows).toEqual([{ id: scopeId }]);
      // The same key for another request is refused.
      await expectScopesUnchanged(
        gateway,
        () => api.post('/scopes', { json: { ...body, name: 'Other' }, headers: { 'Idempotency-Key': key } }),
        422,
        'idempotency_key_reused',
      );
    });

    it('lists it', async () => {
      const listed = await scopes.list();
      expect(listed.body.view).toBe('managed');
      expect(listed.body.scopes).toEqual([
        {
          id: scopeId,
          mappingId,
          name: 'Tidewater',
          pathPrefixes: ['Projects/Tidewater/'],
          tags: ['client/acme'],
          audience: { minimumRole: 'editor', agents: false },
          createdAt: expect.stringMatching(ISO),
          updatedAt: expect.stringMatching(ISO),
        },
      ]);
    });

    it('previews and applies an update that replaces the whole definition', async () => {
      const next = definition('tidewater pilot', { pathPrefixes: ['Projects/Tidewater/Pilot'], tags: [], audience: { minimumRole: 'viewer', agents: true } });
      const before = await scopeSnapshot(gateway);
      const previewed = await scopes.update(scopeId, next);
      expect(previewed.status, previewed.text).toBe(200);
      expect(previewed.body).toMatchObject({ dryRun: true, applied: false, scope: { id: scopeId, name: 'tidewater pilot', pathPrefixes: ['Projects/Tidewater/Pilot/'], tags: [] } });
      expect(await scopeSnapshot(gateway)).toBe(before);

      const applied = await scopes.update(scopeId, next, true);
      expect(applied.status, applied.text).toBe(200);
      expect(applied.body).toMatchObject({ dryRun: false, applied: true, scope: { id: scopeId, name: 'tidewater pilot', audience: { minimumRole: 'viewer', agents: true } } });
      expect(Date.parse(applied.body.scope.updatedAt)).toBeGreaterThanOrEqual(Date.parse(applied.body.scope.createdAt));
      expect((await scopes.list()).body.scopes).toEqual([applied.body.scope]);
    });

    it('previews and applies a deletion (the DELETE takes dryRun=false in the query)', async () => {
      const before = await scopeSnapshot(gateway);
      const previewed = await scopes.remove(scopeId);
      expect(previewed.status, previewed.text).toBe(200);
      expect(previewed.body).toMatchObject({ dryRun: true, applied: false, scope: { id: scopeId } });
      expect(await scopeSnapshot(gateway)).toBe(before);
      await expectScopesUnchanged(gateway, () => api.delete('/scopes', { query: { mappingId, scopeId, dryRun: false } }), 400, 'idempotency_key_required');

      const deleted = await scopes.remove(scopeId, true);
      expect(deleted.status, deleted.text).toBe(200);
      expect(deleted.body).toMatchObject({ dryRun: false, applied: true, scope: { id: scopeId, name: 'tidewater pilot' } });
      expect((await scopes.list()).body.scopes).toEqual([]);
      // Gone: deleting or changing it again is not_found.
      await expectScopesUnchanged(gateway, () => scopes.remove(scopeId, true), 404, 'not_found');
      await expectScopesUnchanged(gateway, () => scopes.update(scopeId, definition('Again'), true), 404, 'not_found');
    });
  });

  describe('members who do not manage the workspace, and other accounts', () => {
    let editor: Owner;
    let viewer: Owner;
    let admin: Owner;
    let stranger: Owner;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      const make = (label: string) => createOwner(gateway.services, `scopes-${label}`);
      [editor, viewer, admin, stranger] = await Promise.all([make('editor'), make('viewer'), make('admin'), make('stranger')]);
      await gateway.services.workspaces.setMemberRole(owner.workspaceId, editor.accountId, 'editor');
      await gateway.services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
      await gateway.services.workspaces.setMemberRole(owner.workspaceId, admin.accountId, 'admin');
      const audiences = {
        'For everyone': { minimumRole: 'viewer', agents: true },
        'Editors up': { minimumRole: 'editor', agents: true },
        'People only': { minimumRole: 'viewer', agents: false },
        Managers: { minimumRole: 'admin', agents: true },
      } as const;
      for (const [name, audience] of Object.entries(audiences)) {
        const created = await scopes.create({ name, audience }, true);
        expect(created.status, created.text).toBe(200);
        ids[name] = created.body.scope.id;
      }
    });

    it('an admin manages them: the whole list, and changes', async () => {
      const adminScopes = scopeRequests(restClient(gateway, admin.token), mappingId);
      const listed = await adminScopes.list();
      expect(listed.body.view).toBe('managed');
      expect(listed.body.scopes.map((s) => s.name)).toEqual(['Editors up', 'For everyone', 'Managers', 'People only']);
      const previewed = await adminScopes.create({ name: 'By the admin' });
      expect(previewed.status, previewed.text).toBe(200);
    });

    it('an editor and a viewer list the scopes they may use with their token, and cannot manage any (forbidden, nothing changes)', async () => {
      for (const [member, usable] of [
        [editor, ['Editors up', 'For everyone']],
        [viewer, ['For everyone']],
      ] as const) {
        const memberApi = restClient(gateway, member.token);
        const memberScopes = scopeRequests(memberApi, mappingId);
        const listed = await memberScopes.list();
        expect(listed.status, listed.text).toBe(200);
        expect({ view: listed.body.view, names: listed.body.scopes.map((s) => s.name) }).toEqual({ view: 'usable', names: usable });
        for (const apply of [false, true]) {
          await expectScopesUnchanged(gateway, () => memberScopes.create({ name: 'Mine' }, apply), 403, 'forbidden');
          await expectScopesUnchanged(gateway, () => memberScopes.update(ids['For everyone']!, definition('Renamed'), apply), 403, 'forbidden');
          await expectScopesUnchanged(gateway, () => memberScopes.remove(ids['For everyone']!, apply), 403, 'forbidden');
        }
      }
    });

    it("another account gets not_found for the mapping and for its scopes, as for a guessed id; nothing changes", async () => {
      const strangerApi = restClient(gateway, stranger.token);
      const theirs = scopeRequests(strangerApi, mappingId);
      await expectScopesUnchanged(gateway, () => theirs.list(), 404, 'not_found');
      for (const apply of [false, true]) {
        const answers = [
          await expectScopesUnchanged(gateway, () => theirs.create({ name: 'Intruder' }, apply), 404, 'not_found'),
          await expectScopesUnchanged(gateway, () => theirs.update(ids['For everyone']!, definition('Intruder'), apply), 404, 'not_found'),
          await expectScopesUnchanged(gateway, () => theirs.remove(ids['For everyone']!, apply), 404, 'not_found'),
        ];
        expect(new Set(answers.map((a) => a.detail)).size).toBe(1);
      }
      // Through their own mapping, the owner's scope ids are unknown, like guessed and malformed ones.
      const own = scopeRequests(strangerApi, stranger.mapping.id);
      const unknown = [];
      for (const scopeId of [ids['For everyone']!, randomUUID(), 'not-a-uuid']) {
        unknown.push(await expectScopesUnchanged(gateway, () => own.update(scopeId, definition('Intruder'), true), 404, 'not_found'));
        unknown.push(await expectScopesUnchanged(gateway, () => own.remove(scopeId, true), 404, 'not_found'));
      }
      expect(new Set(unknown.map((a) => a.detail)).size).toBe(1);
      expect((await own.list()).body).toEqual({ view: 'managed', scopes: [], truncated: false });
    });
  });
});
