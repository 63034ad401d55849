/**
 * `kgate import` of an Obsidian folder and of folders with files it must reject, each into an empty vault of its own
 * on one shared installation, run as real child processes (a PGlite data directory, or a PostgreSQL database on the
 * postgres project). The 5,000-note import and export: test/cli-import-export.test.ts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImportReport } from '../src/cli/import-folder.ts';
import { cleanupCli, newInstallation, runKgate, tableCounts, tempDir, type Installation } from './support/cli.ts';
import { bootstrapJson, EXAMPLE_VAULT, exampleNotePaths, expectSameFiles, importJson, notePaths } from './support/cli-vaults.ts';

/** For tests that initialize PGlite: generous on a loaded two-core machine. */
const SLOW_MS = 180_000;

afterAll(cleanupCli);

describe('kgate import of an Obsidian folder', () => {
  let exampleNotes: string[];
  let install: Installation;
  beforeAll(async () => {
    exampleNotes = await exampleNotePaths();
    install = await newInstallation();
  });

  it('imports examples/vault: its notes, its canvas and attachment, and reports the hidden entries it skipped', async () => {
    const target = await bootstrapJson(install, '--email', 'examples@example.test', '--empty');
    const report = await importJson(install, EXAMPLE_VAULT, target.mappingId);
    expect(report).toMatchObject({
      notes: exampleNotes.length,
      created: exampleNotes.length,
      rejected: [],
      canvases: 1,
      attachments: 1,
      symlinks: 0,
      files: { stored: true, created: 2, updated: 0, unchanged: 0 },
    });
    expect(report.hidden).toBeGreaterThanOrEqual(1);
    const imported = await install.withDatabase((db) => notePaths(db, target.mappingId));
    expect(imported.sort()).toEqual([...exampleNotes].sort());

    // And back out: the exported folder is the example vault, .obsidian/ aside, byte for byte.
    const out = join(await tempDir('export-examples'), 'out');
    expect((await runKgate(['export', '--mapping', target.mappingId, out], install.env)).code).toBe(0);
    await expectSameFiles(out, EXAMPLE_VAULT, (path) => !/(^|\/)\./.test(path));
  }, SLOW_MS);

  it('reports an invalid file name and a non-UTF-8 file as rejected, exits 1, and imports the valid ones', async () => {
    const target = await bootstrapJson(install, '--email', 'rejects@example.test', '--empty');
    const dir = await tempDir('rejects');
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'good.md'), '# Good\n');
    await writeFile(join(dir, 'sub', 'also good.md'), '# Also good\n');
    await writeFile(join(dir, 'bad\\name.md'), '# Backslash in the name\n');
    await writeFile(join(dir, 'latin1.md'), Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a])); // "# Café" in Latin-1
    const result = await runKgate(['import', dir, '--mapping', target.mappingId, '--json'], install.env);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as ImportReport;
    expect(report).toMatchObject({ notes: 4, created: 2, updated: 0, unchanged: 0 });
    expect(report.rejected).toHaveLength(2);
    expect(report.rejected).toEqual(
      expect.arrayContaining([
        { path: 'bad\\name.md', code: 'invalid_path', reason: expect.stringContaining('backslash') },
        { path: 'latin1.md', code: expect.any(String), reason: expect.stringContaining('UTF-8') },
      ]),
    );
    expect(await install.withDatabase((db) => notePaths(db, target.mappingId))).toEqual(['good.md', 'sub/also good.md']);
  });

  it('reports files whose names Windows and synced drives refuse as invalid_path, exits 1, and changes nothing', async () => {
    const target = await bootstrapJson(install, '--email', 'not-portable@example.test', '--empty');
    const dir = await tempDir('not-portable');
    // Each file and the rule its message names. Linux creates them all; Windows or a synced drive would not.
    const files: Record<string, string> = {
      'CON.md': 'reserved device name',
      'nul.md': 'reserved device name',
      'Hostile/COM1.md': 'reserved device name',
      'Notes /a.md': 'ends in a dot or a space',
      'a./b.md': 'ends in a dot or a space',
      'Why?.md': 'refuse < > : " | ? * in names',
    };
    for (const path of Object.keys(files)) {
      await mkdir(join(dir, ...path.split('/').slice(0, -1)), { recursive: true });
      await writeFile(join(dir, ...path.split('/')), '# Not portable\n');
    }
    const before = await install.withDatabase(tableCounts);
    const result = await runKgate(['import', dir, '--mapping', target.mappingId, '--json'], install.env);
    expect(result.code).toBe(1);
    const report = JSON.parse(result.stdout) as ImportReport;
    expect(report).toMatchObject({ notes: 6, created: 0, updated: 0, unchanged: 0 });
    const byPath = (a: { path: string }, b: { path: string }) => (a.path < b.path ? -1 : 1);
    expect([...report.rejected].sort(byPath)).toEqual(
      Object.entries(files)
        .map(([path, rule]) => ({ path, code: 'invalid_path', reason: expect.stringContaining(rule) }))
        .sort(byPath),
    );
    expect(await install.withDatabase(tableCounts)).toEqual(before);
    expect(await install.withDatabase((db) => notePaths(db, target.mappingId))).toEqual([]);
  });
});
