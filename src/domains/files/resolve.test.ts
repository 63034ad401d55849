import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import { sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { resolveFileTarget, resolveFileTargets } from './resolve.ts';
import * as store from './store.ts';

describe('embed resolution to stored files', () => {
  let db: Database;
  let owner: Owner;
  let services: Services;
  let vaultId: string;

  const put = async (path: string, mediaType = 'image/png') => {
    const content = Buffer.from(path);
    await store.upsertFile(db, vaultId, newId(), {
      path,
      pathKey: path.toLowerCase(),
      kind: path.endsWith('.canvas') ? 'canvas' : 'attachment',
      mediaType,
      content,
      contentHash: `sha256:${sha256Hex(content)}`,
      size: content.length,
    });
  };

  beforeAll(async () => {
    ({ db, owner, services } = await openDomainDatabase());
    vaultId = owner.mapping.vaultId;
    for (const path of ['a.png', 'img/a.png', 'deep/er/a.png', 'img/only.png', 'Docs/Report.PDF', 'board.canvas', 'x/dup.png', 'y/dup.png', 'LICENSE']) {
      await put(path);
    }
  });
  afterAll(() => db.close());

  const resolve = async (target: string, source = 'notes/n.md') => (await resolveFileTarget(db, vaultId, source, target))?.path;

  it('an exact path wins, with or without a leading slash; case and NFC do not matter', async () => {
    expect(await resolve('img/a.png')).toBe('img/a.png');
    expect(await resolve('/img/a.png')).toBe('img/a.png');
    expect(await resolve('docs/report.pdf')).toBe('Docs/Report.PDF');
    expect(await resolve('  IMG/A.PNG ')).toBe('img/a.png');
  });

  it('a bare name finds the file of that name: in the note\'s folder first, else the one with the fewest folders', async () => {
    expect(await resolve('a.png')).toBe('a.png');
    expect(await resolve('a.png', 'img/note.md')).toBe('img/a.png');
    expect(await resolve('a.png', 'deep/er/note.md')).toBe('deep/er/a.png');
    expect(await resolve('only.png')).toBe('img/only.png');
    expect(await resolve('board.canvas')).toBe('board.canvas');
    expect(await resolve('LICENSE')).toBe('LICENSE');
    // Two files of one name, same depth: the shorter, then the smaller path, every time.
    expect(await resolve('dup.png')).toBe('x/dup.png');
  });

  it('a partial path matches the files whose path ends with it', async () => {
    expect(await resolve('er/a.png')).toBe('deep/er/a.png');
    expect(await resolve('y/dup.png')).toBe('y/dup.png');
  });

  it('relative targets are relative to the note and never climb above the root', async () => {
    expect(await resolve('./a.png', 'img/note.md')).toBe('img/a.png');
    expect(await resolve('../img/only.png', 'deep/note.md')).toBe('img/only.png');
    expect(await resolve('../../a.png', 'note.md')).toBeUndefined();
  });

  it('names nothing for missing files, notes, empty targets and near misses', async () => {
    expect(await resolve('missing.png')).toBeUndefined();
    expect(await resolve('a')).toBeUndefined();
    expect(await resolve('')).toBeUndefined();
    expect(await resolve('png')).toBeUndefined();
    expect(await resolve('zz/a.png')).toBeUndefined();
    expect(await resolve('n.md')).toBeUndefined();
  });

  it('resolves many targets in one call, with the kind and media type of each', async () => {
    const found = await resolveFileTargets(db, vaultId, 'n.md', ['a.png', 'board.canvas', 'missing.png', 'Report.pdf']);
    expect([...found.keys()].sort()).toEqual(['Report.pdf', 'a.png', 'board.canvas']);
    expect(found.get('board.canvas')).toMatchObject({ path: 'board.canvas', kind: 'canvas' });
    expect(found.get('Report.pdf')).toMatchObject({ path: 'Docs/Report.PDF', kind: 'attachment', mediaType: 'image/png', size: 15 });
  });

  it('another vault\'s files are never candidates', async () => {
    const other = await createOwner(services, 'other');
    expect(await resolveFileTarget(db, other.mapping.vaultId, 'n.md', 'a.png')).toBeUndefined();
    expect(await resolveFileTarget(db, other.mapping.vaultId, 'n.md', 'img/a.png')).toBeUndefined();
  });
});
