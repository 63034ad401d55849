import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDatabase } from '../../../test/support/database.ts';
import type { Database } from '../../db/port.ts';
import { createServices, type Services } from '../../app/services.ts';
import { verifyPassword } from './password.ts';

describe('accounts and bootstrap', () => {
  let db: Database;
  let services: Services;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    services = createServices(db);
  });
  afterAll(() => db.close());

  it('ensureAccount creates once and finds the same account by email in any case', async () => {
    const first = await services.accounts.ensureAccount({ email: 'Ada@Example.test', plan: 'team' });
    const again = await services.accounts.ensureAccount({ email: 'ada@example.TEST', plan: 'free' });
    expect(first.created).toBe(true);
    expect(again).toEqual({ account: first.account, created: false });
    expect(again.account.plan).toBe('team');
  });

  it('rejects invalid emails and short passwords, creating nothing', async () => {
    const before = await services.accounts.countAccounts();
    for (const email of ['', 'no-at-sign', 'a b@c.d', '@x', 'x@']) {
      await expect(services.accounts.ensureAccount({ email, plan: 'free' })).rejects.toMatchObject({ code: 'invalid_request' });
    }
    await expect(
      services.accounts.ensureAccount({ email: 'short@example.test', plan: 'free', password: 'seven77' }),
    ).rejects.toMatchObject({ code: 'invalid_request', details: { field: 'password' } });
    expect(await services.accounts.countAccounts()).toBe(before);
  });

  it('stores passwords as scrypt hashes that verify', async () => {
    const { account } = await services.accounts.ensureAccount({ email: 'pw@example.test', plan: 'free', password: 'correct horse' });
    const [row] = await db.query<{ password_hash: string }>('SELECT password_hash FROM accounts WHERE id = $1', [account.id]);
    expect(row!.password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(row!.password_hash).not.toContain('correct horse');
    expect(await verifyPassword('correct horse', row!.password_hash)).toBe(true);
    expect(await verifyPassword('wrong horse', row!.password_hash)).toBe(false);
    expect(await verifyPassword('correct horse', 'garbage')).toBe(false);
  });

  it('bootstrapOwner is idempotent: same account, workspace and mapping; a new token each time', async () => {
    const first = await services.onboarding.bootstrapOwner({ email: 'boot@example.test' });
    const second = await services.onboarding.bootstrapOwner({ email: 'boot@example.test' });
    expect(second.accountId).toBe(first.accountId);
    expect(second.workspaceId).toBe(first.workspaceId);
    expect(second.mapping.id).toBe(first.mapping.id);
    expect(second.token).not.toBe(first.token);
    expect([first.accountCreated, first.vaultCreated, second.accountCreated, second.vaultCreated]).toEqual([true, true, false, false]);
    const account = await services.accounts.getAccount(first.accountId);
    expect(account.plan).toBe('developer');
    for (const token of [first.token, second.token]) {
      expect((await services.tokens.authenticate(token)).accountId).toBe(first.accountId);
    }
  });

  it('bootstrapOwner runs in one transaction: a failure at the last step leaves nothing behind', async () => {
    // Fault injection in the real database: the token insert, bootstrap's last step, fails.
    await db.exec(`
      CREATE FUNCTION refuse_token() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'token store unavailable'; END $$;
      CREATE TRIGGER refuse_token BEFORE INSERT ON personal_access_tokens FOR EACH ROW EXECUTE FUNCTION refuse_token();`);
    const count = async (table: string) => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`))[0]!.n;
    const tables = ['accounts', 'workspaces', 'workspace_members', 'vaults', 'mappings'];
    try {
      const before = await Promise.all(tables.map(count));
      await expect(services.onboarding.bootstrapOwner({ email: 'partial@example.test' })).rejects.toThrow(/token store unavailable/);
      expect(await Promise.all(tables.map(count))).toEqual(before);
      expect(await services.accounts.findByEmail('partial@example.test')).toBeUndefined();
    } finally {
      await db.exec('DROP TRIGGER refuse_token ON personal_access_tokens; DROP FUNCTION refuse_token();');
    }
  });
});
