import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner } from '../../../../test/support/fixtures.ts';
import { codeOf, openRuntimeAdminSuite, runtimeRows, type RuntimeAdminSuite } from '../../../../test/support/runtime-admin.ts';

describe('runtime administration: installations', () => {
  let suite: RuntimeAdminSuite;

  beforeAll(async () => {
    suite = await openRuntimeAdminSuite('installs');
  });
  afterAll(() => suite.db.close());

  it('lists active products of active organizations only, and installs one', async () => {
    const { admin, orgAdmin, organization, owner, product } = suite;
    await admin.createProduct(orgAdmin.accountId, organization.id, { slug: 'old-tool', name: 'Old tool' });
    await admin.retireProductAsOperator('old-tool');
    expect((await admin.listInstallableProducts()).items).toEqual([{ slug: product.slug, name: 'Acme Tutor', organizationName: 'Acme Learning', domainPack: 'education' }]);

    const installation = await admin.install(owner.accountId, product.slug);
    expect(installation).toMatchObject({
      status: 'active',
      product: { id: product.id, slug: product.slug, name: 'Acme Tutor', status: 'active' },
      organization: { name: 'Acme Learning', status: 'active' },
      intelligenceSublimitMicrodollars: null,
      uninstalledAt: null,
      assignments: [],
      grants: [],
    });
    expect((await admin.listMyInstallations(owner.accountId)).items).toEqual([installation]);
  });

  it('refuses a second active installation, unknown, retired and suspended products, and changes nothing', async () => {
    const { admin, db, owner, product, organization } = suite;
    const before = await runtimeRows(db);
    expect(await codeOf(admin.install(owner.accountId, product.slug))).toBe('conflict');
    expect(await codeOf(admin.install(owner.accountId, 'old-tool'))).toBe('not_found');
    expect(await codeOf(admin.install(owner.accountId, 'no-such-product'))).toBe('not_found');
    expect(await codeOf(admin.install(owner.accountId, '../tutor'))).toBe('not_found');
    expect(await runtimeRows(db)).toBe(before);

    const other = await createOwner(suite.services, 'suspended-org-customer');
    await admin.setOrganizationStatus(organization.slug, 'suspended');
    const suspended = await runtimeRows(db);
    expect(await codeOf(admin.install(other.accountId, product.slug))).toBe('not_found');
    expect((await admin.listInstallableProducts()).items).toEqual([]);
    expect(await runtimeRows(db)).toBe(suspended);
    await admin.setOrganizationStatus(organization.slug, 'active');
  });

  it('refuses a suspended account, and changes nothing', async () => {
    const { admin, db, services, product } = suite;
    const suspended = await createOwner(services, 'suspended-customer');
    await services.accounts.setStatus(suspended.accountId, 'suspended');
    const before = await runtimeRows(db);
    expect(await codeOf(admin.install(suspended.accountId, product.slug))).toBe('account_inactive');
    expect(await runtimeRows(db)).toBe(before);
  });

  it('sets and clears a sublimit, refusing bad amounts and other customers', async () => {
    const { admin, db, owner, services } = suite;
    const [installation] = (await admin.listMyInstallations(owner.accountId)).items;
    const id = installation!.id;
    expect((await admin.setInstallationSublimit(owner.accountId, id, 2_000_000)).intelligenceSublimitMicrodollars).toBe(2_000_000);
    const [row] = await db.query<{ configuration: unknown }>('SELECT configuration FROM runtime_installations WHERE id = $1', [id]);
    expect(row!.configuration).toEqual({ productRuntime: { intelligenceBudgetMicrodollarsMonthly: 2_000_000 } });

    const stranger = await createOwner(services, 'stranger');
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.setInstallationSublimit(owner.accountId, id, -1)),
      codeOf(admin.setInstallationSublimit(owner.accountId, id, 1.5)),
      codeOf(admin.setInstallationSublimit(owner.accountId, id, '5' as never)),
      codeOf(admin.setInstallationSublimit(stranger.accountId, id, 1)),
      codeOf(admin.setInstallationSublimit(owner.accountId, 'not-a-uuid', 1)),
      codeOf(admin.uninstall(stranger.accountId, id)),
    ]);
    expect(refusals).toEqual(['invalid_request', 'invalid_request', 'invalid_request', 'not_found', 'not_found', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
    expect((await admin.setInstallationSublimit(owner.accountId, id, null)).intelligenceSublimitMicrodollars).toBeNull();
  });

  it('uninstalls, after which the installation cannot change, and installing again makes a new one', async () => {
    const { admin, db, owner, product, chainChanges } = suite;
    const [installation] = (await admin.listMyInstallations(owner.accountId)).items;
    const changes = chainChanges.length;
    const uninstalled = await admin.uninstall(owner.accountId, installation!.id);
    expect(uninstalled).toMatchObject({ id: installation!.id, status: 'uninstalled', uninstalledAt: expect.any(Date) });
    expect(chainChanges.slice(changes)).toEqual([product.organizationId]);
    expect((await admin.listMyInstallations(owner.accountId)).items).toEqual([]);

    const before = await runtimeRows(db);
    expect(await codeOf(admin.uninstall(owner.accountId, installation!.id))).toBe('not_found');
    expect(await codeOf(admin.setInstallationSublimit(owner.accountId, installation!.id, 1))).toBe('not_found');
    expect(await codeOf(admin.assignWorkspace(owner.accountId, installation!.id, owner.workspaceId))).toBe('not_found');
    expect(await runtimeRows(db)).toBe(before);

    const again = await admin.install(owner.accountId, product.slug);
    expect(again.id).not.toBe(installation!.id);
    expect((await admin.listInstallationsOfProduct(suite.orgAdmin.accountId, product.id)).items.map((i) => [i.id, i.status])).toEqual([
      [again.id, 'active'],
      [installation!.id, 'uninstalled'],
    ]);
  });
});
