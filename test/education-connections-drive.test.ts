import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRIVE_IMPORT_CEILINGS, MAX_DRIVE_WRITE_BYTES } from '../src/domains/education/index.ts';
import type { LoggedRequest } from './fakes/drive/index.ts';
import {
  callConnections,
  connect,
  connectionsChain,
  connectionTables,
  plainTokens,
  startConnectionsGateway,
  type ConnectionsGateway,
} from './support/education-connections.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import type { RuntimeAnswer } from './support/runtime-gateway.ts';

// Spec 4.7 and 7.7, docs/education.md "Drive": retry-safe create and update carrying the last observed version (a
// mismatch is a conflict and never an overwrite), and a bounded import of a picked folder, each bound with its own
// answer. Refusals write nothing at Drive and store nothing.

interface FileView {
  id: string;
  name: string;
  mimeType: string;
  version: string;
  size: number;
  parentIds: string[];
}
interface Written {
  file: FileView;
  sha256: string;
  recovered: boolean;
}
interface Imported {
  folder: { id: string; name: string };
  files: Array<FileView & { path: string; sha256: string; contentBase64: string }>;
  requests: number;
}

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

let gateway: ConnectionsGateway;
let chain: Awaited<ReturnType<typeof connectionsChain>>;
let connectionId: string;

beforeAll(async () => {
  gateway = await startConnectionsGateway();
  chain = await connectionsChain(gateway, 'drive');
  connectionId = await connect(gateway, chain, ['drive']);
});

afterAll(async () => {
  await gateway?.stop();
});

function create(body: Record<string, unknown>, key: string | null = randomUUID(), token = chain.token, id = connectionId): Promise<RuntimeAnswer<Written>> {
  return callConnections<Written>(gateway, token, 'POST', `/${id}/drive/files`, { json: body, headers: { 'Idempotency-Key': key } });
}

function update(fileId: string, body: Record<string, unknown>, key: string | null = randomUUID(), token = chain.token, id = connectionId): Promise<RuntimeAnswer<Written>> {
  return callConnections<Written>(gateway, token, 'POST', `/${id}/drive/files/${fileId}`, { json: body, headers: { 'Idempotency-Key': key } });
}

function importFolder(body: Record<string, unknown>, token = chain.token, id = connectionId): Promise<RuntimeAnswer<Imported>> {
  return callConnections<Imported>(gateway, token, 'POST', `/${id}/drive/imports`, { json: body });
}

/** What Drive holds, as JSON, for "nothing changed" assertions. */
function driveState(): string {
  return JSON.stringify(gateway.google.store.all().map((f) => [f.id, f.name, f.version, f.trashed, f.content.toString('base64')]));
}

const named = (name: string) => gateway.google.store.all().filter((f) => f.name === name && !f.trashed);
const isCreate = (r: LoggedRequest) => r.method === 'POST' && r.path === '/upload/drive/v3/files';
const isUpdate = (r: LoggedRequest) => r.method === 'PATCH' && r.path.startsWith('/upload/drive/v3/files/');

