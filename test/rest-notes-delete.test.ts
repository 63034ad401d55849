import { describe, expect, it } from 'vitest';
import { notePathUrl, snapshotOf } from './support/rest-client.ts';
import {
  STRANGER_NOTE,
  eventsOf,
  expectProblem,
  expectSuccess,
  expectUnchanged,
  itRejectsUnauthorizedCallers,
  newCaller,
  newKey,
  rawRequest,
  seedNote,
  useNotesSuite,
  withoutRequestId,
  type Caller,
} from './support/rest-notes.ts';

// DELETE /api/dev/notes/:category/:filename, and the trash it writes. The trash listing's own paging and
// rejections are in rest-notes-read.test.ts.
const suite = useNotesSuite();

const MiB = 1024 * 1024;
const STALE = `sha256:${'0'.repeat(64)}`;

interface Result {
  dryRun: boolean;
  applied: boolean;
  actions: { status: string; beforeRevision: string | null; afterRevision: string | null; trashId?: string; diff?: string; problem?: { code: string } }[];
}

const remove = (caller: Caller, path: string, query: Record<string, string | boolean> = {}, headers: Record<string, string> = {}) =>
  caller.api.delete<Result>(notePathUrl(path), { query: { mappingId: caller.mappingId, ...query }, headers });
/** An applied delete with a fresh key and, when given, the hash as a quoted If-Match (the headers may override both). */
const applyRemove = (caller: Caller, path: string, hash: string | undefined, headers: Record<string, string> = {}) =>
  remove(caller, path, { dryRun: false }, { 'idempotency-key': newKey(), ...(hash ? { 'if-match': `"${hash}"` } : {}), ...headers });

const readBack = (caller: Caller, path: string) => caller.api.get(notePathUrl(path), { query: { mappingId: caller.mappingId } });
const trashOf = async (caller: Caller) =>
  (await caller.api.get<{ entries: Record<string, unknown>[] }>('/notes/trash', { query: { mappingId: caller.mappingId } })).body.entries;

