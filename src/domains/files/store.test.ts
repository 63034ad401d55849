import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import type { Owner } from '../../../test/support/fixtures.ts';
import type { Database } from '../../db/port.ts';
import { newId } from '../../kernel/ids.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import * as store from './store.ts';

describe('files store', () => {
  let db: Database;
  let owner: Owner;
  beforeAll(async () => {
    ({ db, owner } = await openDomainDatabase());
  });
  afterAll(() => db.close());

  const write = (path: string, content: Buffer): store.FileWrite => ({
    path,
    pathKey: path.toLowerCase(),
    kind: path.endsWith('.canvas') ? 'canvas' : 'attachment',
    mediaType: 'application/octet-stream',
    content,
    contentHash: `sha256:${sha256Hex(content)}`,
    size: content.length,
  });

  it('stores bytes exactly, lists in path order, finds by name, trashes and restores', async () => {
    const vaultId = owner.mapping.vaultId;
    const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    await store.upsertFile(db, vaultId, newId(), write('img/b.png', every));
    await store.upsertFile(db, vaultId, newId(), write('a.canvas', Buffer.from('{}')));
    await store.upsertFile(db, vaultId, newId(), write('Other/B.PNG', Buffer.alloc(0)));
    const read = await store.readFileByKey(db, vaultId, 'img/b.png');
    expect(read?.content.equals(every)).toBe(true);
    expect((await store.readFileByKey(db, vaultId, 'other/b.png'))?.content.length).toBe(0);
    expect((await store.listFileSummaries(db, vaultId, { limit: 10 })).map((f) => f.path)).toEqual(['Other/B.PNG', 'a.canvas', 'img/b.png']);
    expect((await store.listFileSummaries(db, vaultId, { kind: 'canvas', limit: 10 })).map((f) => f.path)).toEqual(['a.canvas']);
    expect((await store.listFileSummaries(db, vaultId, { after: 'a.canvas', limit: 10 })).map((f) => f.path)).toEqual(['img/b.png']);
    expect((await store.findFilesByName(db, vaultId, 'b.png')).map((f) => f.path)).toEqual(['Other/B.PNG', 'img/b.png']);
    expect(await store.findFilesByName(db, vaultId, 'png')).toEqual([]);
    // Names and folders outside the Basic Multilingual Plane: characters, not UTF-16 units.
    await store.upsertFile(db, vaultId, newId(), write('\u{1F600} folder/\u{1F4F7}.png', Buffer.from('x')));
    expect((await store.findFilesByName(db, vaultId, '\u{1F4F7}.png')).map((f) => f.path)).toEqual(['\u{1F600} folder/\u{1F4F7}.png']);
    expect(await store.findFolderClash(db, vaultId, '\u{1F600} folder')).toBe('\u{1F600} folder/\u{1F4F7}.png');
    expect(await store.findFolderClash(db, vaultId, '\u{1F600} folder/\u{1F4F7}.png/x')).toBe('\u{1F600} folder/\u{1F4F7}.png');
    expect(await store.findFolderClash(db, vaultId, '\u{1F600} fold')).toBeUndefined();
    await db.query('DELETE FROM vault_files WHERE vault_id = $1 AND size = 1', [vaultId]);
    expect(await store.totalFileBytes(db, vaultId)).toBe(258);
    const trashId = newId();
    expect(await store.trashFile(db, vaultId, 'img/b.png', trashId, owner.accountId)).toBe(true);
    expect(await store.readFileByKey(db, vaultId, 'img/b.png')).toBeUndefined();
    const trashed = await store.findTrashed(db, vaultId, trashId);
    expect(trashed?.content.equals(every)).toBe(true);
    expect((await store.listTrash(db, vaultId, 10)).map((t) => t.originalPath)).toEqual(['img/b.png']);
  });
});
