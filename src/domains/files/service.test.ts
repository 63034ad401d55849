import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import { insertRemoteMapping } from '../../../test/support/remote-mappings.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import { KgateError } from '../../kernel/errors.ts';
import { MAX_FILE_BYTES, type FileChange, type FilesService } from './contract.ts';
import { createFilesService, fileHash } from './service.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest of a png')]);
const CANVAS = Buffer.from('{"nodes":[],"edges":[]}\n');

async function codeOf(work: () => Promise<unknown>): Promise<string> {
  try {
    await work();
  } catch (error) {
    if (error instanceof KgateError) return error.code;
    throw error;
  }
  return 'no error';
}

describe('files service', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let files: FilesService;
  let keyCount = 0;
  const key = () => `key-${(keyCount += 1)}`;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase());
    files = createFilesService(db, services.vaults, { idempotency: services.idempotency, maxVaultBytes: 4096 });
  });
  afterAll(() => db.close());

  const snapshot = async () =>
    JSON.stringify([
      await db.query('SELECT path, content, content_hash FROM vault_files ORDER BY path'),
      await db.query('SELECT id, original_path, restored_at FROM vault_file_trash ORDER BY id'),
      await db.query('SELECT kind, path FROM provenance_events ORDER BY seq'),
    ]);
  const apply = (changes: FileChange[], mappingId = owner.mapping.id, actor = owner.actor) =>
    files.change({ actor, mappingId, changes, dryRun: false, idempotencyKey: key() });

  it('creates, previews, updates, deletes to the trash and restores, with a provenance event per change', async () => {
    const preview = await files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes: [{ type: 'write-file', path: 'img/a.png', content: PNG }], dryRun: true });
    expect(preview.results).toEqual([{ path: 'img/a.png', status: 'create', beforeHash: null, afterHash: fileHash(PNG) }]);
    expect(await db.query('SELECT 1 FROM vault_files')).toEqual([]);

    const created = await apply([
      { type: 'write-file', path: 'img/a.png', content: PNG },
      { type: 'write-file', path: 'Board.canvas', content: CANVAS },
    ]);
    expect(created.results.map((r) => r.status)).toEqual(['create', 'create']);
    const read = await files.readFile(owner.actor, owner.mapping.id, 'IMG/A.png');
    expect(read).toMatchObject({ path: 'img/a.png', kind: 'attachment', mediaType: 'image/png', size: PNG.length, contentHash: fileHash(PNG) });
    expect(read.content.equals(PNG)).toBe(true);
    expect((await files.readFile(owner.actor, owner.mapping.id, 'Board.canvas')).kind).toBe('canvas');

    // A preview may leave the hash out and learns it; a preview of a delete names no trash entry.
    const replacing = await files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes: [{ type: 'write-file', path: 'img/a.png', content: CANVAS }], dryRun: true });
    expect(replacing.results).toEqual([{ path: 'img/a.png', status: 'update', beforeHash: fileHash(PNG), afterHash: fileHash(CANVAS) }]);
    const deleting = await files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes: [{ type: 'delete-file', path: 'img/a.png', expectedHash: fileHash(PNG) }], dryRun: true });
    expect(deleting.results).toEqual([{ path: 'img/a.png', status: 'delete', beforeHash: fileHash(PNG), afterHash: null }]);
    const same = await apply([{ type: 'write-file', path: 'img/a.png', content: PNG, expectedHash: fileHash(PNG) }]);
    expect(same.results[0]!.status).toBe('no-op');
    const changed = Buffer.concat([PNG, Buffer.from('more')]);
    expect((await apply([{ type: 'write-file', path: 'img/a.png', content: changed, expectedHash: fileHash(PNG) }])).results[0]!.status).toBe('update');

    const deleted = await apply([{ type: 'delete-file', path: 'img/a.png', expectedHash: fileHash(changed) }]);
    const trashId = deleted.results[0]!.trashId!;
    expect(await codeOf(() => files.readFile(owner.actor, owner.mapping.id, 'img/a.png'))).toBe('not_found');
    expect((await files.listTrash(owner.actor, owner.mapping.id)).map((t) => t.originalPath)).toEqual(['img/a.png']);
    expect((await apply([{ type: 'restore-file', trashId }])).results[0]).toMatchObject({ status: 'restore', path: 'img/a.png', afterHash: fileHash(changed) });
    expect((await files.readFile(owner.actor, owner.mapping.id, 'img/a.png')).content.equals(changed)).toBe(true);
    expect(await files.listTrash(owner.actor, owner.mapping.id)).toEqual([]);

    const kinds = await db.query<{ kind: string; path: string }>("SELECT kind, path FROM provenance_events WHERE kind LIKE 'file.%' ORDER BY seq");
    expect(kinds.map((e) => `${e.kind} ${e.path}`)).toEqual([
      'file.created img/a.png',
      'file.created Board.canvas',
      'file.updated img/a.png',
      'file.deleted img/a.png',
      'file.restored img/a.png',
    ]);
    const page = await files.listFiles(owner.actor, owner.mapping.id, { limit: 1 });
    expect(page).toMatchObject({ files: [{ path: 'Board.canvas' }], nextAfter: 'Board.canvas' });
    expect(await files.listFiles(owner.actor, owner.mapping.id, { after: 'Board.canvas' })).toMatchObject({ files: [{ path: 'img/a.png' }], nextAfter: null });
  });

  it('replays a retry under the same key and refuses the key with other bytes', async () => {
    const changes: FileChange[] = [{ type: 'write-file', path: 'replay.bin', content: Buffer.from([0, 1, 2]) }];
    const first = await files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes, dryRun: false, idempotencyKey: 'same-key' });
    const again = await files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes, dryRun: false, idempotencyKey: 'same-key' });
    expect(again).toEqual({ results: first.results, replayed: true });
    const other: FileChange[] = [{ type: 'write-file', path: 'replay.bin', content: Buffer.from([9]) }];
    expect(await codeOf(() => files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes: other, dryRun: false, idempotencyKey: 'same-key' }))).toBe('idempotency_key_reused');
  });

  it('refuses bad changes with stable codes and changes nothing', async () => {
    const current = await files.readFile(owner.actor, owner.mapping.id, 'Board.canvas');
    const stranger = await createOwner(services, 'stranger');
    await services.notes.importNotes(owner.actor, owner.mapping.id, [{ path: 'Docs/Guide.md', content: '# Guide\n' }]);
    const before = await snapshot();
    const refusals: [string, () => Promise<unknown>][] = [
      ['invalid_path', () => apply([{ type: 'write-file', path: '.obsidian/app.json', content: CANVAS }])],
      ['invalid_path', () => apply([{ type: 'write-file', path: 'Note.md', content: CANVAS }])],
      ['invalid_path', () => apply([{ type: 'write-file', path: '../x.png', content: CANVAS }])],
      ['invalid_path', () => apply([{ type: 'write-file', path: 'a:b.png', content: CANVAS }])],
      ['payload_too_large', () => apply([{ type: 'write-file', path: 'big.bin', content: Buffer.alloc(MAX_FILE_BYTES + 1) }])],
      ['vault_storage_exhausted', () => apply([{ type: 'write-file', path: 'fill.bin', content: Buffer.alloc(4096) }])],
      ['precondition_required', () => apply([{ type: 'write-file', path: 'Board.canvas', content: PNG }])],
      ['stale_revision', () => apply([{ type: 'write-file', path: 'Board.canvas', content: PNG, expectedHash: fileHash(PNG) }])],
      ['stale_revision', () => apply([{ type: 'delete-file', path: 'Board.canvas', expectedHash: fileHash(PNG) }])],
      ['stale_revision', () => apply([{ type: 'write-file', path: 'new.bin', content: PNG, expectedHash: current.contentHash }])],
      ['not_found', () => apply([{ type: 'delete-file', path: 'missing.png', expectedHash: current.contentHash }])],
      ['not_found', () => apply([{ type: 'restore-file', trashId: '00000000-0000-7000-8000-000000000000' }])],
      // A folder tree holds a name once: a file named like a folder of other files, or one under a file's name.
      ['conflict', () => apply([{ type: 'write-file', path: 'img', content: PNG }])],
      ['conflict', () => apply([{ type: 'write-file', path: 'IMG/a.png/inner.bin', content: PNG }])],
      ['conflict', () => apply([{ type: 'write-file', path: 'Board.canvas/x.png', content: PNG }])],
      ['conflict', () => apply([{ type: 'write-file', path: 'docs', content: PNG }])],
      ['conflict', () => apply([{ type: 'write-file', path: 'new', content: PNG }, { type: 'write-file', path: 'New/x.png', content: PNG }])],
      ['conflict', () => apply([{ type: 'write-file', path: 'Docs/Guide.md/x.png', content: PNG }])],
      ['invalid_request', () => apply([])],
      ['invalid_request', () => apply([{ type: 'write-file', path: 'dup.bin', content: PNG }, { type: 'write-file', path: 'DUP.bin', content: PNG }])],
      // Atomic: the first change is fine, the second refused, neither is applied.
      ['stale_revision', () => apply([{ type: 'write-file', path: 'ok.bin', content: PNG }, { type: 'delete-file', path: 'Board.canvas', expectedHash: fileHash(PNG) }])],
      ['idempotency_key_required', () => files.change({ actor: owner.actor, mappingId: owner.mapping.id, changes: [{ type: 'write-file', path: 'k.bin', content: PNG }], dryRun: false })],
      ['not_found', () => apply([{ type: 'write-file', path: 'x.bin', content: PNG }], owner.mapping.id, stranger.actor)],
      ['not_found', () => files.readFile(stranger.actor, owner.mapping.id, 'Board.canvas')],
      ['invalid_path', () => files.readFile(owner.actor, owner.mapping.id, '.obsidian/app.json')],
    ];
    const codes: string[] = [];
    for (const [, work] of refusals) codes.push(await codeOf(work));
    expect(codes).toEqual(refusals.map(([code]) => code));
    expect(await snapshot()).toBe(before);
  });

  it('follows the mapping: read-only, device-encrypted and approval policies refuse changes', async () => {
    const other = await createOwner(services, 'flags');
    const changes: FileChange[] = [{ type: 'write-file', path: 'x.bin', content: PNG }];
    const before = await snapshot();
    await services.vaults.updateMappingFlags(other.mapping.id, { readOnly: true });
    expect(await codeOf(() => apply(changes, other.mapping.id, other.actor))).toBe('mapping_read_only');
    await services.vaults.updateMappingFlags(other.mapping.id, { readOnly: false, deviceEncrypted: true });
    expect(await codeOf(() => apply(changes, other.mapping.id, other.actor))).toBe('device_encrypted');
    expect(await codeOf(() => files.importFiles(other.actor, other.mapping.id, [{ path: 'x.bin', content: PNG }]))).toBe('device_encrypted');
    await services.vaults.updateMappingFlags(other.mapping.id, { deviceEncrypted: false, approvalPolicy: 'preview-first' });
    expect(await codeOf(() => apply(changes, other.mapping.id, other.actor))).toBe('approval_required');
    expect(await snapshot()).toBe(before);
    // A person on the workspace pages is the approval.
    const person = await files.change({ actor: other.actor, mappingId: other.mapping.id, changes, dryRun: false, idempotencyKey: key(), capability: 'person' });
    expect(person.results[0]!.status).toBe('create');
  });

  it('refuses every call on a remote mapping with unavailable: its files live at the provider', async () => {
    const other = await createOwner(services, 'remote');
    const remote = await insertRemoteMapping(db, { accountId: other.accountId, workspaceId: other.workspaceId, provider: 'dropbox', root: { kind: 'dropbox', path: '/vault' }, canWrite: true, allowMcpNoteChanges: true });
    const before = await snapshot();
    const calls: (() => Promise<unknown>)[] = [
      () => files.listFiles(other.actor, remote.id),
      () => files.readFile(other.actor, remote.id, 'a.png'),
      () => files.listTrash(other.actor, remote.id),
      () => files.change({ actor: other.actor, mappingId: remote.id, changes: [{ type: 'write-file', path: 'a.png', content: PNG }], dryRun: true }),
      () => apply([{ type: 'write-file', path: 'a.png', content: PNG }], remote.id, other.actor),
      () => files.importFiles(other.actor, remote.id, [{ path: 'a.png', content: PNG }]),
    ];
    const codes: string[] = [];
    for (const call of calls) codes.push(await codeOf(call));
    expect(codes).toEqual(calls.map(() => 'unavailable'));
    expect(await snapshot()).toBe(before);
  });

  it('counts the ceiling under the vault lock: of two concurrent applies that each fit alone, one is refused', async () => {
    const other = await createOwner(services, 'ceiling');
    const small = createFilesService(db, services.vaults, { idempotency: services.idempotency, maxVaultBytes: 3000 });
    const write = (path: string) => small.change({ actor: other.actor, mappingId: other.mapping.id, changes: [{ type: 'write-file', path, content: Buffer.alloc(2000, 1) }], dryRun: false, idempotencyKey: key() });
    const settled = await Promise.allSettled([write('one.bin'), write('two.bin')]);
    const outcomes = settled.map((s) => (s.status === 'fulfilled' ? 'create' : s.reason instanceof KgateError ? s.reason.code : 'other')).sort();
    expect(outcomes).toEqual(['create', 'vault_storage_exhausted']);
    expect(await db.query('SELECT count(*)::int AS n FROM vault_files WHERE vault_id = $1', [other.mapping.vaultId])).toEqual([{ n: 1 }]);
  });

  it('imports a batch: creates, reports unchanged, updates, and rejects what it cannot store', async () => {
    const other = await createOwner(services, 'import');
    const batch = [
      { path: 'Canvas.canvas', content: CANVAS },
      { path: 'img/pic.png', content: PNG },
      { path: '.obsidian/workspace.json', content: CANVAS },
      { path: 'huge.bin', content: Buffer.alloc(4080) },
    ];
    const result = await files.importFiles(other.actor, other.mapping.id, batch);
    expect(result).toMatchObject({ created: 2, updated: 0, unchanged: 0 });
    expect(result.rejected.map((r) => `${r.path} ${r.code}`)).toEqual(['.obsidian/workspace.json invalid_path', 'huge.bin vault_storage_exhausted']);
    expect(await files.importFiles(other.actor, other.mapping.id, batch.slice(0, 2))).toEqual({ created: 0, updated: 0, unchanged: 2, rejected: [] });
    const dry = await files.importFiles(other.actor, other.mapping.id, [{ path: 'img/pic.png', content: CANVAS }], { dryRun: true });
    expect(dry).toMatchObject({ updated: 1 });
    expect((await files.readFile(other.actor, other.mapping.id, 'img/pic.png')).content.equals(PNG)).toBe(true);
    const pages = [];
    for await (const page of files.iterateFiles(other.actor, other.mapping.id)) pages.push(...page.map((f) => f.path));
    expect(pages).toEqual(['Canvas.canvas', 'img/pic.png']);
  });
});
