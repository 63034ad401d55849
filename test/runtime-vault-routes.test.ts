import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { callRuntime, createRuntimeChain, runtimeToken, vaultPath, type RuntimeChainSetup } from './support/runtime-gateway.ts';

// The Product Runtime's hosted vault routes: a product lists, reads, previews, publishes and reads the trash of a vault
// the customer granted, through the same transaction service as the Developer REST API, every answer an envelope.
describe('Product Runtime hosted vault routes', () => {
  let gateway: TestGateway;
  let chain: RuntimeChainSetup;
  let token: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    chain = await createRuntimeChain(gateway, 'vault-routes');
    token = await runtimeToken(gateway, chain);
  });
  afterAll(() => gateway.stop());

  it('previews, publishes with a key, lists, reads, and replays the apply', async () => {
    const base = vaultPath(chain);
    const preview = await callRuntime<{ dryRun: boolean }>(gateway, token, 'POST', `${base}/notes/publish`, { json: { path: 'lessons/week-1.md', content: '# Week 1\n' } });
    expect(preview.status, JSON.stringify(preview.body)).toBe(200);
    expect(preview.body).toMatchObject({ version: 1, kind: 'service.note-transaction', status: 'ok', problems: [] });
    expect(preview.body.data.dryRun).toBe(true);
    expect(preview.headers.get('x-service-runtime-version')).toBe('1');
    expect(preview.body.receipts[0]).toMatchObject({ kind: 'service.product-runtime-operation', used: expect.any(Number), limit: null });

    const key = randomUUID();
    const applied = await callRuntime(gateway, token, 'POST', `${base}/notes/publish`, {
      json: { path: 'lessons/week-1.md', content: '# Week 1\n', dryRun: false },
      headers: { 'Idempotency-Key': key },
    });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    const replay = await callRuntime(gateway, token, 'POST', `${base}/notes/publish`, {
      json: { path: 'lessons/week-1.md', content: '# Week 1\n', dryRun: false },
      headers: { 'Idempotency-Key': key },
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(applied.body.data);

    const list = await callRuntime<{ notes: Array<{ path: string }> }>(gateway, token, 'GET', `${base}/notes?limit=10`);
    expect(list.body.kind).toBe('service.note-list');
    expect(list.body.data.notes.map((n) => n.path)).toContain('lessons/week-1.md');
    const inFolder = await callRuntime<{ notes: Array<{ path: string }> }>(gateway, token, 'GET', `${base}/notes?prefix=lessons%2F`);
    expect(inFolder.body.data.notes.map((n) => n.path)).toEqual(['lessons/week-1.md']);
    const elsewhere = await callRuntime<{ notes: Array<{ path: string }> }>(gateway, token, 'GET', `${base}/notes?prefix=less0`);
    expect(elsewhere.body.data.notes).toEqual([]);

    const read = await callRuntime<{ content: string; contentHash: string }>(gateway, token, 'GET', `${base}/notes/content?path=lessons%2Fweek-1.md`);
    expect(read.body.kind).toBe('service.note');
    expect(read.body.data.content).toBe('# Week 1\n');

    const removed = await callRuntime(gateway, token, 'POST', `${base}/notes/transactions`, {
      json: { dryRun: false, actions: [{ type: 'delete-note', path: 'lessons/week-1.md', expectedHash: read.body.data.contentHash }] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const trash = await callRuntime<{ entries: Array<Record<string, unknown>> }>(gateway, token, 'GET', `${base}/notes/trash`);
    expect(trash.body.kind).toBe('service.trash-list');
    expect(trash.body.data.entries[0]).toMatchObject({ originalPath: 'lessons/week-1.md' });
    expect(trash.body.data.entries[0]).not.toHaveProperty('content');
  });

  it('answers the runtime context and the capabilities, honestly', async () => {
    const context = await callRuntime<Record<string, unknown> & { workspaces: unknown }>(gateway, token, 'GET', '/api/product/v1/context');
    expect(context.status, JSON.stringify(context.body)).toBe(200);
    expect(context.body.data).toMatchObject({ runtimeVersion: 1, adapter: 'hosted', installation: { id: chain.installation.id }, principal: { id: chain.principalId } });
    expect(context.body.data.workspaces).toEqual([{ id: chain.workspaceId, name: expect.any(String) }]);
    const capabilities = await callRuntime<{ capabilities: Array<{ id: string; availability: string }> }>(gateway, token, 'GET', '/api/product/v1/capabilities');
    const byId = new Map(capabilities.body.data.capabilities.map((c) => [c.id, c.availability]));
    expect(byId.get('notes.publish')).toBe('available');
    expect(byId.get('education.generate')).toBe('unavailable');
  });

  it('refuses a model-backed route to a token without intelligence.execute, and answers an unknown path not_found, consuming nothing', async () => {
    const before = await callRuntime<{ capabilities: unknown[] }>(gateway, token, 'GET', '/api/product/v1/capabilities');
    const used = before.body.receipts[0]!.used as number;
    const generate = await callRuntime(gateway, token, 'POST', '/api/product/v1/intelligence/education/generate', { json: {}, headers: { 'Idempotency-Key': 'k-1' } });
    expect(generate.status).toBe(403);
    expect(generate.body).toMatchObject({ version: 1, status: 'error', data: null, receipts: [], problems: [{ code: 'insufficient_scope', details: { scope: 'intelligence.execute' } }] });
    const unknown = await callRuntime(gateway, token, 'POST', '/api/product/v1/intelligence/education/teleport', { json: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ version: 1, status: 'error', problems: [{ code: 'not_found' }] });
    const anonymous = await callRuntime(gateway, null, 'POST', '/api/product/v1/intelligence/education/rubric-draft', { json: {} });
    expect(anonymous.status).toBe(401);
    const after = await callRuntime<{ capabilities: unknown[] }>(gateway, token, 'GET', '/api/product/v1/capabilities');
    expect(after.body.receipts[0]!.used).toBe(used + 1);
  });

  it('answers a missing version header in the same envelope shape, before authentication', async () => {
    const missing = await callRuntime(gateway, null, 'GET', '/api/product/v1/context', { headers: { 'X-Service-Runtime-Version': null } });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ version: 1, kind: 'service.problem', status: 'error', data: null, problems: [{ code: 'runtime_version_required' }] });
    const wrong = await callRuntime(gateway, token, 'GET', '/api/product/v1/context', { headers: { 'X-Service-Runtime-Version': '2' } });
    expect(wrong.body.problems[0]).toMatchObject({ code: 'runtime_version_unsupported', details: { supported: [1] } });
  });
});
