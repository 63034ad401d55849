import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDomainDatabase } from '../../../test/support/domain-database.ts';
import { createOwner, type Owner } from '../../../test/support/fixtures.ts';
import type { Services } from '../../app/services.ts';
import type { Database } from '../../db/port.ts';
import { createFilesService, type FilesService } from '../../domains/files/index.ts';
import { folderFiles, folderFilesSection } from './folder-files.ts';

describe('the canvases and attachments of a vault folder', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let files: FilesService;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase('folder-files'));
    files = createFilesService(db, services.vaults, { idempotency: services.idempotency });
    const content = Buffer.from('x');
    const paths = ['root.pdf', 'a.png', 'a/one.pdf', 'a/b/deep.pdf', 'a/b/c/deeper.pdf', 'a/two.mp3', 'a.b/other.pdf', 'a0/after.pdf', 'Board.canvas'];
    expect((await files.importFiles(owner.actor, owner.mapping.id, paths.map((path) => ({ path, content })))).rejected).toEqual([]);
  });
  afterAll(() => db.close());

  const listing = async (folder: string) => {
    const found = await folderFiles(files, owner.actor, owner.mapping.id, folder);
    return { files: found.files.map((f) => f.path), folders: found.folders, truncated: found.truncated };
  };

  it('lists the files directly in a folder and the subfolders that hold files, never a neighbour of a similar name', async () => {
    expect(await listing('')).toEqual({ files: ['Board.canvas', 'a.png', 'root.pdf'], folders: ['a', 'a.b', 'a0'], truncated: false });
    expect(await listing('a')).toEqual({ files: ['a/one.pdf', 'a/two.mp3'], folders: ['a/b'], truncated: false });
    expect(await listing('a/b')).toEqual({ files: ['a/b/deep.pdf'], folders: ['a/b/c'], truncated: false });
    expect(await listing('none')).toEqual({ files: [], folders: [], truncated: false });
  });

  it('renders a section with links to the files and folders, and nothing for a folder without files', async () => {
    const section = String(await folderFilesSection(files, owner.actor, owner.mapping.id, 'a'));
    expect(section).toContain(`<a href="/workspace/vaults/${owner.mapping.id}/file/a/one.pdf">one.pdf</a>`);
    expect(section).toContain(`<a href="/workspace/vaults/${owner.mapping.id}?folder=a%2Fb">b/</a>`);
    expect(section).toContain('application/pdf, 1 bytes');
    expect(await folderFilesSection(files, owner.actor, owner.mapping.id, 'none')).toBe('');
  });

  it('is empty for a device-encrypted vault, whose files the server cannot hold', async () => {
    const sealed = await createOwner(services, 'folder-files-sealed');
    await db.query('UPDATE mappings SET device_encrypted = true WHERE id = $1', [sealed.mapping.id]);
    expect(await folderFilesSection(files, sealed.actor, sealed.mapping.id, '')).toBe('');
  });

  it('reads another person\'s vault as not found', async () => {
    const stranger = await createOwner(services, 'folder-files-stranger');
    await expect(folderFiles(files, stranger.actor, owner.mapping.id, '')).rejects.toMatchObject({ code: 'not_found' });
  });
});
