/**
 * Vaults in the CLI tests: bootstrap and import as JSON, the notes of the example vault, the note paths of a
 * mapping, and two folders compared file by file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { BootstrapOutput } from '../../src/cli/bootstrap-command.ts';
import type { ImportReport } from '../../src/cli/import-folder.ts';
import type { Database } from '../../src/db/port.ts';
import { listFiles, REPO_ROOT, runKgate, singleJson, type Installation } from './cli.ts';

/** The example vault that bootstrap seeds and the import tests read. */
export const EXAMPLE_VAULT = join(REPO_ROOT, 'examples', 'vault');

/** `kgate admin bootstrap --json ARGS` on the installation, which must print one JSON line and exit 0. */
export async function bootstrapJson(install: Installation, ...args: string[]): Promise<BootstrapOutput> {
  return singleJson<BootstrapOutput>(await runKgate(['admin', 'bootstrap', '--json', ...args], install.env));
}

/** `kgate import DIR --mapping ID --json` on the installation, which must print one JSON line and exit 0. */
export async function importJson(install: Installation, dir: string, mappingId: string): Promise<ImportReport> {
  return singleJson<ImportReport>(await runKgate(['import', dir, '--mapping', mappingId, '--json'], install.env));
}

/** The notes of the example vault: .md files outside hidden folders (.obsidian). */
export async function exampleNotePaths(): Promise<string[]> {
  const notes = (await listFiles(EXAMPLE_VAULT)).filter((p) => p.endsWith('.md') && !/(^|\/)\./.test(p));
  expect(notes.length).toBeGreaterThan(5);
  return notes;
}

/** The paths of the notes of a mapping's vault, in byte order. */
export async function notePaths(db: Database, mappingId: string): Promise<string[]> {
  const rows = await db.query<{ path: string }>(
    'SELECT n.path FROM notes n JOIN mappings m ON m.vault_id = n.vault_id WHERE m.id = $1 ORDER BY n.path COLLATE "C"',
    [mappingId],
  );
  return rows.map((r) => r.path);
}

/** Asserts that two folders hold the same files with the same bytes. */
export async function expectSameFiles(actual: string, expected: string, only: (path: string) => boolean = () => true): Promise<void> {
  const files = (await listFiles(expected)).filter(only);
  expect(await listFiles(actual)).toEqual(files);
  const different: string[] = [];
  for (const path of files) {
    const [a, b] = await Promise.all([readFile(join(actual, path)), readFile(join(expected, path))]);
    if (!a.equals(b)) different.push(path);
  }
  expect(different).toEqual([]);
}
