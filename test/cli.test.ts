/**
 * The `kgate` command line, run as a real child process against a real installation (a PGlite data directory,
 * or a PostgreSQL database on the postgres project): bootstrap, import, export, the data directory lock and
 * configuration errors. Tests inside a describe build on each other, so that few fresh databases are needed.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticVault } from '../bench/vault-generator.ts';
import type { BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import type { ImportReport } from '../src/cli/import-folder.ts';
import { acquireDataDirLock, LOCK_FILE_NAME } from '../src/db/data-dir-lock.ts';
import type { Database } from '../src/db/port.ts';
import { verifyPassword } from '../src/domains/accounts/password.ts';
import { createServices } from '../src/app/services.ts';
import {
  cleanupCli,
  installationAt,
  listFiles,
  newInstallation,
  REPO_ROOT,
  runKgate,
  singleJson,
  startServe,
  tableCounts,
  tempDir,
  type Installation,
} from './support/cli.ts';
import { TEST_ENGINE } from './support/database.ts';

const EXAMPLE_VAULT = join(REPO_ROOT, 'examples', 'vault');
const TOKEN = /^kgp_[0-9A-Za-z]{36}$/;
/** For tests that initialize PGlite, move 5,000 notes or run a server: generous on a loaded two-core machine. */
const SLOW_MS = 180_000;

afterAll(cleanupCli);

let exampleNotes: string[];
beforeAll(async () => {
  // Notes of the example vault: .md files outside hidden folders (.obsidian).
  exampleNotes = (await listFiles(EXAMPLE_VAULT)).filter((p) => p.endsWith('.md') && !/(^|\/)\./.test(p));
  expect(exampleNotes.length).toBeGreaterThan(5);
});

async function bootstrapJson(install: Installation, ...args: string[]): Promise<BootstrapOutput> {
  return singleJson<BootstrapOutput>(await runKgate(['admin', 'bootstrap', '--json', ...args], install.env));
}

async function importJson(install: Installation, dir: string, mappingId: string): Promise<ImportReport> {
  return singleJson<ImportReport>(await runKgate(['import', dir, '--mapping', mappingId, '--json'], install.env));
}

async function notePaths(db: Database, mappingId: string): Promise<string[]> {
  const rows = await db.query<{ path: string }>(
    'SELECT n.path FROM notes n JOIN mappings m ON m.vault_id = n.vault_id WHERE m.id = $1 ORDER BY n.path COLLATE "C"',
    [mappingId],
  );
  return rows.map((r) => r.path);
}

/** Asserts that two folders hold the same files with the same bytes. */
async function expectSameFiles(actual: string, expected: string, only: (path: string) => boolean = () => true) {
  const files = (await listFiles(expected)).filter(only);
  expect(await listFiles(actual)).toEqual(files);
  const different: string[] = [];
  for (const path of files) {
    const [a, b] = await Promise.all([readFile(join(actual, path)), readFile(join(expected, path))]);
    if (!a.equals(b)) different.push(path);
  }
  expect(different).toEqual([]);
}

describe('kgate admin bootstrap', () => {
  let install: Installation;
  let first: BootstrapOutput;
  beforeAll(async () => {
    install = await newInstallation();
  });

  it('prints one JSON object with the ids, a token and the URLs, and seeds the demo vault', async () => {
    const result = await runKgate(['admin', 'bootstrap', '--json'], install.env);
    expect(result.stderr).toBe('');
    first = singleJson<BootstrapOutput>(result);
    expect(first).toMatchObject({
      accountId: expect.any(String),
      workspaceId: expect.any(String),
      vaultId: expect.any(String),
      mappingId: expect.any(String),
      token: expect.stringMatching(TOKEN),
      created: { account: true, vault: true },
      seeded: { created: exampleNotes.length, updated: 0, unchanged: 0 },
    });
    expect(first.baseUrl).toMatch(/^https?:\/\/[^/]+$/);
    expect(first.mcpUrl).toBe(`${first.baseUrl}/api/mcp`);
  }, SLOW_MS);

  it('is idempotent: same ids, a new token, no seeding, and both tokens work', async () => {
    const second = await bootstrapJson(install);
    expect(second).toMatchObject({
      accountId: first.accountId,
      workspaceId: first.workspaceId,
      vaultId: first.vaultId,
      mappingId: first.mappingId,
      created: { account: false, vault: false },
      seeded: null,
    });
    expect(second.token).toMatch(TOKEN);
    expect(second.token).not.toBe(first.token);
    await install.withDatabase(async (db) => {
      const { tokens } = createServices(db);
      expect((await tokens.authenticate(first.token)).accountId).toBe(first.accountId);
      expect((await tokens.authenticate(second.token)).accountId).toBe(first.accountId);
      expect(await notePaths(db, first.mappingId)).toHaveLength(exampleNotes.length);
    });
  });
});

