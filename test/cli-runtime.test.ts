/**
 * `kgate runtime org|product ...`, run as a real child process against a real installation: the operator creates
 * and administers Product Runtime organizations and products; refusals exit 1 with their code and change nothing;
 * usage mistakes exit 2 before any database is opened.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BootstrapOutput } from '../src/cli/bootstrap-command.ts';
import type { OrganizationWithAdmins, RuntimeOrganization, RuntimeProduct } from '../src/domains/runtime/admin/index.ts';
import { cleanupCli, newInstallation, runKgate, singleJson, tempDir, type Installation } from './support/cli.ts';
import { runtimeRows } from './support/runtime-admin.ts';

/** For tests that initialize a database, or run several commands that each open it, on a loaded two-core machine. */
const SLOW_MS = 180_000;
const ADMIN = 'owner@example.test';

afterAll(cleanupCli);

describe('kgate runtime', () => {
  let install: Installation;

  const kgate = (...args: string[]) => runKgate(['runtime', ...args], install.env);
  const json = <T>(...args: string[]) => kgate(...args, '--json').then((result) => singleJson<T>(result));

  /** Runs commands that must each fail with exit 1 and their code, and checks that nothing changed. */
  async function refused(cases: Array<[string[], string]>) {
    const before = await install.withDatabase(runtimeRows);
    for (const [args, code] of cases) {
      const result = await kgate(...args);
      expect({ args, exit: result.code, stdout: result.stdout, code: result.stderr.includes(`(${code})`) }).toEqual({ args, exit: 1, stdout: '', code: true });
    }
    expect(await install.withDatabase(runtimeRows)).toBe(before);
  }

  beforeAll(async () => {
    install = await newInstallation();
    singleJson<BootstrapOutput>(await runKgate(['admin', 'bootstrap', '--empty', '--email', ADMIN, '--json'], install.env));
  }, SLOW_MS);

  it('creates an organization with its admin and sets, merges and clears its settings', async () => {
    const created = await json<OrganizationWithAdmins>('org', 'create', '--slug', 'acme', '--name', 'Acme Learning', '--admin', ADMIN);
    expect(created).toMatchObject({ slug: 'acme', name: 'Acme Learning', status: 'active', settings: {}, admins: [{ email: ADMIN }] });
    const set = await json<RuntimeOrganization>('org', 'settings', 'acme', '--api-operations-per-month', '10000', '--intelligence-budget-microdollars', '5000000');
    expect(set.settings).toEqual({ apiOperationsPerMonth: 10000, intelligenceBudgetMicrodollarsMonthly: 5000000 });
    const cleared = await kgate('org', 'settings', 'acme', '--api-operations-per-month', 'blank', '--media-storage-bytes', '1048576');
    expect({ code: cleared.code, stdout: cleared.stdout }).toEqual({
      code: 0,
      stdout: [
        `Settings of acme (Acme Learning), active, id ${created.id}`,
        '  api operations per month:   no cap',
        '  intelligence budget (µ$):   5000000',
        '  max concurrent intelligence: not set',
        '  media storage bytes:        1048576',
        '',
      ].join('\n'),
    });
  }, SLOW_MS);

  it('suspends and resumes, and lists organizations with their admins', async () => {
    expect((await json<RuntimeOrganization>('org', 'suspend', 'acme')).status).toBe('suspended');
    const resumed = await kgate('org', 'resume', 'acme');
    expect({ code: resumed.code, stdout: resumed.stdout }).toEqual({ code: 0, stdout: 'Organization acme is active.\n' });
    const listed = await json<{ items: OrganizationWithAdmins[]; truncated: boolean }>('org', 'list');
    expect(listed).toMatchObject({ items: [{ slug: 'acme', status: 'active', admins: [{ email: ADMIN }] }], truncated: false });
  }, SLOW_MS);

  it('creates and retires products', async () => {
    const product = await json<RuntimeProduct>('product', 'create', '--org', 'acme', '--slug', 'tutor', '--name', 'Acme Tutor', '--domain-pack', 'education', '--return-origin', 'https://tutor.example.com/');
    expect(product).toMatchObject({ slug: 'tutor', name: 'Acme Tutor', status: 'active', domainPack: 'education', returnOrigins: ['https://tutor.example.com'] });
    const retired = await kgate('product', 'retire', 'tutor');
    expect({ code: retired.code, first: retired.stdout.split(',')[0] }).toEqual({ code: 0, first: 'Retired product tutor (Acme Tutor)' });
  }, SLOW_MS);

  it('refuses what the administration service refuses, with its code, exit 1 and nothing changed', async () => {
    await refused([
      // One of each code; src/domains/runtime/admin/*.test.ts go through every refusal.
      [['org', 'create', '--slug', 'acme', '--name', 'Again', '--admin', ADMIN], 'conflict'],
      [['org', 'admin', 'add', 'acme', 'nobody@example.test'], 'not_found'],
      [['product', 'create', '--org', 'acme', '--slug', 'web', '--name', 'Web', '--return-origin', 'http://insecure.example.com'], 'invalid_request'],
    ]);
  }, SLOW_MS);

  it('answers usage mistakes with exit 2 before opening any database', async () => {
    const fresh = join(await tempDir('runtime-usage'), 'data');
    for (const args of [
      [],
      ['principals'],
      ['org'],
      ['org', 'create', '--slug', 'x', '--name', 'X'],
      ['org', 'settings', 'acme', '--api-operations-per-month', '-1'],
      ['org', 'settings', 'acme', '--bogus', '1'],
      ['org', 'admin', 'grant', 'acme', ADMIN],
      ['product', 'retire'],
      ['product', 'retire', 'a', 'b'],
    ]) {
      const result = await runKgate(['runtime', ...args], { KGATE_DATA_DIR: fresh });
      expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 2, stdout: '' });
    }
    expect(existsSync(fresh)).toBe(false);
  }, SLOW_MS);
});
