import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { openTestDatabase } from '../../../../test/support/database.ts';
import { insertRuntimeChain, type RuntimeChain } from '../../../../test/support/runtime-records.ts';
import { createRuntimeCredentialsService, type RuntimeCredentialsService } from './index.ts';

const TOKEN_ENDPOINT = 'https://kgate.test/api/product/v1/oauth/token';

describe('authenticating a Product Runtime token: links 1 to 8 of the chain', () => {
  let db: Database;
  let service: RuntimeCredentialsService;
  let now = new Date('2026-11-21T10:00:00Z');
  const clock: Clock = { now: () => now };
  const queries: string[] = [];

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    // Counts the statements authentication runs, through the real database.
    const counted = new Proxy(db, {
      get(target, property) {
        if (property === 'query') {
          return (text: string, params?: readonly unknown[]) => {
            queries.push(text);
            return target.query(text, params);
          };
        }
        const value: unknown = Reflect.get(target, property, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    service = createRuntimeCredentialsService(counted, { clock, tokenEndpointUrl: () => TOKEN_ENDPOINT });
  });
  afterAll(() => db.close());

  /** A fresh chain with a principal holding `scopes`, and a token for `requested` of them. */
  async function issued(scopes: string[] = ['media.read', 'notes.publish'], requested?: string) {
    const chain = await insertRuntimeChain(db);
    const principal = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'reader', scopes });
    const { secret, credentialId } = await service.addClientSecret(chain.adminAccountId, principal.id);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: principal.id, client_secret: secret });
    if (requested) form.set('scope', requested);
    const token = (await service.grantToken(form)).access_token;
    return { chain, principal, credentialId, token };
  }

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: { code?: string }) => error.code,
    );

  it('resolves every record of the chain in one query', async () => {
    const { chain, principal, credentialId, token } = await issued();
    queries.length = 0;
    const resolved = await service.authenticate(token);
    expect(queries).toHaveLength(1);
    expect(resolved).toEqual({
      principalId: principal.id,
      principalName: 'reader',
      credentialId,
      scopes: ['media.read', 'notes.publish'],
      installationId: chain.installationId,
      intelligenceSublimitMicrodollars: null,
      customerAccountId: chain.customerAccountId,
      product: { id: chain.productId, slug: expect.stringMatching(/^product-/), name: expect.stringMatching(/^Product /), domainPack: 'education' },
      organization: { id: chain.organizationId, slug: expect.stringMatching(/^org-/), name: expect.stringMatching(/^Organization /), settings: {} },
    });
    // The installation's intelligence sublimit comes with the same query, as the installation holds it now.
    await db.query(`UPDATE runtime_installations SET configuration = $2 WHERE id = $1`, [chain.installationId, JSON.stringify({ productRuntime: { intelligenceBudgetMicrodollarsMonthly: 250_000 } })]);
    queries.length = 0;
    expect((await service.authenticate(token)).intelligenceSublimitMicrodollars).toBe(250_000);
    expect(queries).toHaveLength(1);
  });

  it('refuses malformed bearers without a query, and unknown ones with one', async () => {
    const { token } = await issued();
    queries.length = 0;
    for (const bearer of ['', 'kgrp_short', `kgp_${'A'.repeat(43)}`, `kgat_${'A'.repeat(43)}`, `kgcs_${'A'.repeat(43)}`, `${token}x`, ` ${token}`]) {
      expect(await codeOf(service.authenticate(bearer))).toBe('unauthenticated');
    }
    expect(queries).toEqual([]);
    expect(await codeOf(service.authenticate(`kgrp_${'A'.repeat(43)}`))).toBe('unauthenticated');
    expect(queries).toHaveLength(1);
  });

  it('answers each inactive link with its own code, in the order of the chain', async () => {
    const cases: [string, (chain: RuntimeChain, principalId: string, credentialId: string) => Promise<unknown>][] = [
      ['principal_revoked', (chain, principalId) => service.revokePrincipal(chain.adminAccountId, principalId)],
      // Revoking deletes the credential's tokens; a token left by a concurrent grant is refused by link 3 too.
      ['unauthenticated', (_chain, _principalId, credentialId) => db.query(`UPDATE runtime_principal_credentials SET status = 'revoked' WHERE id = $1`, [credentialId])],
      ['unauthenticated', (chain, _principalId, credentialId) => service.revokeCredential(chain.adminAccountId, credentialId)],
      ['installation_inactive', (chain) => db.query(`UPDATE runtime_installations SET status = 'uninstalled' WHERE id = $1`, [chain.installationId])],
      ['product_retired', (chain) => db.query(`UPDATE runtime_products SET status = 'retired' WHERE id = $1`, [chain.productId])],
      ['organization_suspended', (chain) => db.query(`UPDATE runtime_organizations SET status = 'suspended' WHERE id = $1`, [chain.organizationId])],
      ['runtime_paused', (chain) => db.query(`UPDATE runtime_organizations SET settings = '{"productRuntime":{"apiOperationsPerMonth":0}}' WHERE id = $1`, [chain.organizationId])],
      ['runtime_paused', (chain) => db.query(`UPDATE runtime_organizations SET settings = '{"productRuntime":{"apiOperationsPerMonth":"lots"}}' WHERE id = $1`, [chain.organizationId])],
      ['runtime_paused', (chain) => db.query(`UPDATE runtime_organizations SET settings = '[]' WHERE id = $1`, [chain.organizationId])],
      ['account_inactive', (chain) => db.query(`UPDATE accounts SET status = 'suspended' WHERE id = $1`, [chain.customerAccountId])],
    ];
    for (const [code, breakLink] of cases) {
      const { chain, principal, credentialId, token } = await issued();
      await expect(service.authenticate(token)).resolves.toMatchObject({ principalId: principal.id });
      await breakLink(chain, principal.id, credentialId);
      expect(await codeOf(service.authenticate(token)), code).toBe(code);
    }
  });

  it('stops at the first inactive link when several are', async () => {
    const { chain, token } = await issued();
    await db.query(`UPDATE accounts SET status = 'suspended' WHERE id = $1`, [chain.customerAccountId]);
    await db.query(`UPDATE runtime_organizations SET status = 'suspended' WHERE id = $1`, [chain.organizationId]);
    await db.query(`UPDATE runtime_products SET status = 'retired' WHERE id = $1`, [chain.productId]);
    expect(await codeOf(service.authenticate(token))).toBe('product_retired');
    await db.query(`UPDATE runtime_installations SET status = 'uninstalled' WHERE id = $1`, [chain.installationId]);
    expect(await codeOf(service.authenticate(token))).toBe('installation_inactive');
  });

  it("carries the token's scopes that the principal still holds", async () => {
    const { principal, token } = await issued(['media.read', 'media.write', 'notes.publish'], 'notes.publish media.read');
    expect((await service.authenticate(token)).scopes).toEqual(['media.read', 'notes.publish']);
    await db.query(`UPDATE runtime_service_principals SET scopes = '{notes.publish,media.write}' WHERE id = $1`, [principal.id]);
    expect((await service.authenticate(token)).scopes).toEqual(['notes.publish']);
  });

  it('reads the organization settings it passes on', async () => {
    const { chain, token } = await issued();
    await db.query(`UPDATE runtime_organizations SET settings = '{"productRuntime":{"apiOperationsPerMonth":5000,"mediaStorageBytes":10}}' WHERE id = $1`, [chain.organizationId]);
    expect((await service.authenticate(token)).organization.settings).toEqual({ apiOperationsPerMonth: 5000, mediaStorageBytes: 10 });
  });

  it('refuses an expired token', async () => {
    const { token } = await issued();
    const issuedAt = now;
    now = new Date(issuedAt.getTime() + 15 * 60_000 - 1);
    await expect(service.authenticate(token)).resolves.toBeDefined();
    now = new Date(issuedAt.getTime() + 15 * 60_000);
    expect(await codeOf(service.authenticate(token))).toBe('unauthenticated');
    now = issuedAt;
  });
});
