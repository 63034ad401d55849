/**
 * `kgate scopes list|create|update|delete`, run as a real child process against a real installation: the operator
 * manages a mapping's context scopes as its owner, with previews (--dry-run), stable error codes, and usage errors
 * (exit 2) that open no database. `kgate scopes` beside a running gateway: test/cli-beside-gateway.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import type { Database } from '../src/db/port.ts';
import { cleanupCli, newInstallation, runKgate, singleJson, tempDir, type Installation } from './support/cli.ts';
import type { ScopeBody, ScopeChangeBody, ScopeListBody } from './support/rest-scopes.ts';

/** For tests that initialize a database, or run several commands that each open it, on a loaded two-core machine. */
const SLOW_MS = 180_000;

afterAll(cleanupCli);

const scopeRows = (db: Database) => db.query('SELECT * FROM context_scopes ORDER BY id').then((rows) => JSON.stringify(rows));

describe('kgate scopes', () => {
  let install: Installation;
  let mappingId: string;
  let scope: ScopeBody;

  const kgate = (...args: string[]) => runKgate(['scopes', ...args], install.env);
  const json = <T>(...args: string[]) => kgate(...args, '--mapping', mappingId, '--json').then((result) => singleJson<T>(result));

  /** Runs a command that must fail with `exit` and a message containing `message` (callers check that nothing changed). */
  async function refused(args: string[], exit: number, message: string) {
    const result = await kgate(...args);
    expect({ args, code: result.code, stdout: result.stdout, message: result.stderr.includes(message) }).toEqual({ args, code: exit, stdout: '', message: true });
    return result;
  }

  beforeAll(async () => {
    install = await newInstallation();
    const owner = singleJson<BootstrapOutput>(await runKgate(['admin', 'bootstrap', '--empty', '--json'], install.env));
    mappingId = owner.mappingId;
  }, SLOW_MS);

  it('lists no scopes at first', async () => {
    expect(await json<ScopeListBody>('list')).toEqual({ view: 'managed', scopes: [], truncated: false });
    const human = await kgate('list', '--mapping', mappingId);
    expect({ code: human.code, stdout: human.stdout }).toEqual({ code: 0, stdout: 'No context scopes.\n' });
  });

  it('previews a creation with --dry-run: normalized, no id, nothing stored', async () => {
    const before = await install.withDatabase(scopeRows);
    const previewed = await json<ScopeChangeBody>('create', '--name', 'Tidewater', '--prefix', 'Projects/Tidewater', '--tag', '#Client/Acme', '--dry-run');
    expect(previewed).toMatchObject({
      dryRun: true,
      applied: false,
      scope: { id: null, name: 'Tidewater', pathPrefixes: ['Projects/Tidewater/'], tags: ['client/acme'], audience: { minimumRole: 'viewer', agents: true } },
    });
    expect(await install.withDatabase(scopeRows)).toBe(before);
  });

  it('creates a scope with repeated --prefix and --tag, a minimum role and --no-agents', async () => {
    const created = await json<ScopeChangeBody>(
      'create',
      '--name',
      'Tidewater',
      '--prefix',
      'Projects/Tidewater',
      '--prefix',
      'Clients/Acme/',
      '--tag',
      'pilot',
      '--minimum-role',
      'editor',
      '--no-agents',
    );
    expect(created).toMatchObject({
      dryRun: false,
      applied: true,
      scope: { mappingId, name: 'Tidewater', pathPrefixes: ['Clients/Acme/', 'Projects/Tidewater/'], tags: ['pilot'], audience: { minimumRole: 'editor', agents: false } },
    });
    scope = created.scope;
    expect(await json<ScopeListBody>('list')).toEqual({ view: 'managed', scopes: [scope], truncated: false });
    const human = await kgate('list', '--mapping', mappingId);
    expect(human.stdout).toBe(
      [`Tidewater (${scope.id})`, '  folders:  Clients/Acme/, Projects/Tidewater/', '  tags:     pilot', '  audience: editors and up, signed-in people only', ''].join('\n'),
    );
  });

  it('update changes only what its options name, and keeps the rest', async () => {
    const agents = await json<ScopeChangeBody>('update', '--id', scope.id, '--agents');
    expect(agents.scope).toMatchObject({ name: 'Tidewater', pathPrefixes: scope.pathPrefixes, tags: ['pilot'], audience: { minimumRole: 'editor', agents: true } });
    const renamed = await json<ScopeChangeBody>('update', '--id', scope.id, '--name', 'Tidewater pilot', '--clear-prefixes', '--tag', 'pilot/field');
    expect(renamed.scope).toMatchObject({ id: scope.id, name: 'Tidewater pilot', pathPrefixes: [], tags: ['pilot/field'], audience: { minimumRole: 'editor', agents: true } });
    const before = await install.withDatabase(scopeRows);
    const previewed = await json<ScopeChangeBody>('update', '--id', scope.id, '--minimum-role', 'viewer', '--dry-run');
    expect(previewed).toMatchObject({ dryRun: true, applied: false, scope: { audience: { minimumRole: 'viewer' } } });
    expect(await install.withDatabase(scopeRows)).toBe(before);
  });

  it('refuses what the scopes service refuses, with its code, exit 1 and nothing changed', async () => {
    const before = await install.withDatabase(scopeRows);
    const mapping = ['--mapping', mappingId];
    await refused(['create', ...mapping, '--name', 'Escape', '--prefix', '../Secrets'], 1, '(invalid_request)');
    await refused(['create', ...mapping, '--name', 'Bad tag', '--tag', 'two words'], 1, 'tags[0] is not a tag name. (invalid_request)');
    await refused(['create', ...mapping, '--name', 'n'.repeat(101)], 1, '(invalid_request)');
    await refused(['create', ...mapping, '--name', 'TIDEWATER PILOT'], 1, '(conflict)');
    await refused(['update', ...mapping, '--id', randomUUID(), '--name', 'x'], 1, '(not_found)');
    await refused(['delete', ...mapping, '--id', 'not-a-uuid'], 1, '(not_found)');
    await refused(['list', '--mapping', randomUUID()], 1, '(not_found)');
    expect(await install.withDatabase(scopeRows)).toBe(before);
  }, SLOW_MS);

  it('deletes a scope, after a preview that changes nothing', async () => {
    const before = await install.withDatabase(scopeRows);
    const previewed = await json<ScopeChangeBody>('delete', '--id', scope.id, '--dry-run');
    expect(previewed).toMatchObject({ dryRun: true, applied: false, scope: { id: scope.id } });
    expect(await install.withDatabase(scopeRows)).toBe(before);
    const deleted = await kgate('delete', '--mapping', mappingId, '--id', scope.id);
    expect({ code: deleted.code, first: deleted.stdout.split('\n')[0] }).toEqual({ code: 0, first: 'Deleted:' });
    expect((await json<ScopeListBody>('list')).scopes).toEqual([]);
  });

  it('answers a usage mistake with exit 2 and the usage, before opening any database', async () => {
    const dataDir = join(await tempDir('scopes-usage'), 'data');
    const cases: Array<[string[], string]> = [
      [[], 'unknown scopes command: (none)'],
      [['rename', '--mapping', mappingId], 'unknown scopes command: rename'],
      [['list'], 'needs --mapping ID'],
      [['create', '--mapping', mappingId], 'needs --name'],
      [['update', '--mapping', mappingId, '--name', 'x'], 'needs --id SCOPE'],
      [['update', '--mapping', mappingId, '--id', randomUUID()], 'needs something to change'],
      [['delete', '--mapping', mappingId], 'needs --id SCOPE'],
      [['create', '--mapping', mappingId, '--name', 'x', '--minimum-role', 'superuser'], '--minimum-role takes owner, admin, editor or viewer'],
      [['create', '--mapping', mappingId, '--name', 'x', '--agents', '--no-agents'], 'choose --agents or --no-agents'],
      [['update', '--mapping', mappingId, '--id', randomUUID(), '--prefix', 'a', '--clear-prefixes'], 'choose --prefix or --clear-prefixes'],
      [['create', '--mapping', mappingId, '--name', 'x', '--id', randomUUID()], 'does not take --id'],
      [['list', '--mapping', mappingId, '--name', 'x'], 'does not take --name'],
      [['create', '--mapping', mappingId, '--name', 'x', '--clear-tags'], 'does not take --clear-tags'],
      [['create', '--mapping', mappingId, '--name', 'x', 'extra'], 'takes no arguments besides options: extra'],
      [['create', '--mapping', mappingId, '--name', 'x', '--public'], "Unknown option '--public'"],
    ];
    // They open nothing, so they run at once.
    const results = await Promise.all(cases.map(([args]) => runKgate(['scopes', ...args], { KGATE_DATA_DIR: dataDir })));
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i]!;
      expect({ args, code: result.code, stdout: result.stdout, message: result.stderr.includes(message), usage: result.stderr.includes('kgate scopes list|create|update|delete') }).toEqual({
        args,
        code: 2,
        stdout: '',
        message: true,
        usage: true,
      });
    }
    expect(existsSync(dataDir)).toBe(false);
  }, SLOW_MS);

  it('kgate scopes --help prints its usage and exits 0', async () => {
    const result = await kgate('create', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kgate scopes list|create|update|delete --mapping ID');
    expect(result.stdout).not.toContain('kgate import');
  });
});
