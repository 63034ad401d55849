import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { notePathUrl, restClient, type ApiResponse, type RestClient } from './support/rest-client.ts';
import {
  apply,
  expectRejected,
  hashOf,
  newKey,
  preview,
  seedNotes,
  tamperedToken,
  withoutRequestId,
  type Action,
} from './support/rest-transactions.ts';

// Every refusal of POST /api/dev/transactions: a clear problem document, and notes, trash and events of the whole
// database byte-identical afterwards (expectRejected compares snapshots around each request).
describe('POST /api/dev/transactions refuses', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let api: RestClient;
  let mappingId: string;
  let hashes: Record<string, string>;
  let trashId: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = await createOwner(gateway.services, 'refusals');
    api = restClient(gateway, owner.token);
    mappingId = owner.mapping.id;
    hashes = await seedNotes(api, mappingId, {
      'notes/a.md': 'alpha\n',
      'notes/b.md': 'bravo\n',
      'notes/c.md': 'charlie\n',
      'notes/gone.md': 'soon in the trash\n',
    });
    const deleted = await apply(api, mappingId, [{ type: 'delete-note', path: 'notes/gone.md', expectedHash: hashes['notes/gone.md']! }]);
    trashId = deleted.body.actions[0]!.trashId!;
  });
  afterAll(() => gateway.stop());

  const rejected = (send: () => Promise<ApiResponse<unknown>>, status: number, code: string) => expectRejected(gateway, send, status, code);
  const applying = (actions: readonly Action[]) => () => apply(api, mappingId, actions);
  const raw = (json: unknown, headers: Record<string, string> = {}) => () =>
    api.post('/transactions', { json, headers: { 'idempotency-key': newKey(), ...headers } });

  describe('stale and missing state, atomically', () => {
    it('applies nothing when one action of many is stale, and lists every failing action in `problems`', async () => {
      const body = await rejected(
        applying([
          { type: 'write-note', path: 'notes/a.md', content: 'alpha 2\n', expectedHash: hashes['notes/a.md']! },
          { type: 'write-note', path: 'notes/b.md', content: 'bravo 2\n', expectedHash: hashOf('an older bravo\n') },
          { type: 'write-note', path: 'notes/new.md', content: 'new\n' },
          { type: 'delete-note', path: 'notes/c.md', expectedHash: hashOf('an older charlie\n') },
        ]),
        412,
        'stale_revision',
      );
      expect(body.detail).toContain('notes/b.md');
      expect(body.problems).toEqual([
        { index: 1, path: 'notes/b.md', code: 'stale_revision', detail: expect.any(String) },
        { index: 3, path: 'notes/c.md', code: 'stale_revision', detail: expect.any(String) },
      ]);
      expect((await api.get(notePathUrl('notes/a.md'), { query: { mappingId } })).body).toMatchObject({ content: 'alpha\n' });
      expect((await api.get(notePathUrl('notes/new.md'), { query: { mappingId } })).status).toBe(404);
    });

    it('answers with the first failing action and lists the others, whatever their codes', async () => {
      const body = await rejected(
        applying([
          { type: 'write-note', path: 'notes/a.md', content: 'no hash\n' },
          { type: 'delete-note', path: 'notes/nothing.md' },
        ]),
        428,
        'precondition_required',
      );
      expect(body.problems).toMatchObject([
        { index: 0, code: 'precondition_required' },
        { index: 1, code: 'not_found' },
      ]);
    });

    it('428 when an existing note is written or deleted without expectedHash', async () => {
      await rejected(applying([{ type: 'write-note', path: 'notes/a.md', content: 'x\n' }]), 428, 'precondition_required');
      await rejected(applying([{ type: 'delete-note', path: 'notes/b.md' }]), 428, 'precondition_required');
    });

    it('412 when expectedHash names a note that does not exist', async () => {
      await rejected(applying([{ type: 'write-note', path: 'notes/new.md', content: 'x', expectedHash: hashes['notes/a.md']! }]), 412, 'stale_revision');
    });

    it('404 when deleting a note that does not exist', async () => {
      await rejected(applying([{ type: 'delete-note', path: 'notes/nothing.md', expectedHash: hashes['notes/a.md']! }]), 404, 'not_found');
      await rejected(applying([{ type: 'delete-note', path: 'notes/nothing.md' }]), 404, 'not_found');
    });

    it('409 when restoring onto a path that holds a note', async () => {
      const other = await seedNotes(api, mappingId, { 'notes/gone.md': 'a new note took the place\n' });
      await rejected(applying([{ type: 'restore-note', trashId, path: 'notes/gone.md' }]), 409, 'conflict');
      const cleared = await apply(api, mappingId, [{ type: 'delete-note', path: 'notes/gone.md', expectedHash: other['notes/gone.md']! }]);
      expect(cleared.status).toBe(200);
    });

    it('400 when restoring to a path other than the original one', async () => {
      const body = await rejected(applying([{ type: 'restore-note', trashId, path: 'notes/elsewhere.md' }]), 400, 'invalid_request');
      expect(body.detail).toContain('notes/gone.md');
      await rejected(applying([{ type: 'restore-note', trashId, path: 'notes/GONE.md' }]), 400, 'invalid_request');
    });

    it('404 when restoring an unknown trash id, or one of another vault', async () => {
      await rejected(applying([{ type: 'restore-note', trashId: randomUUID(), path: 'notes/gone.md' }]), 404, 'not_found');
      const stranger = await createOwner(gateway.services, 'stranger-trash');
      const strangerApi = restClient(gateway, stranger.token);
      const theirs = await seedNotes(strangerApi, stranger.mapping.id, { 'notes/gone.md': 'theirs\n' });
      const theirDelete = await apply(strangerApi, stranger.mapping.id, [
        { type: 'delete-note', path: 'notes/gone.md', expectedHash: theirs['notes/gone.md']! },
      ]);
      await rejected(applying([{ type: 'restore-note', trashId: theirDelete.body.actions[0]!.trashId!, path: 'notes/gone.md' }]), 404, 'not_found');
    });

    it('404 when restoring an entry that was restored already', async () => {
      const local = await createOwner(gateway.services, 'twice');
      const localApi = restClient(gateway, local.token);
      const seeded = await seedNotes(localApi, local.mapping.id, { 'x/once.md': 'once\n' });
      const del = await apply(localApi, local.mapping.id, [{ type: 'delete-note', path: 'x/once.md', expectedHash: seeded['x/once.md']! }]);
      const restore: Action = { type: 'restore-note', trashId: del.body.actions[0]!.trashId!, path: 'x/once.md' };
      expect((await apply(localApi, local.mapping.id, [restore])).status).toBe(200);
      const delAgain = await apply(localApi, local.mapping.id, [{ type: 'delete-note', path: 'x/once.md', expectedHash: seeded['x/once.md']! }]);
      expect(delAgain.status).toBe(200);
      await expectRejected(gateway, () => apply(localApi, local.mapping.id, [restore]), 404, 'not_found');
    });
  });

  describe('limits and duplicates', () => {
    const writes = (n: number): Action[] => Array.from({ length: n }, (_, i) => ({ type: 'write-note', path: `many/n${i}.md`, content: `${i}\n` }));

    it('400 for 101 actions, applied or previewed, and for none', async () => {
      const body = await rejected(applying(writes(101)), 400, 'invalid_request');
      expect(JSON.stringify(body.issues)).toContain('actions');
      await rejected(() => preview(api, mappingId, writes(101)), 400, 'invalid_request');
      await rejected(applying([]), 400, 'invalid_request');
    });

    it('400 when two actions touch one path, also up to case and Unicode normalization', async () => {
      await rejected(
        applying([
          { type: 'write-note', path: 'dup/x.md', content: '1' },
          { type: 'write-note', path: 'dup/x.md', content: '2' },
        ]),
        400,
        'invalid_request',
      );
      await rejected(
        applying([
          { type: 'write-note', path: 'dup/Case.md', content: '1' },
          { type: 'delete-note', path: 'dup/case.md' },
        ]),
        400,
        'invalid_request',
      );
      await rejected(
        applying([
          { type: 'write-note', path: 'dup/caf\u00e9.md', content: '1' },
          { type: 'write-note', path: 'dup/cafe\u0301.md', content: '2' },
        ]),
        400,
        'invalid_request',
      );
      await rejected(
        () =>
          preview(api, mappingId, [
            { type: 'write-note', path: 'notes/a.md', content: '1' },
            { type: 'restore-note', trashId, path: 'notes/A.md' },
          ]),
        400,
        'invalid_request',
      );
    });

    it('400 invalid_path for a path that is not a vault-relative Markdown path', async () => {
      for (const path of ['../escape.md', '/abs/x.md', 'notes/x.txt', 'notes//x.md', 'notes\\x.md']) {
        const body = await rejected(applying([{ type: 'write-note', path, content: 'x' }]), 400, 'invalid_path');
        expect(body).toHaveProperty('reason');
      }
    });

    it('413 for a note over 4 MiB and for a body over 8 MiB, without reading it into a change', async () => {
      const big = 'x'.repeat(4 * 1024 * 1024 + 1);
      await rejected(applying([{ type: 'write-note', path: 'big/one.md', content: big }]), 413, 'payload_too_large');
      // Three notes of 3 MiB: each within the note limit, together over the 8 MiB body limit.
      const huge = 'y'.repeat(3 * 1024 * 1024);
      const body = await rejected(
        applying([1, 2, 3].map((i) => ({ type: 'write-note' as const, path: `big/${i}.md`, content: huge }))),
        413,
        'payload_too_large',
      );
      expect(body.limit).toBe(8 * 1024 * 1024);
    });
  });

  describe('malformed requests', () => {
    it.each([
      ['malformed JSON', () => api.post('/transactions', { raw: '{"mappingId": ', headers: { 'content-type': 'application/json', 'idempotency-key': newKey() } })],
      ['a body that is not JSON', () => api.post('/transactions', { raw: 'mappingId=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } })],
      ['a JSON array body', () => api.post('/transactions', { json: [] })],
      ['no body', () => api.post('/transactions', { headers: { 'content-type': 'application/json' } })],
    ])('400 for %s', async (_label, send) => {
      await rejected(send, 400, 'invalid_request');
    });

    it('400 for an unknown action type, naming it in the issues', async () => {
      const body = await rejected(raw({ mappingId, dryRun: false, actions: [{ type: 'rename-note', path: 'a.md', to: 'b.md' }] }), 400, 'invalid_request');
      expect(body.issues).toEqual([expect.objectContaining({ path: 'actions.0.type' })]);
    });

    it('400 for unknown fields, at the top and inside an action', async () => {
      const top = await rejected(raw({ mappingId, dryRun: false, actions: [], force: true }), 400, 'invalid_request');
      expect(top.fields).toEqual(['force']);
      const inner = await rejected(
        raw({ mappingId, dryRun: false, actions: [{ type: 'write-note', path: 'notes/a.md', content: 'x', overwrite: true }] }),
        400,
        'invalid_request',
      );
      expect(JSON.stringify(inner.issues)).toContain('overwrite');
    });

    it.each([
      ['actions that are not an array', { actions: { type: 'write-note' } }],
      ['an action without content', { actions: [{ type: 'write-note', path: 'notes/z.md' }] }],
      ['a malformed expectedHash', { actions: [{ type: 'write-note', path: 'notes/a.md', content: 'x', expectedHash: 'abc' }] }],
      ['a trash id that is not a UUID', { actions: [{ type: 'restore-note', trashId: 'nope', path: 'notes/gone.md' }] }],
      ['dryRun as a string', { dryRun: 'false', actions: [{ type: 'write-note', path: 'notes/z.md', content: 'x' }] }],
      ['a mappingId that is not a UUID', { mappingId: 'vault-1', actions: [{ type: 'write-note', path: 'notes/z.md', content: 'x' }] }],
    ])('400 for %s', async (_label, fields) => {
      await rejected(raw({ mappingId, dryRun: false, ...fields }), 400, 'invalid_request');
    });

    it('400 when the mapping header and the body name different mappings', async () => {
      await rejected(
        raw({ mappingId, dryRun: false, actions: [{ type: 'write-note', path: 'notes/z.md', content: 'x' }] }, { 'x-service-mapping': randomUUID() }),
        400,
        'invalid_request',
      );
    });
  });

  describe('who may apply', () => {
    const change: Action[] = [{ type: 'write-note', path: 'notes/intruder.md', content: 'x\n' }];

    it('401 without a credential and with a wrong one', async () => {
      const none = () => api.post('/transactions', { token: null, json: { mappingId, dryRun: false, actions: change }, headers: { 'idempotency-key': newKey() } });
      await rejected(none, 401, 'unauthenticated');
      expect((await none()).headers.get('www-authenticate')).toBe('Bearer realm="kgate"');
      const wrong = () =>
        api.post('/transactions', { token: tamperedToken(owner.token), json: { mappingId, dryRun: false, actions: change }, headers: { 'idempotency-key': newKey() } });
      await rejected(wrong, 401, 'unauthenticated');
      expect((await wrong()).headers.get('www-authenticate')).toContain('error="invalid_token"');
    });

    it("404 for another account's mapping, exactly as for a mapping that does not exist", async () => {
      const stranger = await createOwner(gateway.services, 'stranger');
      const strangerApi = restClient(gateway, stranger.token);
      const theirs = await rejected(() => apply(strangerApi, mappingId, change), 404, 'not_found');
      const unknown = await rejected(() => apply(strangerApi, randomUUID(), change), 404, 'not_found');
      expect(withoutRequestId(theirs)).toEqual(withoutRequestId(unknown));
      const theirsPreview = await rejected(() => preview(strangerApi, mappingId, change), 404, 'not_found');
      expect(withoutRequestId(theirsPreview)).toEqual(withoutRequestId(unknown));
    });

    it('403 plan_required on the free plan, 403 account_inactive when suspended', async () => {
      const free = await createOwner(gateway.services, 'free');
      await gateway.services.accounts.setPlan(free.accountId, 'free');
      const freeApi = restClient(gateway, free.token);
      await rejected(() => apply(freeApi, free.mapping.id, change), 403, 'plan_required');
      await rejected(() => preview(freeApi, free.mapping.id, change), 403, 'plan_required');
      const suspended = await createOwner(gateway.services, 'suspended');
      await gateway.services.accounts.setStatus(suspended.accountId, 'suspended');
      await rejected(() => apply(restClient(gateway, suspended.token), suspended.mapping.id, change), 403, 'account_inactive');
    });

    it('403 for a viewer and for a read-only mapping', async () => {
      const viewer = await createOwner(gateway.services, 'viewer');
      await gateway.services.workspaces.setMemberRole(owner.workspaceId, viewer.accountId, 'viewer');
      await rejected(() => apply(restClient(gateway, viewer.token), mappingId, change), 403, 'forbidden');
      const locked = await createOwner(gateway.services, 'read-only');
      await gateway.services.vaults.updateMappingFlags(locked.mapping.id, { readOnly: true });
      await rejected(() => apply(restClient(gateway, locked.token), locked.mapping.id, change), 403, 'mapping_read_only');
    });

    it('400 idempotency_key_required when applying without an Idempotency-Key, and for a malformed key', async () => {
      await rejected(() => api.post('/transactions', { json: { mappingId, dryRun: false, actions: change } }), 400, 'idempotency_key_required');
      for (const key of ['has space', 'k'.repeat(256), 'caf\u00e9']) {
        await rejected(
          () => api.post('/transactions', { json: { mappingId, dryRun: false, actions: change }, headers: { 'idempotency-key': key } }),
          400,
          'invalid_request',
        );
      }
    });
  });
});
