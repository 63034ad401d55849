/**
 * `kgate import` and `kgate export` of a whole Obsidian vault (src/cli/import-folder.ts, export-folder.ts) with the
 * files service: notes, canvases, images, a PDF and audio go in and come back out byte for byte; `.obsidian/` and
 * other hidden entries are skipped on purpose and reported; a re-import reports everything unchanged.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Services } from '../src/app/services.ts';
import { describeExport, exportFolder } from '../src/cli/export-folder.ts';
import { describeImport, importFolder } from '../src/cli/import-folder.ts';
import type { Database } from '../src/db/port.ts';
import { createFilesService, MAX_FILE_BYTES, type FilesService } from '../src/domains/files/index.ts';
import type { Actor } from '../src/kernel/principal.ts';
import { listFiles } from './support/cli.ts';
import { openDomainDatabase } from './support/domain-database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(3000)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(2000)]);
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(5000), Buffer.from('\n%%EOF\n')]);
const MP3 = Buffer.concat([Buffer.from('ID3'), randomBytes(4000)]);
const CANVAS = '{\n\t"nodes":[{"id":"a","type":"file","file":"Notes/Plan.md","x":0,"y":0,"width":400,"height":400}],\n\t"edges":[]\n}';

/** The vault folder: what Obsidian would hold, with its settings folder and a few dot files. */
const VAULT: Record<string, string | Buffer> = {
  'Home.md': '# Home\n![[diagram.png]]\n![[Board.canvas]]\n',
  'Notes/Plan.md': '---\ntitle: Plan\n---\r\nCRLF body\r\n',
  'Notes/No newline.md': 'no trailing newline',
  'Board.canvas': CANVAS,
  'Attachments/diagram.png': PNG,
  'Attachments/Photo élan.jpg': JPEG,
  'Papers/report.pdf': PDF,
  'Audio/Recording 2026.mp3': MP3,
  'Attachments/empty.bin': Buffer.alloc(0),
  'Attachments/not really.png': Buffer.from('plain text with a .png name'),
  '.obsidian/app.json': '{"legacyEditor":false}',
  '.obsidian/plugins/x/main.js': 'console.log(1)',
  '.trash/old.md': '# Old\n',
  'Notes/.hidden.png': PNG,
};

async function writeVault(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, ...path.split('/'));
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, content);
  }
}

const isHidden = (path: string) => /(^|\/)\./.test(path);

describe('import and export of a vault folder with canvases and attachments', () => {
  let db: Database;
  let services: Services;
  let owner: Owner;
  let actor: Actor;
  let files: FilesService;
  let work: string;
  let vault: string;

  beforeAll(async () => {
    ({ db, services, owner } = await openDomainDatabase());
    actor = { accountId: owner.accountId, credentialKind: 'operator', client: 'test' };
    files = createFilesService(db, services.vaults, { idempotency: services.idempotency });
    work = await mkdtemp(join(tmpdir(), 'kgate-vault-files-'));
    vault = join(work, 'vault');
    await writeVault(vault, VAULT);
  });
  afterAll(async () => {
    await db.close();
    await rm(work, { recursive: true, force: true });
  });

  it('imports notes, canvases and attachments, and reports the hidden entries it skipped', async () => {
    const report = await importFolder(services.notes, actor, owner.mapping.id, vault, { files });
    expect(report).toMatchObject({
      notes: 3,
      created: 3,
      canvases: 1,
      attachments: 6,
      hidden: 3,
      symlinks: 0,
      files: { stored: true, created: 7, updated: 0, unchanged: 0 },
      rejected: [],
    });
    expect(report.skipped).toEqual(['.obsidian', '.trash', 'Notes/.hidden.png']);
    expect(describeImport(report).join('\n')).toContain('Skipped on purpose: 3 hidden entries');
    const stored = await db.query<{ path: string; kind: string; media_type: string }>('SELECT path, kind, media_type FROM vault_files ORDER BY path COLLATE "C"');
    expect(stored).toEqual([
      { path: 'Attachments/Photo élan.jpg', kind: 'attachment', media_type: 'image/jpeg' },
      { path: 'Attachments/diagram.png', kind: 'attachment', media_type: 'image/png' },
      { path: 'Attachments/empty.bin', kind: 'attachment', media_type: 'application/octet-stream' },
      // The name says PNG, the bytes do not: never served as an image.
      { path: 'Attachments/not really.png', kind: 'attachment', media_type: 'application/octet-stream' },
      { path: 'Audio/Recording 2026.mp3', kind: 'attachment', media_type: 'audio/mpeg' },
      { path: 'Board.canvas', kind: 'canvas', media_type: 'application/json' },
      { path: 'Papers/report.pdf', kind: 'attachment', media_type: 'application/pdf' },
    ]);
    const events = await db.query<{ kind: string }>("SELECT kind FROM provenance_events WHERE kind = 'file.created'");
    expect(events).toHaveLength(7);
  });

  it('exports the folder back byte for byte, .obsidian/ and other hidden entries aside', async () => {
    const out = join(work, 'out');
    const report = await exportFolder(services.notes, actor, owner.mapping.id, out, { files });
    expect(report).toMatchObject({ notes: 3, files: 7 });
    expect(describeExport(report, out)).toContain('7 canvases and attachments');
    const expected = (await listFiles(vault)).filter((p) => !isHidden(p));
    expect(await listFiles(out)).toEqual(expected);
    const different: string[] = [];
    for (const path of expected) {
      const [a, b] = await Promise.all([readFile(join(out, path)), readFile(join(vault, path))]);
      if (!a.equals(b)) different.push(path);
    }
    expect(different).toEqual([]);
  });

  it('re-import reports everything unchanged and writes nothing', async () => {
    const before = await db.query('SELECT count(*)::int AS n FROM provenance_events');
    const report = await importFolder(services.notes, actor, owner.mapping.id, vault, { files });
    expect(report).toMatchObject({ created: 0, updated: 0, unchanged: 3, files: { created: 0, updated: 0, unchanged: 7 }, rejected: [] });
    expect(await db.query('SELECT count(*)::int AS n FROM provenance_events')).toEqual(before);
  });

  it('reports a file over the size limit without reading it, and updates a changed attachment', async () => {
    const big = join(work, 'big');
    await writeVault(big, { 'Attachments/diagram.png': Buffer.concat([PNG, Buffer.from('changed')]) });
    await writeFile(join(big, 'huge.bin'), Buffer.alloc(0));
    // A sparse file: its size is past the limit, but nothing is written to disk.
    await truncate(join(big, 'huge.bin'), MAX_FILE_BYTES + 1);
    const report = await importFolder(services.notes, actor, owner.mapping.id, big, { files });
    expect(report.files).toEqual({ stored: true, created: 0, updated: 1, unchanged: 0 });
    expect(report.rejected).toEqual([{ path: 'huge.bin', code: 'payload_too_large', reason: expect.stringContaining('larger than') }]);
    expect(await db.query("SELECT 1 FROM vault_files WHERE path = 'huge.bin'")).toEqual([]);
  });

  it('without the files service, counts canvases and attachments and stores none (the former behaviour)', async () => {
    const other = await createOwner(services, 'notes-only');
    const report = await importFolder(services.notes, other.actor, other.mapping.id, vault);
    expect(report).toMatchObject({ created: 3, canvases: 1, attachments: 6, files: { stored: false, created: 0 } });
    expect(describeImport(report).join('\n')).toContain('Not imported: 1 canvases, 6 attachments.');
    expect(await db.query('SELECT 1 FROM vault_files WHERE vault_id = $1', [other.mapping.vaultId])).toEqual([]);
  });
});