describe('creating a Drive file', () => {
  it('creates once per key: a replay answers the same file', async () => {
    const key = randomUUID();
    const body = { name: 'Week 3 plan.md', mimeType: 'text/markdown', content: '# Week 3\n' };
    const first = await create(body, key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({ kind: 'service.drive-file', status: 'ok' });
    const stored = gateway.google.store.get(first.body.data.file.id)!;
    expect(stored.content.toString()).toBe('# Week 3\n');
    expect(stored.parents).toEqual([gateway.google.rootId]);
    expect(first.body.data).toEqual({
      file: { id: stored.id, name: 'Week 3 plan.md', mimeType: 'text/markdown', version: String(stored.version), size: 9, modifiedTime: stored.modifiedTime, parentIds: [gateway.google.rootId] },
      sha256: sha256('# Week 3\n'),
      recovered: false,
    });
    const replay = await create(body, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    expect(named('Week 3 plan.md')).toHaveLength(1);
    const reused = await create({ ...body, content: 'other' }, key);
    expectRuntimeProblem(reused, 422, 'idempotency_key_reused');
    expect(named('Week 3 plan.md')).toHaveLength(1);
  });

  it('a retry after a lost answer finds the file the first attempt created: one file', async () => {
    const key = randomUUID();
    const body = { name: 'Lost answer.txt', mimeType: 'text/plain', content: 'aGVsbG8=', encoding: 'base64' };
    gateway.google.loseNextAnswer(isCreate);
    const lost = await create(body, key);
    expectRuntimeProblem(lost, 502, 'provider_unavailable');
    expect(named('Lost answer.txt')).toHaveLength(1);
    const retry = await create(body, key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.data).toMatchObject({ recovered: true, sha256: sha256('hello'), file: { id: named('Lost answer.txt')[0]!.id } });
    expect(named('Lost answer.txt')).toHaveLength(1);
    expect(named('Lost answer.txt')[0]!.content.toString()).toBe('hello');
  });

  it('writes into a folder the user picked, and finds no folder it may not see', async () => {
    const picked = gateway.google.device.folder('Class/Picked');
    const hidden = gateway.google.device.folder('Class/Hidden');
    gateway.google.pick(picked.id);
    const into = await create({ name: 'in-picked.md', mimeType: 'text/markdown', content: 'x', parentId: picked.id });
    expect(into.status).toBe(200);
    expect(into.body.data.file.parentIds).toEqual([picked.id]);
    const before = driveState();
    expectRuntimeProblem(await create({ name: 'in-hidden.md', mimeType: 'text/markdown', content: 'x', parentId: hidden.id }), 404, 'not_found');
    expect(driveState()).toBe(before);
  });

  it('takes at most the byte bound: the bound itself is written, one byte more is refused', async () => {
    const exact = Buffer.alloc(MAX_DRIVE_WRITE_BYTES, 7);
    const written = await create({ name: 'exact.bin', mimeType: 'application/octet-stream', content: exact.toString('base64'), encoding: 'base64' });
    expect(written.status).toBe(200);
    expect(written.body.data.file.size).toBe(MAX_DRIVE_WRITE_BYTES);
    const before = driveState();
    const tables = await connectionTables(gateway);
    const over = await create({ name: 'over.bin', mimeType: 'application/octet-stream', content: Buffer.alloc(MAX_DRIVE_WRITE_BYTES + 1, 7).toString('base64'), encoding: 'base64' });
    expect(expectRuntimeProblem(over, 413, 'payload_too_large').details).toEqual({ limit: MAX_DRIVE_WRITE_BYTES });
    expect(driveState()).toBe(before);
    expect(await connectionTables(gateway)).toBe(tables);
  });

  it('refuses malformed writes and a missing key, writing nothing', async () => {
    const before = driveState();
    const tables = await connectionTables(gateway);
    expectRuntimeProblem(await create({ name: 'k.md', mimeType: 'text/markdown', content: 'x' }, null), 400, 'idempotency_key_required');
    for (const body of [
      { name: '', mimeType: 'text/plain', content: 'x' },
      { name: 'a\u0007b', mimeType: 'text/plain', content: 'x' },
      { name: 'doc', mimeType: 'application/vnd.google-apps.document', content: 'x' },
      { name: 'doc', mimeType: 'not a type', content: 'x' },
      { name: 'doc', mimeType: 'text/plain', content: '!!notbase64', encoding: 'base64' },
      { name: 'doc', mimeType: 'text/plain', content: 'x', parentId: '../etc' },
      { name: 'doc', mimeType: 'text/plain', content: 'x', owners: ['someone'] },
    ]) {
      expectRuntimeProblem(await create(body), 400, 'invalid_request');
    }
    expect(driveState()).toBe(before);
    expect(await connectionTables(gateway)).toBe(tables);
  });
});

describe('updating a Drive file', () => {
  async function fresh(name: string, content = 'v1'): Promise<FileView> {
    const made = await create({ name, mimeType: 'text/plain', content });
    expect(made.status).toBe(200);
    return made.body.data.file;
  }

  it('replaces the bytes while the file is at the version carried, and answers the new version', async () => {
    const file = await fresh('update-ok.txt');
    const answer = await update(file.id, { expectedVersion: file.version, content: 'v2' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const stored = gateway.google.store.get(file.id)!;
    expect(stored.content.toString()).toBe('v2');
    expect(answer.body.data).toMatchObject({ file: { id: file.id, version: String(stored.version), size: 2 }, sha256: sha256('v2'), recovered: false });
    expect(answer.body.data.file.version).not.toBe(file.version);
  });

  it('answers conflict on a stale version and overwrites nothing', async () => {
    const file = await fresh('update-stale.txt');
    // Another device (the teacher in Drive) changes the file after the product read it.
    gateway.google.store.updateContent(gateway.google.store.get(file.id)!, Buffer.from('edited in Drive'));
    const before = driveState();
    const updates = gateway.google.requests.filter(isUpdate).length;
    const stale = await update(file.id, { expectedVersion: file.version, content: 'product bytes' });
    const problem = expectRuntimeProblem(stale, 409, 'conflict');
    expect(problem.details).toEqual({ expectedVersion: file.version, currentVersion: String(gateway.google.store.get(file.id)!.version) });
    expect(gateway.google.store.get(file.id)!.content.toString()).toBe('edited in Drive');
    expect(driveState()).toBe(before);
    expect(gateway.google.requests.filter(isUpdate).length).toBe(updates);
    // With the current version it goes through.
    const current = await update(file.id, { expectedVersion: problem.details!.currentVersion, content: 'product bytes' });
    expect(current.status).toBe(200);
    expect(gateway.google.store.get(file.id)!.content.toString()).toBe('product bytes');
  });

  it('a retry after a lost answer finds its own bytes there and writes nothing again', async () => {
    const file = await fresh('update-lost.txt');
    const key = randomUUID();
    gateway.google.loseNextAnswer(isUpdate);
    expectRuntimeProblem(await update(file.id, { expectedVersion: file.version, content: 'landed' }, key), 502, 'provider_unavailable');
    expect(gateway.google.store.get(file.id)!.content.toString()).toBe('landed');
    const updates = gateway.google.requests.filter(isUpdate).length;
    const retry = await update(file.id, { expectedVersion: file.version, content: 'landed' }, key);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect(retry.body.data).toMatchObject({ recovered: true, sha256: sha256('landed'), file: { version: String(gateway.google.store.get(file.id)!.version) } });
    expect(gateway.google.requests.filter(isUpdate).length).toBe(updates);
    // Another device wrote after the lost answer: the retry does not take its bytes for its own, nor overwrite them.
    const other = await fresh('update-lost-raced.txt');
    const racedKey = randomUUID();
    gateway.google.loseNextAnswer(isUpdate);
    await update(other.id, { expectedVersion: other.version, content: 'mine' }, racedKey);
    gateway.google.store.updateContent(gateway.google.store.get(other.id)!, Buffer.from('theirs'));
    expectRuntimeProblem(await update(other.id, { expectedVersion: other.version, content: 'mine' }, racedKey), 409, 'conflict');
    expect(gateway.google.store.get(other.id)!.content.toString()).toBe('theirs');
  });

  it('does not reach a file the app may not see, nor a folder', async () => {
    const hidden = gateway.google.device.put('Private/secret.md', 'secret');
    const folder = gateway.google.device.folder('Private/Picked folder');
    gateway.google.pick(folder.id);
    const before = driveState();
    expectRuntimeProblem(await update(hidden.id, { expectedVersion: String(hidden.version), content: 'x' }), 404, 'not_found');
    expectRuntimeProblem(await update(folder.id, { expectedVersion: String(folder.version), content: 'x' }), 400, 'invalid_request');
    for (const body of [{ expectedVersion: 'v1', content: 'x' }, { content: 'x' }, { expectedVersion: '1', content: 'x', name: 'rename' }]) {
      expectRuntimeProblem(await update(hidden.id, body), 400, 'invalid_request');
    }
    expect(driveState()).toBe(before);
  });
});

describe('importing a picked folder', () => {
  let folderId: string;
  const contents: Record<string, string> = { 'a.md': 'alpha', 'sub/b.txt': 'bravo!', 'sub/deep/c.md': 'charlie.' };

  beforeAll(() => {
    for (const [path, text] of Object.entries(contents)) gateway.google.device.put(`Unit 4/${path}`, text);
    gateway.google.device.put('Unit 4/not-picked.md', 'never seen');
    const folder = gateway.google.device.file('Unit 4')!;
    folderId = folder.id;
    // The user picked the folder, its subfolders and the three files in Google Picker.
    for (const path of ['', '/sub', '/sub/deep', ...Object.keys(contents).map((p) => `/${p}`)]) gateway.google.pick(gateway.google.device.file(`Unit 4${path}`)!.id);
  });

  const total = () => Object.values(contents).reduce((sum, text) => sum + Buffer.byteLength(text), 0);

  it('lists and downloads every file the app may see, in path order, with versions', async () => {
    const answer = await importFolder({ folderId });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toMatchObject({ kind: 'service.drive-import', status: 'ok' });
    expect(answer.body.data.folder).toEqual({ id: folderId, name: 'Unit 4' });
    expect(answer.body.data.files.map((f) => f.path)).toEqual(['a.md', 'sub/b.txt', 'sub/deep/c.md']);
    for (const file of answer.body.data.files) {
      expect(Buffer.from(file.contentBase64, 'base64').toString()).toBe(contents[file.path]);
      expect(file.sha256).toBe(sha256(contents[file.path]!));
      expect(file.version).toBe(String(gateway.google.store.get(file.id)!.version));
    }
    expect(answer.body.data.requests).toBeGreaterThan(3);
  });

  it('holds each bound at its value and answers the bound one past it, with nothing partial', async () => {
    const ok = await importFolder({ folderId });
    const requests = ok.body.data.requests;
    const atBounds = await importFolder({ folderId, maxFiles: 3, maxBytes: total(), maxDepth: 2, maxRequests: requests });
    expect(atBounds.status, JSON.stringify(atBounds.body)).toBe(200);
    expect(atBounds.body.data.files).toHaveLength(3);
    const past: Array<[Record<string, unknown>, string, number]> = [
      [{ maxFiles: 2 }, 'files', 2],
      [{ maxBytes: total() - 1 }, 'bytes', total() - 1],
      [{ maxDepth: 1 }, 'depth', 1],
      [{ maxRequests: requests - 1 }, 'requests', requests - 1],
    ];
    for (const [limits, bound, limit] of past) {
      const answer = await importFolder({ folderId, ...limits });
      const problem = expectRuntimeProblem(answer, 503, 'provider_limit_reached');
      expect(problem.details, bound).toEqual({ bound, limit });
    }
  });

  it('stops at the wall-time bound', async () => {
    gateway.google.beforeNext((r) => r.query.get('alt') === 'media', () => gateway.clock.advance(DRIVE_IMPORT_CEILINGS.wallMs));
    try {
      const problem = expectRuntimeProblem(await importFolder({ folderId }), 503, 'provider_limit_reached');
      expect(problem.details).toEqual({ bound: 'wall_time', limit: DRIVE_IMPORT_CEILINGS.wallMs });
    } finally {
      gateway.clock.advance(-DRIVE_IMPORT_CEILINGS.wallMs);
    }
  });

  it('refuses bounds above the ceilings, and a folder the app may not see', async () => {
    for (const limits of [
      { maxFiles: DRIVE_IMPORT_CEILINGS.maxFiles + 1 },
      { maxBytes: DRIVE_IMPORT_CEILINGS.maxBytes + 1 },
      { maxDepth: DRIVE_IMPORT_CEILINGS.maxDepth + 1 },
      { maxRequests: DRIVE_IMPORT_CEILINGS.maxRequests + 1 },
      { maxFiles: 0 },
    ]) {
      expectRuntimeProblem(await importFolder({ folderId, ...limits }), 400, 'invalid_request');
    }
    const hidden = gateway.google.device.folder('Unit 5');
    expectRuntimeProblem(await importFolder({ folderId: hidden.id }), 404, 'not_found');
    const file = named('a.md').find((f) => f.parents.includes(folderId))!;
    expectRuntimeProblem(await importFolder({ folderId: file.id }), 404, 'not_found');
  });
});

describe('authority and the connection', () => {
  it('needs connections.execute for every Drive route: refused before anything is written or counted', async () => {
    const manageOnly = await connectionsChain(gateway, 'drive-manage-only', ['connections.manage']);
    const before = driveState();
    const tables = await connectionTables(gateway);
    const used = await usageOf(gateway, manageOnly.organization.id);
    const file = named('Week 3 plan.md')[0]!;
    for (const call of [
      () => create({ name: 'x.md', mimeType: 'text/markdown', content: 'x' }, randomUUID(), manageOnly.token),
      () => update(file.id, { expectedVersion: String(file.version), content: 'x' }, randomUUID(), manageOnly.token),
      () => importFolder({ folderId: 'root' }, manageOnly.token),
    ]) {
      const answer = await call();
      expect(expectRuntimeProblem(answer, 403, 'insufficient_scope').details).toEqual({ scope: 'connections.execute' });
      expect(answer.body.receipts).toEqual([]);
    }
    expect(await usageOf(gateway, manageOnly.organization.id)).toBe(used);
    expect(driveState()).toBe(before);
    expect(await connectionTables(gateway)).toBe(tables);
  });

  it("does not use another installation's connection", async () => {
    const other = await connectionsChain(gateway, 'drive-other');
    const before = driveState();
    const tables = await connectionTables(gateway);
    const file = named('Week 3 plan.md')[0]!;
    expectRuntimeProblem(await create({ name: 'theirs.md', mimeType: 'text/markdown', content: 'x' }, randomUUID(), other.token), 404, 'not_found');
    expectRuntimeProblem(await update(file.id, { expectedVersion: String(file.version), content: 'x' }, randomUUID(), other.token), 404, 'not_found');
    expectRuntimeProblem(await importFolder({ folderId: 'root' }, other.token), 404, 'not_found');
    expect(driveState()).toBe(before);
    expect(await connectionTables(gateway)).toBe(tables);
  });

  it('answers forbidden for a connection Google did not grant Drive, and provider_disconnected once disconnected', async () => {
    const classroomOnly = await connectionsChain(gateway, 'drive-classroom-only');
    const id = await connect(gateway, classroomOnly, ['classroom']);
    const problem = expectRuntimeProblem(await importFolder({ folderId: 'root' }, classroomOnly.token, id), 403, 'forbidden');
    expect(problem.details).toEqual({ service: 'drive', missingScopes: ['https://www.googleapis.com/auth/drive.file'] });
    const gone = await connectionsChain(gateway, 'drive-gone');
    const goneId = await connect(gateway, gone, ['drive']);
    await callConnections(gateway, gone.token, 'POST', `/${goneId}/disconnect`);
    const before = driveState();
    expectRuntimeProblem(await create({ name: 'late.md', mimeType: 'text/markdown', content: 'x' }, randomUUID(), gone.token, goneId), 409, 'provider_disconnected');
    expect(driveState()).toBe(before);
  });
});

describe('tokens and rate limits', () => {
  it('refreshes the access token a minute before it expires, and once after a 401', async () => {
    const own = await connectionsChain(gateway, 'drive-refresh');
    const id = await connect(gateway, own, ['drive']);
    const first = await plainTokens(gateway, id);
    const refreshes = () => gateway.google.requests.filter((r) => r.path === '/token').length;
    const before = refreshes();
    gateway.clock.advance(3599 * 1000 - 30 * 1000);
    try {
      const answer = await create({ name: 'after-refresh.md', mimeType: 'text/markdown', content: 'x' }, randomUUID(), own.token, id);
      expect(answer.status).toBe(200);
    } finally {
      gateway.clock.advance(-(3599 * 1000 - 30 * 1000));
    }
    expect(refreshes()).toBe(before + 1);
    const second = await plainTokens(gateway, id);
    expect(second.access).not.toBe(first.access);
    expect(second.refresh).toBe(first.refresh);
    // Google no longer accepts the stored token: one refresh, and the request again.
    gateway.google.expireAccessTokens();
    const after401 = await create({ name: 'after-401.md', mimeType: 'text/markdown', content: 'x' }, randomUUID(), own.token, id);
    expect(after401.status).toBe(200);
    expect(refreshes()).toBe(before + 2);
    expect(gateway.logs.join('\n')).not.toContain(second.access);
  });

  it('marks the connection revoked when Google refuses the refresh', async () => {
    const own = await connectionsChain(gateway, 'drive-revoked');
    const id = await connect(gateway, own, ['drive']);
    const tokens = await plainTokens(gateway, id);
    // The teacher removed the app at Google: its tokens stop working.
    gateway.google.expireAccessTokens();
    const revoke = await fetch(gateway.google.urls.revoke, { method: 'POST', body: new URLSearchParams({ token: tokens.refresh! }) });
    expect(revoke.status).toBe(200);
    expectRuntimeProblem(await importFolder({ folderId: 'root' }, own.token, id), 409, 'provider_disconnected');
    const status = await callConnections<{ status: string; lastError: string }>(gateway, own.token, 'GET', `/${id}`);
    expect(status.body.data.status).toBe('revoked');
    const [row] = await gateway.db.query<{ access_token_enc: string | null }>('SELECT access_token_enc FROM education_connections WHERE id = $1', [id]);
    expect(row!.access_token_enc).toBeNull();
  });

  it('waits out a short rate limit, and answers provider_rate_limited with Retry-After for a long one', async () => {
    const folder = gateway.google.device.folder('Rate limited');
    gateway.google.pick(folder.id);
    gateway.google.rateLimitNext(2, 0, '429');
    const waited = await importFolder({ folderId: folder.id });
    expect(waited.status, JSON.stringify(waited.body)).toBe(200);
    gateway.google.rateLimitNext(1, 120, '403');
    const limited = await importFolder({ folderId: folder.id });
    expect(expectRuntimeProblem(limited, 503, 'provider_rate_limited').details).toEqual({ retryAfterSeconds: 120 });
    expect(limited.headers.get('retry-after')).toBe('120');
  });
});
