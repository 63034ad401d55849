/**
 * The `kgate` command line, run as a real child process: bootstrap on a fresh installation (a PGlite data
 * directory, or a PostgreSQL database on the postgres project), the data directory lock, configuration errors and
 * help. Elsewhere: bootstrap's options, import and export (test/cli-import-export.test.ts, cli-import-folders.test.ts),
 * `kgate serve` (cli-serve.test.ts), scopes (cli-scopes.test.ts) and commands beside a running gateway
 * (cli-beside-gateway.test.ts).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import { acquireDataDirLock } from '../src/db/data-dir-lock.ts';
import { createServices } from '../src/app/services.ts';
import { cleanupCli, newInstallation, runKgate, singleJson, tempDir, type CliResult, type Installation } from './support/cli.ts';
import { bootstrapJson, exampleNotePaths, notePaths } from './support/cli-vaults.ts';
import { TEST_ENGINE } from './support/database.ts';

const TOKEN = /^kgp_[0-9A-Za-z]{36}$/;
/** For tests that initialize PGlite: generous on a loaded two-core machine. */
const SLOW_MS = 180_000;

afterAll(cleanupCli);

let exampleNotes: string[];
beforeAll(async () => {
  exampleNotes = await exampleNotePaths();
});

/** A command run in a data directory of its own, which must not exist afterwards when the command opened nothing. */
interface RunInFreshDir {
  dir: string;
  result: CliResult;
}

/** Runs `kgate ARGS` with KGATE_DATA_DIR set to a folder that does not exist yet, plus `env`. */
async function runInFreshDir(args: string[], env: Record<string, string> = {}): Promise<RunInFreshDir> {
  const dir = join(await tempDir('fresh'), 'data');
  return { dir, result: await runKgate(args, { KGATE_DATA_DIR: dir, ...env }) };
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
});

// These commands open nothing and wait for nothing: each describe starts its commands at once and its tests check
// what each answered.
describe.runIf(TEST_ENGINE === 'pglite')('invalid configuration', () => {
  let port: RunInFreshDir;
  let baseUrl: RunInFreshDir;
  let databaseUrl: RunInFreshDir;
  let unreachable: CliResult;
  beforeAll(async () => {
    [port, baseUrl, databaseUrl, unreachable] = await Promise.all([
      runInFreshDir(['serve'], { PORT: 'abc' }),
      runInFreshDir(['serve'], { KGATE_BASE_URL: 'notaurl' }),
      runInFreshDir(['serve'], { DATABASE_URL: 'mysql://u:secret@h/x' }),
      runKgate(['admin', 'bootstrap', '--json'], { DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/x' }),
    ]);
  });

  // Configuration is checked before anything is opened or created.
  it('PORT=abc stops start-up with exit 78 and names PORT', () => {
    const { dir, result } = port;
    expect(existsSync(dir)).toBe(false);
    expect(result.code).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^\s*PORT: /m);
  });

  it('KGATE_BASE_URL=notaurl stops start-up with exit 78 and names KGATE_BASE_URL', () => {
    const { dir, result } = baseUrl;
    expect(existsSync(dir)).toBe(false);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/^\s*KGATE_BASE_URL: /m);
  });

  it('an invalid DATABASE_URL is named without echoing its password', () => {
    const { dir, result } = databaseUrl;
    expect(existsSync(dir)).toBe(false);
    expect(result.code).toBe(78);
    expect(result.stderr).toMatch(/^\s*DATABASE_URL: /m);
    expect(result.stderr).not.toContain('secret');
  });

  it('an unreachable DATABASE_URL fails without echoing its password', () => {
    const result = unreachable;
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
  /** What each command answered, by its arguments as JSON; `kgate` alone among them. */
  const answers = new Map<string, RunInFreshDir>();
  const answer = (args: string[]) => answers.get(JSON.stringify(args))!;
  beforeAll(async () => {
    const commands = [...cases.map(([args]) => args), []];
    const results = await Promise.all(commands.map((args) => runInFreshDir(args, { PORT: '0' })));
    commands.forEach((args, i) => answers.set(JSON.stringify(args), results[i]!));
  });

  it.each(cases)('kgate %j prints usage, exits 0 and touches no data', (args, expected) => {
    const { dir, result } = answer(args);
    expect(result.code).toBe(0);
    for (const text of expected) expect(result.stdout).toContain(text);
    expect(result.stderr).toBe('');
    // Nothing opened or created: no data directory, no server.
    expect(existsSync(dir)).toBe(false);
  });

  it('kgate admin bootstrap --help names only bootstrap, and kgate with no command exits 2 with the whole usage', () => {
    // The same `kgate admin bootstrap --help` as in the cases above: its output is checked again, not rerun.
    expect(answer(['admin', 'bootstrap', '--help']).result.stdout).not.toContain('kgate admin account');
    const bare = answer([]).result;
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('kgate serve');
  });
});
