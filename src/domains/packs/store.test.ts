import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/port.ts';
import { systemClock } from '../../kernel/clock.ts';
import { packageFile } from '../../kernel/package-files.ts';
import { openTestDatabase } from '../../../test/support/database.ts';
import { insertRuntimeAccount, insertRuntimeChain, type RuntimeChain } from '../../../test/support/runtime-records.ts';
import { loadPack, type ParsedPack } from './format/index.ts';
import { publishPack } from './publish.ts';
import { entitledProducts, entitlementOf, listEntitledPacks, listProductPacks } from './store.ts';

describe('who is entitled to a product packs, and the listing of them', () => {
  let db: Database;
  let example: ParsedPack;
  /** Everything active. */
  let active: RuntimeChain;
  let uninstalled: RuntimeChain;
  let retired: RuntimeChain;
  let suspended: RuntimeChain;
  let stranger: string;
  const slugs = new Map<string, string>();

  const slugOf = (chain: RuntimeChain) => slugs.get(chain.productId)!;

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    active = await insertRuntimeChain(db);
    uninstalled = await insertRuntimeChain(db, { installationStatus: 'uninstalled' });
    retired = await insertRuntimeChain(db, { productStatus: 'retired' });
    suspended = await insertRuntimeChain(db, { organizationStatus: 'suspended' });
    stranger = await insertRuntimeAccount(db, 'stranger');
    for (const row of await db.query<{ id: string; slug: string }>('SELECT id, slug FROM runtime_products')) slugs.set(row.id, row.slug);
    const loaded = await loadPack(packageFile('examples', 'packs', 'k8-math'));
    if (!loaded.ok) throw new Error('the example pack does not load');
    example = loaded.pack;
  });
  afterAll(() => db.close());

  it('answers admin, customer or nothing, from the records', async () => {
    const cases: [string, string, string, 'admin' | 'customer' | undefined][] = [
      ['admin of an active product', active.adminAccountId, slugOf(active), 'admin'],
      ['customer with an active installation', active.customerAccountId, slugOf(active), 'customer'],
      ['customer whose installation is uninstalled', uninstalled.customerAccountId, slugOf(uninstalled), undefined],
      ['customer of a retired product', retired.customerAccountId, slugOf(retired), undefined],
      ['customer of a suspended organization', suspended.customerAccountId, slugOf(suspended), undefined],
      // An admin administers the organization whatever the product's or the organization's status.
      ['admin of a retired product', retired.adminAccountId, slugOf(retired), 'admin'],
      ['admin of a suspended organization', suspended.adminAccountId, slugOf(suspended), 'admin'],
      ['stranger', stranger, slugOf(active), undefined],
      ['customer of another product', uninstalled.customerAccountId, slugOf(active), undefined],
      ['admin of another organization', retired.adminAccountId, slugOf(active), undefined],
      ['unknown product', active.adminAccountId, 'no-such-product', undefined],
      ['not an account id', 'not-a-uuid', slugOf(active), undefined],
    ];
    for (const [label, account, product, expected] of cases) {
      expect({ label, entitled: await entitlementOf(db, account, product) }).toEqual({ label, entitled: expected });
    }
  });

  it('an uninstalled installation stops entitling, and a new active one entitles again', async () => {
    const chain = await insertRuntimeChain(db);
    const slug = (await db.query<{ slug: string }>('SELECT slug FROM runtime_products WHERE id = $1', [chain.productId]))[0]!.slug;
    expect(await entitlementOf(db, chain.customerAccountId, slug)).toBe('customer');
    await db.query(`UPDATE runtime_installations SET status = 'uninstalled', uninstalled_at = now() WHERE id = $1`, [chain.installationId]);
    expect(await entitlementOf(db, chain.customerAccountId, slug)).toBeUndefined();
  });

  it('lists the products and packs an account is entitled to, with versions newest first', async () => {
    const pack = (chain: RuntimeChain, slug: string): ParsedPack => ({ ...example, product: slugOf(chain), slug });
    await publishPack(db, systemClock, pack(active, 'k8-math'), { kind: 'operator' });
    await publishPack(db, systemClock, { ...pack(active, 'k8-math'), title: 'Revised' }, { kind: 'account', accountId: active.adminAccountId });
    await publishPack(db, systemClock, pack(active, 'another'), { kind: 'operator' });
    await publishPack(db, systemClock, pack(retired, 'k8-math'), { kind: 'operator' });

    expect(await entitledProducts(db, active.customerAccountId)).toEqual([
      { productId: active.productId, productSlug: slugOf(active), productName: expect.any(String), entitledAs: 'customer' },
    ]);
    expect((await entitledProducts(db, retired.customerAccountId)).length).toBe(0);
    expect((await entitledProducts(db, retired.adminAccountId)).map((p) => [p.productId, p.entitledAs])).toEqual([[retired.productId, 'admin']]);
    expect(await entitledProducts(db, stranger)).toEqual([]);
    expect(await entitledProducts(db, 'not-a-uuid')).toEqual([]);

    const listed = await listEntitledPacks(db, active.customerAccountId);
    expect(listed.map((p) => [p.product, p.pack, p.title, p.entitledAs, p.versions.map((v) => v.version)])).toEqual([
      [slugOf(active), 'another', example.title, 'customer', [1]],
      [slugOf(active), 'k8-math', 'Revised', 'customer', [2, 1]],
    ]);
    expect(listed[1]!.versions[0]).toEqual({
      version: 2,
      title: 'Revised',
      publishedAt: expect.any(Date),
      publishedBy: `account:${active.adminAccountId}`,
      sources: 2,
      assertions: example.assertions.length,
      insights: 2,
    });
    expect(listed[1]!.versions[1]!.publishedBy).toBe('operator');
    expect(await listEntitledPacks(db, retired.customerAccountId)).toEqual([]);
    expect((await listEntitledPacks(db, retired.adminAccountId)).map((p) => [p.pack, p.entitledAs])).toEqual([['k8-math', 'admin']]);
    expect(await listEntitledPacks(db, stranger)).toEqual([]);

    // At most the newest N versions of each pack.
    const newest = await listProductPacks(db, [active.productId], 1);
    expect(newest.map((p) => [p.packSlug, p.versions.map((v) => v.version)])).toEqual([
      ['another', [1]],
      ['k8-math', [2]],
    ]);
    expect(await listProductPacks(db, ['not-a-uuid'])).toEqual([]);
  });
});
