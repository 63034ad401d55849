/**
 * Canvases and attachments over the Developer REST API (src/surfaces/operations/file-operations.ts), on a real
 * gateway: write (preview, apply, replay), read back byte for byte, list, delete with If-Match, trash, restore,
 * and every refusal with its stable code and nothing changed.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_REST_FILE_BYTES } from '../src/surfaces/operations/file-operations.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { restClient } from './support/rest-client.ts';
import { expectProblem, newCaller, type Caller } from './support/rest-notes.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(1000)]);
const sha = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('canvases and attachments over REST', () => {
  let gateway: TestGateway;
  let owner: Caller;
  let stranger: Caller;

  beforeAll(async () => {
    gateway = await startTestGateway();
    [owner, stranger] = await Promise.all([newCaller(gateway, 'files'), newCaller(gateway, 'files-stranger')]);
  });
  afterAll(() => gateway?.stop());

  const snapshot = async () =>
    JSON.stringify([
      await gateway.db.query('SELECT path, content_hash FROM vault_files ORDER BY path'),
      await gateway.db.query('SELECT id, restored_at FROM vault_file_trash ORDER BY id'),
      await gateway.db.query("SELECT kind, path FROM provenance_events WHERE kind LIKE 'file.%' ORDER BY seq"),
    ]);

  it('writes, replays, reads back, lists, deletes, restores', async () => {
    const { api, mappingId } = owner;
    const body = { mappingId, path: 'img/pic.png', contentBase64: PNG.toString('base64') };
    const preview = await api.post('/files', { json: body });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({ dryRun: true, results: [{ path: 'img/pic.png', status: 'create', beforeHash: null, afterHash: sha(PNG) }] });

    const key = randomUUID();
    const applied = await api.post('/files', { json: { ...body, dryRun: false }, headers: { 'idempotency-key': key } });
    expect(applied.status).toBe(200);
    expect(applied.body).toMatchObject({ dryRun: false, results: [{ status: 'create' }] });
    const replay = await api.post('/files', { json: { ...body, dryRun: false }, headers: { 'idempotency-key': key } });
    expect(replay.body).toEqual(applied.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const read = await api.get<{ contentBase64: string; mediaType: string; contentHash: string; kind: string }>('/files/content', { query: { mappingId, path: 'img/pic.png' } });
    expect(read.status).toBe(200);
    expect(Buffer.from(read.body.contentBase64, 'base64').equals(PNG)).toBe(true);
    expect(read.body).toMatchObject({ mediaType: 'image/png', kind: 'attachment', contentHash: sha(PNG) });

    const canvas = Buffer.from('{"nodes":[],"edges":[]}');
    const batch = await api.post('/files/changes', {
      json: { mappingId, dryRun: false, changes: [{ type: 'write-file', path: 'Board.canvas', contentBase64: canvas.toString('base64') }] },
      headers: { 'idempotency-key': randomUUID() },
    });
    expect(batch.body).toMatchObject({ results: [{ path: 'Board.canvas', status: 'create' }] });
    const list = await api.get<{ files: { path: string; kind: string }[]; truncated: boolean }>('/files', { query: { mappingId } });
    expect(list.body).toMatchObject({ files: [{ path: 'Board.canvas', kind: 'canvas' }, { path: 'img/pic.png', kind: 'attachment' }], truncated: false });
    expect((await api.get('/files', { query: { mappingId, kind: 'canvas', limit: 1 } })).body).toMatchObject({ files: [{ path: 'Board.canvas' }] });

    const deleted = await api.delete<{ results: { trashId: string }[] }>('/files', {
      query: { mappingId, path: 'img/pic.png', dryRun: false },
      headers: { 'idempotency-key': randomUUID(), 'if-match': `"${sha(PNG)}"` },
    });
    expect(deleted.status).toBe(200);
    const trashId = deleted.body.results[0]!.trashId;
    expect((await api.get('/files/content', { query: { mappingId, path: 'img/pic.png' } })).status).toBe(404);
    expect((await api.get('/files/trash', { query: { mappingId } })).body).toMatchObject({ entries: [{ trashId, originalPath: 'img/pic.png' }] });
    const restored = await api.post('/files/restore', { json: { mappingId, trashId, dryRun: false }, headers: { 'idempotency-key': randomUUID() } });
    expect(restored.body).toMatchObject({ results: [{ status: 'restore', path: 'img/pic.png' }] });
    expect((await api.get('/files/content', { query: { mappingId, path: 'img/pic.png' } })).status).toBe(200);
    const events = await gateway.db.query<{ kind: string }>("SELECT kind FROM provenance_events WHERE kind LIKE 'file.%' AND mapping_id = $1 ORDER BY seq", [mappingId]);
    expect(events.map((e) => e.kind)).toEqual(['file.created', 'file.created', 'file.deleted', 'file.restored']);
  });

  it('refuses bad requests with stable codes and changes nothing', async () => {
    const { api, mappingId } = owner;
    const apply = (json: Record<string, unknown>, path = '/files') => () => api.post(path, { json: { mappingId, dryRun: false, ...json }, headers: { 'idempotency-key': randomUUID() } });
    const before = await snapshot();
    const cases: [number, string, () => Promise<{ status: number; body: unknown }>][] = [
      [400, 'invalid_path', apply({ path: '.obsidian/app.json', contentBase64: '' })],
      [400, 'invalid_path', apply({ path: 'note.md', contentBase64: '' })],
      [400, 'invalid_request', apply({ path: 'x.bin', contentBase64: 'not base64!' })],
      [400, 'invalid_request', apply({ path: 'x.bin', contentBase64: 'A'.repeat(Math.ceil(MAX_REST_FILE_BYTES / 3) * 4 + 4) })],
      [428, 'precondition_required', apply({ path: 'img/pic.png', contentBase64: '' })],
      [412, 'stale_revision', apply({ path: 'img/pic.png', contentBase64: '', expectedHash: sha(Buffer.from('other')) })],
      [428, 'precondition_required', () => api.delete('/files', { query: { mappingId, path: 'img/pic.png', dryRun: false }, headers: { 'idempotency-key': randomUUID() } })],
      [400, 'idempotency_key_required', () => api.post('/files', { json: { mappingId, path: 'y.bin', contentBase64: '', dryRun: false } })],
      [404, 'not_found', () => stranger.api.get('/files/content', { query: { mappingId, path: 'img/pic.png' } })],
      [404, 'not_found', () => stranger.api.post('/files', { json: { mappingId, path: 'z.bin', contentBase64: '', dryRun: false }, headers: { 'idempotency-key': randomUUID() } })],
      [404, 'not_found', apply({ trashId: randomUUID() }, '/files/restore')],
    ];
    const seen: string[] = [];
    for (const [, , call] of cases) {
      const response = await call();
      seen.push(`${response.status} ${(response.body as { code?: string }).code}`);
    }
    expect(seen).toEqual(cases.map(([status, code]) => `${status} ${code}`));
    expect(await snapshot()).toBe(before);
  });

  it("keeps a vault's files within KGATE_VAULT_FILES_MB: past it a change is refused and nothing is stored", async () => {
    const small = await startTestGateway({ database: gateway.db, env: { KGATE_VAULT_FILES_MB: '1' } });
    try {
      const caller = await newCaller(small, 'files-ceiling');
      const { api, mappingId } = caller;
      const part = (n: number) => Buffer.concat([PNG.subarray(0, 8), Buffer.alloc(600 * 1024 - 8, n)]);
      const write = (path: string, bytes: Buffer) =>
        api.post('/files', { json: { mappingId, path, contentBase64: bytes.toString('base64'), dryRun: false }, headers: { 'idempotency-key': randomUUID() } });
      expect((await write('a.png', part(1))).status).toBe(200);
      const before = await snapshot();
      const refused = expectProblem(await write('b.png', part(2)), 403, 'vault_storage_exhausted');
      expect(refused).toMatchObject({ limit: 1024 * 1024, used: 600 * 1024, adding: 600 * 1024 });
      expect(await snapshot()).toBe(before);
      // The same vault under the default ceiling takes it: the setting, not the file, refused it.
      expect((await restClient(gateway, caller.owner.token).post('/files', { json: { mappingId, path: 'b.png', contentBase64: part(2).toString('base64'), dryRun: false }, headers: { 'idempotency-key': randomUUID() } })).status).toBe(200);
    } finally {
      await small.stop();
    }
  });
});
