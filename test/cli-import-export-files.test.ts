/**
 * `kgate import` and `kgate export` of a vault folder with canvases and attachments, run as real child processes on
 * one installation: notes, a canvas, images, a PDF and audio go in and come back out byte for byte, `.obsidian/` and
 * other hidden entries are skipped and reported, and a re-import reports everything unchanged. The same round trip
 * in-process, with every report field: test/vault-files-folder.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../src/cli/import-folder.ts';
import { cleanupCli, listFiles, newInstallation, runKgate, tempDir, type Installation } from './support/cli.ts';
import { bootstrapJson, importJson } from './support/cli-vaults.ts';

/** For tests that initialize PGlite: generous on a loaded two-core machine. */
const SLOW_MS = 180_000;

const VAULT: Record<string, string | Buffer> = {
  'Home.md': '# Home\n![[diagram.png]]\n![[Board.canvas]]\n',
  'Notes/Plan.md': '---\ntitle: Plan\n---\r\nCRLF body\r\n',
  'Board.canvas': '{"nodes":[{"id":"a","type":"file","file":"Notes/Plan.md","x":0,"y":0,"width":400,"height":400}],"edges":[]}',
  'Attachments/diagram.png': Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(4000)]),
  'Attachments/photo.jpg': Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(3000)]),
  'Papers/report.pdf': Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(6000), Buffer.from('\n%%EOF\n')]),
  'Audio/voice memo.mp3': Buffer.concat([Buffer.from('ID3'), randomBytes(5000)]),
  '.obsidian/app.json': '{"legacyEditor":false}',
  '.obsidian/workspace.json': '{}',
};
const isHidden = (path: string) => /(^|\/)\./.test(path);

afterAll(cleanupCli);

describe('kgate import and export of canvases and attachments', () => {
  let install: Installation;
  let vault: string;
  let mappingId: string;

  beforeAll(async () => {
    install = await newInstallation();
    vault = join(await tempDir('files-vault'), 'vault');
    for (const [path, content] of Object.entries(VAULT)) {
      await mkdir(join(vault, ...path.split('/').slice(0, -1)), { recursive: true });
      await writeFile(join(vault, ...path.split('/')), content);
    }
    mappingId = (await bootstrapJson(install, '--empty')).mappingId;
  }, SLOW_MS);

  it('imports the folder, exports it back identical (.obsidian/ aside), and re-import reports everything unchanged', async () => {
    const first = await importJson(install, vault, mappingId);
    expect(first).toMatchObject({ notes: 2, created: 2, canvases: 1, attachments: 4, hidden: 1, files: { stored: true, created: 5, updated: 0, unchanged: 0 }, rejected: [] });
    expect(first.skipped).toEqual(['.obsidian']);

    const out = join(await tempDir('files-export'), 'out');
    const exported = await runKgate(['export', '--mapping', mappingId, out], install.env);
    expect(exported.code).toBe(0);
    const expected = (await listFiles(vault)).filter((path) => !isHidden(path));
    expect(await listFiles(out)).toEqual(expected);
    const different: string[] = [];
    for (const path of expected) if (!(await readFile(join(out, path))).equals(await readFile(join(vault, path)))) different.push(path);
    expect(different).toEqual([]);

    const again = await runKgate(['import', vault, '--mapping', mappingId], install.env);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('2 unchanged');
    expect(again.stdout).toContain('0 created, 0 updated, 5 unchanged');
    expect(again.stdout).toContain('Skipped on purpose: 1 hidden entries');
    const report = await importJson(install, vault, mappingId);
    expect(report).toMatchObject<Partial<ImportReport>>({ created: 0, updated: 0, unchanged: 2, files: { stored: true, created: 0, updated: 0, unchanged: 5 } });
  }, SLOW_MS);

  it('keeps to KGATE_VAULT_FILES_MB: with 0, the notes are imported and every new file is rejected, none of them stored', async () => {
    const folder = join(await tempDir('files-ceiling'), 'vault');
    await mkdir(join(folder, 'Extra'), { recursive: true });
    await writeFile(join(folder, 'Extra', 'extra.png'), VAULT['Attachments/diagram.png']!);
    await writeFile(join(folder, 'Extra', 'Board.canvas'), VAULT['Board.canvas']!);
    await writeFile(join(folder, 'Extra', 'Extra.md'), '# Extra\n');
    const run = await runKgate(['import', folder, '--mapping', mappingId, '--json'], { ...install.env, KGATE_VAULT_FILES_MB: '0' });
    expect(run.code, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as ImportReport;
    expect(report).toMatchObject({ created: 1, files: { stored: true, created: 0, updated: 0, unchanged: 0 } });
    expect(report.rejected.map((r) => `${r.path} ${r.code}`).sort()).toEqual(['Extra/Board.canvas vault_storage_exhausted', 'Extra/extra.png vault_storage_exhausted']);
    const stored = await install.withDatabase((db) => db.query("SELECT path FROM vault_files WHERE path LIKE 'Extra/%'"));
    expect(stored).toEqual([]);
  }, SLOW_MS);
});
