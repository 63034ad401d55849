import { Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from './support/rest-client.ts';
import { notePathUrl, snapshotOf } from './support/rest-client.ts';
import {
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

// POST /api/dev/notes. Deletes are in rest-notes-delete.test.ts; "101 actions" belongs to the transactions
// endpoint (a single-note write is one action, and the `actions` field is refused here as unknown).
const suite = useNotesSuite();

const MiB = 1024 * 1024;
const HASH = /^sha256:[0-9a-f]{64}$/;
const STALE = `sha256:${'0'.repeat(64)}`;

interface Result {
  dryRun: boolean;
  applied: boolean;
  actions: { status: string; path: string; beforeRevision: string | null; afterRevision: string | null; diff?: string }[];
}

/** POST /notes for `caller`'s mapping (in the body) with `fields`; a preview unless `dryRun: false` is among them. */
const write = (caller: Caller, fields: Record<string, unknown>, headers: Record<string, string> = {}) =>
  caller.api.post<Result>('/notes', { json: { mappingId: caller.mappingId, ...fields }, headers });
/** An apply with a fresh Idempotency-Key (the headers may override it). */
const apply = (caller: Caller, fields: Record<string, unknown>, headers: Record<string, string> = {}) =>
  write(caller, { dryRun: false, ...fields }, { 'idempotency-key': newKey(), ...headers });

const readBack = (caller: Caller, path: string) => caller.api.get(notePathUrl(path), { query: { mappingId: caller.mappingId } });

describe('POST /api/dev/notes', () => {
  describe('previews', () => {
    it('previews by default: a create with its diff and no beforeRevision, changing nothing', async () => {
      const caller = await newCaller(suite.gateway, 'preview');
      const before = await snapshotOf(suite.gateway);
      const response = await write(caller, { path: 'ideas/new.md', content: '# New\nfirst line\n' });
      expectSuccess(response);
      expect(response.body).toMatchObject({ mappingId: caller.mappingId, dryRun: true, applied: false });
      expect(response.body.actions).toEqual([
        expect.objectContaining({ path: 'ideas/new.md', status: 'create', beforeRevision: null, afterRevision: expect.stringMatching(HASH) }),
      ]);
      expect(response.body.actions[0]!.diff).toContain('+++ b/ideas/new.md\n');
      expect(response.body.actions[0]!.diff).toContain('+first line\n');
      expect(await snapshotOf(suite.gateway)).toBe(before);
      expectProblem(await readBack(caller, 'ideas/new.md'), 404, 'not_found');
    });

    it('previews an update with a unified diff and the current hash as beforeRevision', async () => {
      const caller = await newCaller(suite.gateway, 'preview-update');
      const hash = await seedNote(caller, 'ideas/old.md', '# Old\nkeep\nold line\n');
      const before = await snapshotOf(suite.gateway);
      const response = await write(caller, { path: 'ideas/old.md', content: '# Old\nkeep\nnew line\n', dryRun: true });
      expectSuccess(response);
      expect(response.body.actions[0]).toMatchObject({ status: 'update', beforeRevision: hash });
      expect(response.body.actions[0]!.diff).toMatch(/^--- a\/ideas\/old\.md\n\+\+\+ b\/ideas\/old\.md\n@@ [^\n]+ @@\n # Old\n keep\n-old line\n\+new line\n$/);
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });
  });

  describe('applies', () => {
    it('creates with dryRun false and an Idempotency-Key, recording one note.created event', async () => {
      const caller = await newCaller(suite.gateway, 'create');
      const key = newKey();
      const response = await apply(caller, { path: 'ideas/made.md', content: '# Made\n' }, { 'idempotency-key': key });
      expectSuccess(response);
      expect(response.body).toMatchObject({ dryRun: false, applied: true, actions: [{ status: 'create', beforeRevision: null }] });
      expect(response.body.actions[0]!.diff).toBeUndefined();
      const hash = response.body.actions[0]!.afterRevision;
      expect((await readBack(caller, 'ideas/made.md')).body).toMatchObject({ content: '# Made\n', revision: hash });
      expect(await eventsOf(caller)).toEqual([
        expect.objectContaining({ kind: 'note.created', path: 'ideas/made.md', beforeRevision: null, afterRevision: hash, idempotencyKey: key }),
      ]);
    });

    it('updates with expectedHash or with If-Match, each recording one note.updated event', async () => {
      const caller = await newCaller(suite.gateway, 'update');
      const v1 = await seedNote(caller, 'ideas/edit.md', 'v1');
      const byBody = await apply(caller, { path: 'ideas/edit.md', content: 'v2', expectedHash: v1 });
      expectSuccess(byBody);
      const v2 = byBody.body.actions[0]!.afterRevision!;
      const etag = (await readBack(caller, 'ideas/edit.md')).headers.get('etag')!;
      expect(etag).toBe(`"${v2}"`);
      const byHeader = await apply(caller, { path: 'ideas/edit.md', content: 'v3' }, { 'if-match': etag });
      expectSuccess(byHeader);
      const v3 = byHeader.body.actions[0]!.afterRevision;
      expect(byHeader.body.actions[0]).toMatchObject({ status: 'update', beforeRevision: v2 });
      expect((await readBack(caller, 'ideas/edit.md')).body).toMatchObject({ content: 'v3', revision: v3 });
      expect((await eventsOf(caller)).map((e) => [e.kind, e.beforeRevision, e.afterRevision])).toEqual([
        ['note.created', null, v1],
        ['note.updated', v1, v2],
        ['note.updated', v2, v3],
      ]);
    });

    it('applies unchanged content as a no-op that records no event', async () => {
      const caller = await newCaller(suite.gateway, 'noop');
      const hash = await seedNote(caller, 'ideas/same.md', 'same');
      const before = await snapshotOf(suite.gateway);
      const response = await apply(caller, { path: 'ideas/same.md', content: 'same', expectedHash: hash });
      expectSuccess(response);
      expect(response.body).toMatchObject({ applied: true, actions: [{ status: 'no-op', beforeRevision: hash, afterRevision: hash }] });
      expect(await snapshotOf(suite.gateway)).toBe(before);
    });
  });

  describe('the mapping id', () => {
    const sources: [string, (c: Caller) => { query?: Record<string, string>; body?: Record<string, string>; headers?: Record<string, string> }][] = [
      ['the query', (c) => ({ query: { mappingId: c.mappingId } })],
      ['the body', (c) => ({ body: { mappingId: c.mappingId } })],
      ['X-Service-Mapping', (c) => ({ headers: { 'x-service-mapping': c.mappingId } })],
    ];

    it.each(sources)('may come from %s', async (_label, source) => {
      const caller = await newCaller(suite.gateway, 'source');
      const { query, body, headers } = source(caller);
      const response = await caller.api.post<Result>('/notes', { query, headers, json: { path: 'a/b.md', content: 'x', ...body } });
      expectSuccess(response);
      expect(response.body).toMatchObject({ mappingId: caller.mappingId, actions: [{ status: 'create' }] });
    });

    it.each([
      [0, 1],
      [0, 2],
      [1, 2],
    ])('is refused with 400 when sources %i and %i name different mappings', async (first, second) => {
      const caller = await newCaller(suite.gateway, 'two-sources');
      const own = sources[first]![1](caller);
      const other = sources[second]![1](suite.prober);
      const send = () =>
        caller.api.post('/notes', {
          query: { ...own.query, ...other.query },
          headers: { 'idempotency-key': newKey(), ...own.headers, ...other.headers },
          json: { path: 'a/b.md', content: 'x', dryRun: false, ...own.body, ...other.body },
        });
      expect((await expectUnchanged(suite.gateway, send, 400, 'invalid_request')).body.field).toBe('mappingId');
    });
  });

  describe('malformed input (applies, each refused and changing nothing)', () => {
    const raw = (c: Caller, text: string, type = 'application/json') =>
      c.api.post('/notes', { raw: text, headers: { 'content-type': type, 'idempotency-key': newKey() } });
    const cases: [string, (c: Caller) => Promise<ApiResponse<unknown>>, string, string?][] = [
      ['bad JSON', (c) => raw(c, `{"mappingId":"${c.mappingId}","path":"a/b.md",`), 'invalid_request'],
      ['a form body', (c) => raw(c, `mappingId=${c.mappingId}&path=a/b.md&content=x`, 'application/x-www-form-urlencoded'), 'invalid_request'],
      ['a JSON array', (c) => raw(c, JSON.stringify([{ mappingId: c.mappingId, path: 'a/b.md', content: 'x' }])), 'invalid_request'],
      ['content as a number', (c) => apply(c, { path: 'a/b.md', content: 5 }), 'invalid_request'],
      ['dryRun as a string', (c) => apply(c, { path: 'a/b.md', content: 'x', dryRun: 'false' }), 'invalid_request'],
      ['path as a number', (c) => apply(c, { path: 7, content: 'x' }), 'invalid_request'],
      ['no path', (c) => apply(c, { content: 'x' }), 'invalid_request'],
      ['a malformed expectedHash', (c) => apply(c, { path: 'a/b.md', content: 'x', expectedHash: 'abc' }), 'invalid_request'],
      ['mappingId as a number', (c) => apply(c, { path: 'a/b.md', content: 'x', mappingId: 42 }), 'invalid_request'],
      [
        'mappingId as a number beside a valid query mappingId',
        (c) =>
          c.api.post('/notes', {
            query: { mappingId: c.mappingId },
            json: { mappingId: 42, path: 'a/b.md', content: 'x', dryRun: false },
            headers: { 'idempotency-key': newKey() },
          }),
        'invalid_request',
      ],
      ['a non-UUID mappingId', (c) => apply(c, { path: 'a/b.md', content: 'x', mappingId: 'vault-1' }), 'invalid_request'],
      ['an unknown body field', (c) => apply(c, { path: 'a/b.md', content: 'x', force: true }), 'invalid_request'],
      ["a transaction's actions field", (c) => apply(c, { path: 'a/b.md', content: 'x', actions: [] }), 'invalid_request'],
      ['a malformed Idempotency-Key', (c) => apply(c, { path: 'a/b.md', content: 'x' }, { 'idempotency-key': 'two words' }), 'invalid_request'],
      ['an oversized Idempotency-Key', (c) => apply(c, { path: 'a/b.md', content: 'x' }, { 'idempotency-key': 'k'.repeat(256) }), 'invalid_request'],
      ['If-Match and expectedHash that disagree', (c) => apply(c, { path: 'a/b.md', content: 'x', expectedHash: STALE }, { 'if-match': `"sha256:${'1'.repeat(64)}"` }), 'invalid_request'],
      ['a ".." segment', (c) => apply(c, { path: '../escape.md', content: 'x' }), 'invalid_path', 'dot_segment'],
      ['a ".." inside the path', (c) => apply(c, { path: 'a/../../b.md', content: 'x' }), 'invalid_path', 'dot_segment'],
      ['a backslash', (c) => apply(c, { path: 'a\\b.md', content: 'x' }), 'invalid_path', 'backslash'],
      ['an absolute path', (c) => apply(c, { path: '/etc/b.md', content: 'x' }), 'invalid_path', 'absolute'],
      ['a drive letter', (c) => apply(c, { path: 'C:/b.md', content: 'x' }), 'invalid_path', 'absolute'],
      ['an empty segment', (c) => apply(c, { path: 'a//b.md', content: 'x' }), 'invalid_path', 'empty_segment'],
      ['a file that is not Markdown', (c) => apply(c, { path: 'a/b.txt', content: 'x' }), 'invalid_path', 'not_markdown'],
      ['an oversized path', (c) => apply(c, { path: `${'d/'.repeat(600)}b.md`, content: 'x' }), 'invalid_path', 'too_long'],
    ];

    it.each(cases)('answers %s with 400', async (_label, send, code, reason) => {
      const caller = await newCaller(suite.gateway, 'malformed');
      const response = await expectUnchanged(suite.gateway, () => send(caller), 400, code);
      if (reason) expect(response.body.reason).toBe(reason);
    });
  });

  describe('paths that Windows and synced drives refuse (docs/notes.md, "Portable paths")', () => {
    it.each([
      ['Hostile/CON.md', 'reserved_name', 'reserved device name'],
      ['nul.md', 'reserved_name', 'reserved device name'],
      ['COM1.md', 'reserved_name', 'reserved device name'],
      ['LPT1/notes.md', 'reserved_name', 'reserved device name'],
      ['Notes /a.md', 'trailing_dot_or_space', 'ends in a dot or a space'],
      ['a./b.md', 'trailing_dot_or_space', 'ends in a dot or a space'],
      ['Why?.md', 'reserved_character', 'refuse < > : " | ? * in names'],
      ['Plans: 2027/a.md', 'reserved_character', 'refuse < > : " | ? * in names'],
    ])('refuses %j with 400 invalid_path (%s), in preview and apply alike', async (path, reason, rule) => {
      const caller = await newCaller(suite.gateway, 'not-portable');
      const answers = [];
      for (const send of [() => write(caller, { path, content: 'x' }), () => apply(caller, { path, content: 'x' })]) {
        const response = await expectUnchanged(suite.gateway, send, 400, 'invalid_path');
        expect(response.body.reason).toBe(reason);
        expect(response.body.detail).toContain(rule);
        answers.push(withoutRequestId(response.body));
      }
      expect(answers[0]).toEqual(answers[1]);
    });

    it('accepts names that only look like them', async () => {
      const caller = await newCaller(suite.gateway, 'look-alikes');
      for (const path of ['CONSOLE.md', 'Com10.md', 'icon.md', 'b..md', 'v1.0 notes/a.md']) {
        const response = await apply(caller, { path, content: 'x' });
        expectSuccess(response);
        expect(response.body.actions[0]).toMatchObject({ path, status: 'create' });
      }
    });
  });

  describe('oversized input', () => {
    it('answers a body over 8 MiB with 413 payload_too_large', async () => {
      const caller = await newCaller(suite.gateway, 'huge-body');
      const response = await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x'.repeat(8 * MiB + 1) }), 413, 'payload_too_large');
      expect(response.body.limit).toBe(8 * MiB);
    });

    it('answers a chunked body over 8 MiB with 413, and the next request on that keep-alive connection still works', async () => {
      const caller = await newCaller(suite.gateway, 'huge-chunked');
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const authorization = `Bearer ${caller.owner.token}`;
        const chunk = new Uint8Array(MiB).fill(0x20);
        const send = () =>
          rawRequest(suite.gateway, {
            method: 'POST',
            path: '/api/dev/notes',
            headers: { authorization, 'content-type': 'application/json' },
            chunks: Array.from({ length: 9 }, () => chunk),
            agent,
          });
        await expectUnchanged(suite.gateway, send, 413, 'payload_too_large');
        // Either the rest of the body is drained and the connection stays usable, or the 413 says Connection: close.
        const next = await rawRequest(suite.gateway, { method: 'GET', path: `/api/dev/notes?mappingId=${caller.mappingId}`, headers: { authorization }, agent }).catch(
          (error: Error) => error.message,
        );
        expect(next, 'the next request on the same connection').toMatchObject({ status: 200 });
      } finally {
        agent.destroy();
      }
    });

    it.each([
      ['4 MiB + 1 ASCII bytes', 'x'.repeat(4 * MiB + 1)],
      ['2 Mi + 1 two-byte characters (bytes, not characters, count)', 'é'.repeat(2 * MiB + 1)],
    ])('answers a note of %s with 413, in preview and apply', async (_label, content) => {
      const caller = await newCaller(suite.gateway, 'huge-note');
      for (const dryRun of [true, false]) {
        const response = await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content, dryRun }), 413, 'payload_too_large');
        expect(response.body.limit).toBe(4 * MiB);
      }
    });
  });

  describe('preconditions and idempotency', () => {
    it('refuses a stale hash with 412 stale_revision, in the body, in If-Match, and for a note that does not exist', async () => {
      const caller = await newCaller(suite.gateway, 'stale');
      await seedNote(caller, 'a/b.md', 'current');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x', expectedHash: STALE }), 412, 'stale_revision');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x' }, { 'if-match': `"${STALE}"` }), 412, 'stale_revision');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/new.md', content: 'x', expectedHash: STALE }), 412, 'stale_revision');
      expect((await readBack(caller, 'a/b.md')).body).toMatchObject({ content: 'current' });
    });

    it('refuses to apply over an existing note without expectedHash or If-Match: 428 precondition_required', async () => {
      const caller = await newCaller(suite.gateway, 'precondition');
      await seedNote(caller, 'a/b.md', 'current');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/B.md', content: 'x' }), 428, 'precondition_required');
    });

    it('refuses to apply without an Idempotency-Key: 400 idempotency_key_required', async () => {
      const caller = await newCaller(suite.gateway, 'no-key');
      await expectUnchanged(suite.gateway, () => write(caller, { path: 'a/b.md', content: 'x', dryRun: false }), 400, 'idempotency_key_required');
    });

    it('replays a retry (mapping id moved to the header) with the same status and body, and no new event', async () => {
      const caller = await newCaller(suite.gateway, 'replay');
      const key = newKey();
      const first = await apply(caller, { path: 'a/b.md', content: 'once' }, { 'idempotency-key': key });
      expectSuccess(first);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const before = await snapshotOf(suite.gateway);
      const retry = await caller.api.post('/notes', {
        json: { path: 'a/b.md', content: 'once', dryRun: false },
        headers: { 'idempotency-key': key, 'x-service-mapping': caller.mappingId },
      });
      expectSuccess(retry);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body).toEqual(first.body);
      expect(await snapshotOf(suite.gateway)).toBe(before);
      expect(await eventsOf(caller)).toHaveLength(1);
    });

    it('replays a refused apply with the same problem', async () => {
      const caller = await newCaller(suite.gateway, 'replay-error');
      await seedNote(caller, 'a/b.md', 'current');
      const headers = { 'idempotency-key': newKey() };
      const first = await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x' }, headers), 428, 'precondition_required');
      const retry = await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x' }, headers), 428, 'precondition_required');
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(withoutRequestId(retry.body)).toEqual(withoutRequestId(first.body));
    });

    it('refuses a key reused with another body, or by another operation: 422 idempotency_key_reused', async () => {
      const caller = await newCaller(suite.gateway, 'reuse');
      const headers = { 'idempotency-key': newKey() };
      expectSuccess(await apply(caller, { path: 'a/b.md', content: 'first' }, headers));
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'second' }, headers), 422, 'idempotency_key_reused');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/c.md', content: 'first' }, headers), 422, 'idempotency_key_reused');
      const asDelete = () => caller.api.delete(notePathUrl('a/b.md'), { query: { mappingId: caller.mappingId, dryRun: false }, headers });
      await expectUnchanged(suite.gateway, asDelete, 422, 'idempotency_key_reused');
    });

    it('scopes keys to the account: another account may use the same key', async () => {
      const [one, two] = [await newCaller(suite.gateway, 'scope-1'), await newCaller(suite.gateway, 'scope-2')];
      const headers = { 'idempotency-key': newKey() };
      expectSuccess(await apply(one, { path: 'a/b.md', content: 'same' }, headers));
      const other = await apply(two, { path: 'a/b.md', content: 'same' }, headers);
      expectSuccess(other);
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expect(other.body.actions[0]).toMatchObject({ status: 'create' });
    });

    it('applies 8 parallel identical requests with one key exactly once; the others wait (409) or replay', async () => {
      const caller = await newCaller(suite.gateway, 'parallel');
      const headers = { 'idempotency-key': newKey() };
      const responses = await Promise.all(Array.from({ length: 8 }, () => apply(caller, { path: 'a/race.md', content: 'raced' }, headers)));
      const fresh = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null);
      const replays = responses.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === 'true');
      const waiting = responses.filter((r) => r.status === 409);
      expect(fresh).toHaveLength(1);
      expect(replays.length + waiting.length).toBe(7);
      for (const replay of replays) expect(replay.body).toEqual(fresh[0]!.body);
      for (const response of waiting) {
        expectProblem(response, 409, 'idempotency_key_in_flight');
        expect(response.headers.get('retry-after')).toBe('1');
      }
      expect(await eventsOf(caller)).toHaveLength(1);
    });

    it('lets exactly one of 8 parallel creates of one path (different keys) apply; the others need the hash (428)', async () => {
      const caller = await newCaller(suite.gateway, 'parallel-keys');
      const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => apply(caller, { path: 'a/race.md', content: `writer ${i}` })));
      const applied = responses.filter((r) => r.status === 200);
      expect(applied).toHaveLength(1);
      for (const response of responses.filter((r) => r.status !== 200)) expectProblem(response, 428, 'precondition_required');
      const winner = applied[0]!.body.actions[0]!.afterRevision;
      expect((await readBack(caller, 'a/race.md')).body).toMatchObject({ revision: winner });
      expect(await eventsOf(caller)).toEqual([expect.objectContaining({ kind: 'note.created', afterRevision: winner })]);
    });
  });

  describe('mapping policy', () => {
    it.each([
      ['read-only', { readOnly: true }, 'mapping_read_only'],
      ['pull-only', { pullOnly: true }, 'mapping_pull_only'],
    ] as const)('refuses previews and applies on a %s mapping with 403 and its own code; reads still work', async (_label, flags, code) => {
      const caller = await newCaller(suite.gateway, 'read-only');
      const hash = await seedNote(caller, 'a/b.md', 'kept');
      await suite.gateway.services.vaults.updateMappingFlags(caller.mappingId, flags);
      await expectUnchanged(suite.gateway, () => write(caller, { path: 'a/new.md', content: 'x' }), 403, code);
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/new.md', content: 'x' }), 403, code);
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x', expectedHash: hash }), 403, code);
      expectSuccess(await readBack(caller, 'a/b.md'));
    });

    it('refuses to write bodies of a device-encrypted mapping: 409 device_encrypted, in preview and apply', async () => {
      const caller = await newCaller(suite.gateway, 'sealed-writer');
      const hash = await seedNote(caller, 'a/b.md', 'sealed');
      await suite.gateway.services.vaults.updateMappingFlags(caller.mappingId, { deviceEncrypted: true });
      await expectUnchanged(suite.gateway, () => write(caller, { path: 'a/new.md', content: 'x' }), 409, 'device_encrypted');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/new.md', content: 'x' }), 409, 'device_encrypted');
      await expectUnchanged(suite.gateway, () => apply(caller, { path: 'a/b.md', content: 'x', expectedHash: hash }), 409, 'device_encrypted');
      expectSuccess(await caller.api.get('/notes', { query: { mappingId: caller.mappingId } }));
    });
  });

  describe('callers (preview)', () => {
    itRejectsUnauthorizedCallers(suite, (token, mappingId) =>
      suite.client.post('/notes', { token, json: { mappingId, path: 'shared/secret.md', content: 'overwritten' } }),
    );
  });

  describe('callers (apply)', () => {
    itRejectsUnauthorizedCallers(suite, (token, mappingId) =>
      suite.client.post('/notes', {
        token,
        json: { mappingId, path: 'shared/secret.md', content: 'overwritten', dryRun: false },
        headers: { 'idempotency-key': newKey() },
      }),
    );
  });

  // Last: a 4 MiB note makes every later whole-database snapshot slower.
  it('accepts a note of exactly 4 MiB', async () => {
    const caller = await newCaller(suite.gateway, 'big-note');
    expectSuccess(await apply(caller, { path: 'a/big.md', content: 'x'.repeat(4 * MiB) }));
    expect((await caller.api.get('/notes', { query: { mappingId: caller.mappingId } })).body).toMatchObject({ notes: [{ size: 4 * MiB }] });
  });
});
