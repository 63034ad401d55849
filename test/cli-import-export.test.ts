/**
 * `kgate admin bootstrap` with its options, then `kgate import` of a 5,000-note folder and `kgate export` back, run as
 * real child processes against one shared installation (a PGlite data directory, or a PostgreSQL database on the
 * postgres project). The tests build on each other in order. Imports of other folders into vaults of their own:
 * test/cli-import-folders.test.ts; bootstrap on a fresh installation, help and configuration: test/cli.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticVault } from '../bench/vault-generator.ts';
import type { BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import { verifyPassword } from '../src/domains/accounts/password.ts';
import { createServices } from '../src/app/services.ts';
import { cleanupCli, listFiles, newInstallation, runKgate, singleJson, tableCounts, tempDir, type Installation } from './support/cli.ts';
import { bootstrapJson, exampleNotePaths, expectSameFiles, importJson, notePaths } from './support/cli-vaults.ts';
import { TEST_ENGINE } from './support/database.ts';

const TOKEN = /^kgp_[0-9A-Za-z]{36}$/;
/** For tests that initialize PGlite or move 5,000 notes: generous on a loaded two-core machine. */
const SLOW_MS = 180_000;

afterAll(cleanupCli);

describe('kgate admin bootstrap options, then import and export (shared installation)', () => {
  let exampleNotes: string[];
  let install: Installation;
  let owner: BootstrapOutput;
  let bulk: string;
  beforeAll(async () => {
    exampleNotes = await exampleNotePaths();
    install = await newInstallation();
    bulk = join(await tempDir('bulk'), 'vault');
    await writeSyntheticVault(bulk, { notes: 5000, seed: 7 });
  });

  it('--empty on a fresh installation creates the vault with zero notes', async () => {
    owner = await bootstrapJson(install, '--empty');
    expect(owner).toMatchObject({ created: { account: true, vault: true }, seeded: null, token: expect.stringMatching(TOKEN) });
    await install.withDatabase(async (db) => {
      expect(await notePaths(db, owner.mappingId)).toEqual([]);
      expect(await tableCounts(db)).toMatchObject({ accounts: 1, vaults: 1, notes: 0, provenance_events: 0 });
    });
  }, SLOW_MS);

  it('--email and --password create that account with that password', async () => {
    const output = await bootstrapJson(install, '--email', 'writer@example.test', '--password', 'correct horse');
    expect(output).toMatchObject({ created: { account: true, vault: true }, seeded: { created: exampleNotes.length } });
    expect(output.accountId).not.toBe(owner.accountId);
    await install.withDatabase(async (db) => {
      const [account] = await db.query<{ id: string; password_hash: string }>(
        'SELECT id, password_hash FROM accounts WHERE email = $1',
        ['writer@example.test'],
      );
      expect(account?.id).toBe(output.accountId);
      expect(await verifyPassword('correct horse', account!.password_hash)).toBe(true);
      expect(await verifyPassword('wrong horse!', account!.password_hash)).toBe(false);
      expect((await createServices(db).tokens.authenticate(output.token)).accountId).toBe(output.accountId);
    });
  });

  it('--password-stdin reads the password from standard input, keeping it out of the process list', async () => {
    const result = await runKgate(
      ['admin', 'bootstrap', '--json', '--email', 'stdin@example.test', '--password-stdin'],
      install.env,
      { input: 'from standard input\n' },
    );
    const output = singleJson<BootstrapOutput>(result);
    await install.withDatabase(async (db) => {
      const [account] = await db.query<{ password_hash: string }>('SELECT password_hash FROM accounts WHERE id = $1', [
        output.accountId,
      ]);
      expect(await verifyPassword('from standard input', account!.password_hash)).toBe(true);
    });
  });

  it('a too-short password exits non-zero with a clear message and creates nothing', async () => {
    const before = await install.withDatabase(tableCounts);
    const result = await runKgate(
      ['admin', 'bootstrap', '--json', '--email', 'short@example.test', '--password', 'seven77'],
      install.env,
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('The password must have at least 8 characters');
    await install.withDatabase(async (db) => {
      expect(await tableCounts(db)).toEqual(before);
      expect(await db.query('SELECT 1 FROM accounts WHERE email_key = $1', ['short@example.test'])).toEqual([]);
    });
  });

  describe('kgate import of a 5,000-note folder', () => {
    it('creates every note on the first run', async () => {
      const report = await importJson(install, bulk, owner.mappingId);
      expect(report).toMatchObject({ notes: 5000, created: 5000, updated: 0, unchanged: 0, rejected: [], dryRun: false });
    }, SLOW_MS);

    it('reports every note unchanged on the second run', async () => {
      const report = await importJson(install, bulk, owner.mappingId);
      expect(report).toMatchObject({ notes: 5000, created: 0, updated: 0, unchanged: 5000, rejected: [] });
    }, SLOW_MS);

    it('after 3 edits and 1 new file: updated 3, created 1, unchanged 4997, and exactly 5,004 events', async () => {
      const files = await listFiles(bulk);
      for (const path of [files[0]!, files[2500]!, files[4999]!]) {
        await appendFile(join(bulk, path), '\nEdited after the first import.\n');
      }
      await writeFile(join(bulk, 'area-00', 'added after import.md'), '# Added\n\nA new note. [[note-00001]]\n');
      const report = await importJson(install, bulk, owner.mappingId);
      expect(report).toMatchObject({ notes: 5001, created: 1, updated: 3, unchanged: 4997, rejected: [] });
      await install.withDatabase(async (db) => {
        const rows = await db.query<{ kind: string; n: number }>(
          'SELECT kind, count(*)::int AS n FROM provenance_events WHERE mapping_id = $1 GROUP BY kind ORDER BY kind',
          [owner.mappingId],
        );
        expect(rows).toEqual([
          { kind: 'note.created', n: 5001 },
          { kind: 'note.updated', n: 3 },
        ]);
      });
    }, SLOW_MS);

    // Right after a check: the database the tests hold open takes the count before it without opening again.
    it('with an unknown mapping id exits non-zero with a clear message and changes nothing', async () => {
      const before = await install.withDatabase(tableCounts);
      const result = await runKgate(['import', bulk, '--mapping', randomUUID(), '--json'], install.env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('The mapping does not exist.');
      expect(await install.withDatabase(tableCounts)).toEqual(before);
    });
  });

  describe('kgate export', () => {
    it('writes every note back byte-for-byte identical to the imported files', async () => {
      const out = join(await tempDir('export'), 'out');
      const result = singleJson<{ notes: number; bytes: number }>(
        await runKgate(['export', '--mapping', owner.mappingId, out, '--json'], install.env),
      );
      expect(result.notes).toBe(5001);
      await expectSameFiles(out, bulk);
    }, SLOW_MS);

    it('into a non-empty folder without --force exits non-zero and writes nothing', async () => {
      const out = await tempDir('export-busy');
      await writeFile(join(out, 'keep.md'), 'mine\n');
      const result = await runKgate(['export', '--mapping', owner.mappingId, out, '--json'], install.env);
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('is not empty');
      expect(result.stderr).toContain('--force');
      // An operator mistake is one line, not a stack trace.
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(await listFiles(out)).toEqual(['keep.md']);
      expect(await readFile(join(out, 'keep.md'), 'utf8')).toBe('mine\n');
    });
  });

  describe('kgate import mistakes', () => {
    it('without --mapping exits 2 with usage', async () => {
      const result = await runKgate(['import', bulk], install.env);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('usage: kgate import DIR --mapping ID');
      expect(result.stderr).toContain('Usage:');
    });

    it('from a folder that does not exist fails in one line, before opening any database', async () => {
      const dataDir = join(await tempDir('never-opened'), 'data');
      const env = TEST_ENGINE === 'pglite' ? { KGATE_DATA_DIR: dataDir } : install.env;
      const result = await runKgate(['import', join(bulk, 'no-such-folder'), '--mapping', owner.mappingId], env);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toEqual([`kgate: ${join(bulk, 'no-such-folder')} is not a folder.`]);
      expect(existsSync(dataDir)).toBe(false);
    });
  });
});