describe('DELETE /api/dev/notes/:category/:filename', () => {
  describe('previews', () => {
    it('previews by default: the deletion with its diff and beforeRevision, changing nothing', async () => {
      const caller = await newCaller(suite.gateway, 'preview-delete');
      const hash = await seedNote(caller, 'old/gone.md', '# Gone\nsoon\n');
      const before = await snapshotOf(suite.gateway);
      const response = await remove(caller, 'old/gone.md');
      expectSuccess(response);
      expect(response.body).toMatchObject({ dryRun: true, applied: false, actions: [{ status: 'delete', beforeRevision: hash, afterRevision: null }] });
      expect(response.body.actions[0]!.diff).toBe('--- a/old/gone.md\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-# Gone\n-soon\n');
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });

    it('previews a missing note as a conflict that explains the failure, without failing', async () => {
      const caller = await newCaller(suite.gateway, 'preview-missing');
      const response = await remove(caller, 'old/none.md', { dryRun: true });
      expectSuccess(response);
      expect(response.body.actions[0]).toMatchObject({ status: 'conflict', problem: { code: 'not_found' } });
    });
  });

  describe('applies', () => {
    it('writes the trash entry, removes the note and records one note.deleted event', async () => {
      const caller = await newCaller(suite.gateway, 'delete');
      const hash = await seedNote(caller, 'old/gone.md', '# Gone\nsecret words\n');
      await seedNote(caller, 'old/kept.md', 'kept');
      const key = newKey();
      const response = await applyRemove(caller, 'old/gone.md', hash, { 'idempotency-key': key });
      expectSuccess(response);
      expect(response.body).toMatchObject({ dryRun: false, applied: true, actions: [{ status: 'delete', beforeRevision: hash, afterRevision: null }] });
      const trashId = response.body.actions[0]!.trashId;
      expectProblem(await readBack(caller, 'old/gone.md'), 404, 'not_found');
      expect((await caller.api.get('/notes', { query: { mappingId: caller.mappingId } })).body).toMatchObject({ notes: [{ path: 'old/kept.md' }] });
      const trash = await caller.api.get('/notes/trash', { query: { mappingId: caller.mappingId } });
      expect(trash.text).not.toContain('secret words');
      expect(trash.body).toEqual({
        entries: [expect.objectContaining({ trashId, originalPath: 'old/gone.md', contentHash: hash, deletedBy: caller.owner.accountId })],
        nextCursor: null,
        truncated: false,
      });
      const events = await eventsOf(caller);
      expect(events).toHaveLength(3);
      expect(events[2]).toMatchObject({ kind: 'note.deleted', path: 'old/gone.md', beforeRevision: hash, afterRevision: null, trashId, idempotencyKey: key });
    });

    it('records the deleted note under its own path when the request names it in another case', async () => {
      const caller = await newCaller(suite.gateway, 'delete-case');
      const hash = await seedNote(caller, 'old/gone.md', 'x');
      expectSuccess(await applyRemove(caller, 'OLD/Gone.md', hash));
      expect(await trashOf(caller)).toMatchObject([{ originalPath: 'old/gone.md' }]);
      expect((await eventsOf(caller)).map((e) => [e.kind, e.path])).toEqual([
        ['note.created', 'old/gone.md'],
        ['note.deleted', 'old/gone.md'],
      ]);
    });

    it('accepts the bare hash as If-Match and the mapping id from X-Service-Mapping', async () => {
      const caller = await newCaller(suite.gateway, 'delete-header');
      const hash = await seedNote(caller, 'old/gone.md', 'x');
      const response = await caller.api.delete<Result>(notePathUrl('old/gone.md'), {
        query: { dryRun: false },
        headers: { 'x-service-mapping': caller.mappingId, 'if-match': hash, 'idempotency-key': newKey() },
      });
      expectSuccess(response);
      expect(response.body.applied).toBe(true);
      expect(await trashOf(caller)).toHaveLength(1);
    });

    it('refuses a query and X-Service-Mapping that disagree with 400', async () => {
      const caller = await newCaller(suite.gateway, 'delete-two-sources');
      const hash = await seedNote(caller, 'old/gone.md', 'x');
      const send = () => applyRemove(caller, 'old/gone.md', hash, { 'x-service-mapping': suite.prober.mappingId });
      expect((await expectUnchanged(suite.gateway, send, 400, 'invalid_request')).body.field).toBe('mappingId');
    });
  });

  describe('malformed and oversized input (applies, each refused and changing nothing)', () => {
    type Overrides = { url?: string; query?: Record<string, string | undefined>; headers?: Record<string, string> };
    it.each<[string, (hash: string) => Overrides, string]>([
      ['dryRun=yes', () => ({ query: { dryRun: 'yes' } }), 'invalid_request'],
      ['dryRun=0', () => ({ query: { dryRun: '0' } }), 'invalid_request'],
      ['a malformed If-Match', () => ({ headers: { 'if-match': '"abc"' } }), 'invalid_request'],
      ['two entity tags in If-Match', (hash) => ({ headers: { 'if-match': `"${hash}", "${STALE}"` } }), 'invalid_request'],
      ['a malformed Idempotency-Key', () => ({ headers: { 'idempotency-key': 'ü' } }), 'invalid_request'],
      ['a non-UUID mapping id', () => ({ query: { mappingId: 'nope' } }), 'invalid_request'],
      ['no mapping id', () => ({ query: { mappingId: undefined } }), 'invalid_request'],
      ['a backslash', () => ({ url: '/notes/old%5Cx/a.md' }), 'invalid_path'],
      ['a file that is not Markdown', () => ({ url: '/notes/old/a.txt' }), 'invalid_path'],
      ['an encoded slash (a third segment)', () => ({ url: '/notes/old/..%2Fa.md' }), 'invalid_path'],
      ['an oversized file name', () => ({ url: `/notes/old/${'a'.repeat(300)}.md` }), 'invalid_path'],
    ])('answers %s with 400', async (_label, overrides, code) => {
      const caller = await newCaller(suite.gateway, 'delete-malformed');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      const { url = notePathUrl('old/a.md'), query = {}, headers = {} } = overrides(hash);
      const send = () =>
        caller.api.delete(url, {
          query: { mappingId: caller.mappingId, dryRun: 'false', ...query },
          headers: { 'if-match': `"${hash}"`, 'idempotency-key': newKey(), ...headers },
        });
      await expectUnchanged(suite.gateway, send, 400, code);
    });

    it.each(['/api/dev/notes/%2E%2E/a.md', '/api/dev/notes/old/%2e%2e'])('resolves the dot segments of %s before routing, so they reach no note', async (path) => {
      const caller = await newCaller(suite.gateway, 'delete-dots');
      await seedNote(caller, 'old/a.md', 'x');
      const before = await snapshotOf(suite.gateway);
      const headers = { authorization: `Bearer ${caller.owner.token}` };
      const response = await rawRequest(suite.gateway, { method: 'DELETE', path: `${path}?mappingId=${caller.mappingId}&dryRun=false`, headers });
      expectProblem(response, 404, 'not_found');
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });

    it('answers a body over 8 MiB with 413 payload_too_large', async () => {
      const caller = await newCaller(suite.gateway, 'delete-huge');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      const send = () =>
        caller.api.delete(notePathUrl('old/a.md'), {
          query: { mappingId: caller.mappingId, dryRun: false },
          headers: { 'if-match': hash, 'idempotency-key': newKey(), 'content-type': 'application/json' },
          raw: JSON.stringify({ padding: 'x'.repeat(8 * MiB) }),
        });
      await expectUnchanged(suite.gateway, send, 413, 'payload_too_large');
    });
  });

  describe('preconditions and idempotency', () => {
    it('refuses a stale If-Match (412), a missing If-Match (428), a missing key (400) and a missing note (404)', async () => {
      const caller = await newCaller(suite.gateway, 'delete-preconditions');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      await expectUnchanged(suite.gateway, () => applyRemove(caller, 'old/a.md', STALE), 412, 'stale_revision');
      await expectUnchanged(suite.gateway, () => applyRemove(caller, 'old/a.md', undefined), 428, 'precondition_required');
      const withoutKey = () => remove(caller, 'old/a.md', { dryRun: false }, { 'if-match': `"${hash}"` });
      await expectUnchanged(suite.gateway, withoutKey, 400, 'idempotency_key_required');
      await expectUnchanged(suite.gateway, () => applyRemove(caller, 'old/none.md', hash), 404, 'not_found');
      expectSuccess(await readBack(caller, 'old/a.md'));
    });

    it('replays a retry with the same status and body, and no new event or trash entry', async () => {
      const caller = await newCaller(suite.gateway, 'delete-replay');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      const headers = { 'idempotency-key': newKey() };
      const first = await applyRemove(caller, 'old/a.md', hash, headers);
      expectSuccess(first);
      const before = await snapshotOf(suite.gateway);
      const retry = await applyRemove(caller, 'old/a.md', hash, headers);
      expectSuccess(retry);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await snapshotOf(suite.gateway)).toBe(before);
      expect(await eventsOf(caller)).toHaveLength(2);
      expect(await trashOf(caller)).toHaveLength(1);
    });

    it('refuses a key reused for another note or another If-Match: 422 idempotency_key_reused', async () => {
      const caller = await newCaller(suite.gateway, 'delete-reuse');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      const other = await seedNote(caller, 'old/b.md', 'y');
      const headers = { 'idempotency-key': newKey() };
      expectSuccess(await applyRemove(caller, 'old/a.md', hash, headers));
      await expectUnchanged(suite.gateway, () => applyRemove(caller, 'old/b.md', other, headers), 422, 'idempotency_key_reused');
      await expectUnchanged(suite.gateway, () => applyRemove(caller, 'old/a.md', STALE, headers), 422, 'idempotency_key_reused');
    });

    it('applies 8 parallel identical deletes with one key exactly once; the others wait (409) or replay', async () => {
      const caller = await newCaller(suite.gateway, 'delete-parallel');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      const headers = { 'idempotency-key': newKey() };
      const responses = await Promise.all(Array.from({ length: 8 }, () => applyRemove(caller, 'old/a.md', hash, headers)));
      const fresh = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      const replays = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true');
      expect(fresh).toHaveLength(1);
      for (const replay of replays) expect(replay.body).toEqual(fresh[0]!.body);
      for (const response of responses.filter((r) => r.status !== 200)) expectProblem(response, 409, 'idempotency_key_in_flight');
      expect(await trashOf(caller)).toHaveLength(1);
      expect((await eventsOf(caller)).filter((e) => e.kind === 'note.deleted')).toHaveLength(1);
    });

    it('lets exactly one of 8 parallel deletes with different keys apply; the others find no note (404)', async () => {
      const caller = await newCaller(suite.gateway, 'delete-parallel-keys');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      const responses = await Promise.all(Array.from({ length: 8 }, () => applyRemove(caller, 'old/a.md', hash)));
      expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
      const refused = responses.filter((r) => r.status !== 200).map((r) => withoutRequestId(expectProblem(r, 404, 'not_found')));
      expect(refused).toHaveLength(7);
      expect(await trashOf(caller)).toHaveLength(1);
    });
  });

  describe('mapping policy', () => {
    it.each([
      ['read-only', { readOnly: true }, 'mapping_read_only'],
      ['pull-only', { pullOnly: true }, 'mapping_pull_only'],
    ] as const)('refuses previews and applies on a %s mapping with 403 and its own code', async (_label, flags, code) => {
      const caller = await newCaller(suite.gateway, 'delete-read-only');
      const hash = await seedNote(caller, 'old/a.md', 'x');
      await suite.gateway.services.vaults.updateMappingFlags(caller.mappingId, flags);
      await expectUnchanged(suite.gateway, () => remove(caller, 'old/a.md'), 403, code);
      await expectUnchanged(suite.gateway, () => applyRemove(caller, 'old/a.md', hash), 403, code);
    });
  });

  describe('callers (preview)', () => {
    itRejectsUnauthorizedCallers(suite, (token, mappingId) => suite.client.delete(notePathUrl(STRANGER_NOTE), { token, query: { mappingId } }));
  });

  describe('callers (apply)', () => {
    itRejectsUnauthorizedCallers(suite, (token, mappingId) =>
      suite.client.delete(notePathUrl(STRANGER_NOTE), {
        token,
        query: { mappingId, dryRun: false },
        headers: { 'if-match': `"${STALE}"`, 'idempotency-key': newKey() },
      }),
    );
  });
});