describe('kgate admin bootstrap options, then import and export (shared installation)', () => {
  let install: Installation;
  let owner: BootstrapOutput;
  let bulk: string;
  beforeAll(async () => {
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

  describe('kgate import of an Obsidian folder', () => {
    it('imports only the .md files of examples/vault and reports the canvas, the attachment and hidden entries', async () => {
      const target = await bootstrapJson(install, '--email', 'examples@example.test', '--empty');
      const report = await importJson(install, EXAMPLE_VAULT, target.mappingId);
      expect(report).toMatchObject({
        notes: exampleNotes.length,
        created: exampleNotes.length,
        rejected: [],
        canvases: 1,
        attachments: 1,
        symlinks: 0,
      });
      expect(report.hidden).toBeGreaterThanOrEqual(1);
      const imported = await install.withDatabase((db) => notePaths(db, target.mappingId));
      expect(imported.sort()).toEqual([...exampleNotes].sort());

      // And back out: the exported folder is the example vault's notes, byte for byte.
      const out = join(await tempDir('export-examples'), 'out');
      expect((await runKgate(['export', '--mapping', target.mappingId, out], install.env)).code).toBe(0);
      await expectSameFiles(out, EXAMPLE_VAULT, (path) => exampleNotes.includes(path));
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

    it('with an unknown mapping id exits non-zero with a clear message and changes nothing', async () => {
      const before = await install.withDatabase(tableCounts);
      const result = await runKgate(['import', bulk, '--mapping', randomUUID(), '--json'], install.env);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('The mapping does not exist.');
      expect(await install.withDatabase(tableCounts)).toEqual(before);
    });

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

describe.runIf(TEST_ENGINE === 'pglite')('the data directory lock', () => {
  it('a locked data directory: exit 75, the directory and holder named, the database never opened', async () => {
    const dir = await tempDir('locked');
    const lock = await acquireDataDirLock(dir, 'test holder');
    try {
      const result = await runKgate(['admin', 'bootstrap', '--json'], { KGATE_DATA_DIR: dir });
      expect(result.code).toBe(75);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain(`The data directory ${resolve(dir)} is in use`);
      expect(result.stderr).toMatch(new RegExp(`in use by (kgate )?process ${process.pid}\\b`));
      expect(existsSync(join(dir, 'pglite'))).toBe(false);
    } finally {
      await lock.release();
    }
  });

  it('kgate serve holds its data directory until SIGTERM, then exits 0, releases it, and the data survives', async () => {
    const dir = await tempDir('served');
    const env = { KGATE_DATA_DIR: dir };
    const serve = await startServe(env);
    const stdout = await serve.waitForStdout('the first-start banner', (out) => /SERVICE_MCP_TOKEN=kgp_\w{36}\n/.test(out));
    const bannerToken = /SERVICE_MCP_TOKEN=(kgp_\w{36})\n/.exec(stdout)![1]!;
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(true);

    // A second gateway on the same directory is refused; other commands go through the running one
    // (test/cli-beside-gateway.test.ts).
    const refused = await runKgate(['serve'], env);
    expect(refused.code).toBe(75);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`The data directory ${resolve(dir)} is in use`);
    expect(refused.stderr).toMatch(new RegExp(`in use by (kgate )?process ${serve.pid}\\b`));

    expect(await serve.stop('SIGTERM')).toEqual({ code: 0, signal: null });
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);

    const output = singleJson<BootstrapOutput>(await runKgate(['admin', 'bootstrap', '--json'], env));
    expect(output).toMatchObject({ created: { account: false, vault: false }, seeded: null });
    await installationAt(dir).withDatabase(async (db) => {
      expect((await createServices(db).tokens.authenticate(bannerToken)).accountId).toBe(output.accountId);
      expect(await notePaths(db, output.mappingId)).toHaveLength(exampleNotes.length);
    });
  }, SLOW_MS);
});

describe.runIf(TEST_ENGINE === 'pglite')('invalid configuration', () => {
  async function serveWith(env: Record<string, string>) {
    const dir = join(await tempDir('config'), 'data');
    const result = await runKgate(['serve'], { KGATE_DATA_DIR: dir, ...env });
    // Configuration is checked before anything is opened or created.
    expect(existsSync(dir)).toBe(false);
    return result;
  }

  it('PORT=abc stops start-up with exit 78 and names PORT', async () => {
    const result = await serveWith({ PORT: 'abc' });
    expect(result.code).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^\s*PORT: /m);
  });

  it('KGATE_BASE_URL=notaurl stops start-up with exit 78 and names KGATE_BASE_URL', async () => {
    const result = await serveWith({ KGATE_BASE_URL: 'notaurl' });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/^\s*KGATE_BASE_URL: /m);
  });

  it('an invalid DATABASE_URL is named without echoing its password', async () => {
    const result = await serveWith({ DATABASE_URL: 'mysql://u:secret@h/x' });
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/^\s*DATABASE_URL: /m);
    expect(result.stderr).not.toContain('secret');
  });

  it('an unreachable DATABASE_URL fails without echoing its password', async () => {
    const result = await runKgate(['admin', 'bootstrap', '--json'], { DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/x' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toContain('secret');
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^kgate: Cannot connect to the PostgreSQL server of DATABASE_URL: .*ECONNREFUSED/),
    ]);
  });
});

describe.runIf(TEST_ENGINE === 'pglite')('help', () => {
  const cases: Array<[string[], string[]]> = [
    [['--help'], ['kgate serve', 'kgate import DIR', 'kgate token']],
    [['help'], ['kgate serve', 'kgate export']],
    [['serve', '--help'], ['kgate serve ']],
    [['import', '--help'], ['kgate import DIR --mapping ID']],
    [['export', '-h'], ['kgate export --mapping ID DIR']],
    [['admin', '--help'], ['kgate admin bootstrap', 'kgate admin account', 'kgate admin mapping']],
    [['admin', 'bootstrap', '--help'], ['kgate admin bootstrap']],
    [['token', 'create', '--help'], ['kgate token list|create|rotate|revoke']],
    [['help', 'import'], ['kgate import DIR --mapping ID']],
  ];

  it.each(cases)('kgate %j prints usage, exits 0 and touches no data', async (args, expected) => {
    const dir = join(await tempDir('help'), 'data');
    const result = await runKgate(args, { KGATE_DATA_DIR: dir, PORT: '0' });
    expect(result.code).toBe(0);
    for (const text of expected) expect(result.stdout).toContain(text);
    expect(result.stderr).toBe('');
    // Nothing opened or created: no data directory, no server.
    expect(existsSync(dir)).toBe(false);
  });

  it('kgate admin bootstrap --help names only bootstrap, and kgate with no command exits 2 with the whole usage', async () => {
    const env = { KGATE_DATA_DIR: join(await tempDir('help'), 'data') };
    const bootstrapHelp = await runKgate(['admin', 'bootstrap', '--help'], env);
    expect(bootstrapHelp.stdout).not.toContain('kgate admin account');
    const bare = await runKgate([], env);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('kgate serve');
  });
});
