import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOwner } from '../../../../test/support/fixtures.ts';
import { codeOf, openRuntimeAdminSuite, runtimeRows, type RuntimeAdminSuite } from '../../../../test/support/runtime-admin.ts';
import { DEFAULT_MEDIA_STORAGE_BYTES } from '../contract.ts';

describe('runtime administration: organizations', () => {
  let suite: RuntimeAdminSuite;

  beforeAll(async () => {
    suite = await openRuntimeAdminSuite('orgs');
  });
  afterAll(() => suite.db.close());

  it('creates an organization with its first admin, active and without settings', async () => {
    const { admin, orgAdmin } = suite;
    const created = await admin.createOrganization({ slug: 'northwind', name: '  Northwind Press ', adminEmail: orgAdmin.email.toUpperCase() });
    expect(created).toMatchObject({ slug: 'northwind', name: 'Northwind Press', status: 'active', settings: {}, brand: null, admins: [{ accountId: orgAdmin.accountId, email: orgAdmin.email }] });
    expect((await admin.listMyOrganizations(orgAdmin.accountId)).map((o) => o.slug).sort()).toEqual(['acme-orgs', 'northwind']);
    expect(await admin.listMyOrganizations(suite.owner.accountId)).toEqual([]);
    const listed = await admin.listOrganizations();
    expect({ slugs: listed.items.map((o) => o.slug), truncated: listed.truncated }).toEqual({ slugs: ['acme-orgs', 'northwind'], truncated: false });
  });

  it('refuses a taken slug, bad input and an unknown admin email, and changes nothing', async () => {
    const { admin, db, orgAdmin } = suite;
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.createOrganization({ slug: 'acme-orgs', name: 'Copy', adminEmail: orgAdmin.email })),
      codeOf(admin.createOrganization({ slug: 'Bad Slug', name: 'X', adminEmail: orgAdmin.email })),
      codeOf(admin.createOrganization({ slug: '-x', name: 'X', adminEmail: orgAdmin.email })),
      codeOf(admin.createOrganization({ slug: 'fine', name: '   ', adminEmail: orgAdmin.email })),
      codeOf(admin.createOrganization({ slug: 'fine', name: 'n'.repeat(201), adminEmail: orgAdmin.email })),
      codeOf(admin.createOrganization({ slug: 'fine', name: 'Tab\there', adminEmail: orgAdmin.email })),
      codeOf(admin.createOrganization({ slug: 'fine', name: 'Fine', adminEmail: 'nobody@example.test' })),
    ]);
    expect(refusals).toEqual(['conflict', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
  });

  it('merges settings: a number sets a field, null clears it (no cap), others are kept', async () => {
    const { admin, organization, chainChanges } = suite;
    const changesBefore = chainChanges.length;
    const set = await admin.setOrganizationSettings(organization.slug, { apiOperationsPerMonth: 10_000, intelligenceBudgetMicrodollarsMonthly: 5_000_000 });
    expect(set.settings).toEqual({ apiOperationsPerMonth: 10_000, intelligenceBudgetMicrodollarsMonthly: 5_000_000 });
    const merged = await admin.setOrganizationSettings(organization.slug, { apiOperationsPerMonth: null, mediaStorageBytes: DEFAULT_MEDIA_STORAGE_BYTES });
    expect(merged.settings).toEqual({ intelligenceBudgetMicrodollarsMonthly: 5_000_000, mediaStorageBytes: DEFAULT_MEDIA_STORAGE_BYTES });
    const paused = await admin.setOrganizationSettings(organization.slug, { apiOperationsPerMonth: 0 });
    expect(paused.settings.apiOperationsPerMonth).toBe(0);
    const [row] = await suite.db.query<{ settings: unknown }>('SELECT settings FROM runtime_organizations WHERE id = $1', [organization.id]);
    expect(row!.settings).toEqual({ productRuntime: { apiOperationsPerMonth: 0, intelligenceBudgetMicrodollarsMonthly: 5_000_000, mediaStorageBytes: DEFAULT_MEDIA_STORAGE_BYTES } });
    expect(chainChanges.slice(changesBefore)).toEqual([organization.id, organization.id, organization.id]);
  });

  it('refuses bad settings and unknown organizations, and changes nothing', async () => {
    const { admin, db, organization } = suite;
    const before = await runtimeRows(db);
    const slug = organization.slug;
    const refusals = await Promise.all([
      codeOf(admin.setOrganizationSettings(slug, { apiOperationsPerMonth: -1 })),
      codeOf(admin.setOrganizationSettings(slug, { apiOperationsPerMonth: 1.5 })),
      codeOf(admin.setOrganizationSettings(slug, { maxConcurrentIntelligence: 0 })),
      codeOf(admin.setOrganizationSettings(slug, { audience: 1 } as never)),
      codeOf(admin.setOrganizationSettings(slug, 'x' as never)),
      codeOf(admin.setOrganizationSettings('no-such-org', { apiOperationsPerMonth: 1 })),
      codeOf(admin.setOrganizationSettings('NOT A SLUG', { apiOperationsPerMonth: 1 })),
      codeOf(admin.setOrganizationStatus(slug, 'deleted' as never)),
      codeOf(admin.setOrganizationStatus('no-such-org', 'suspended')),
    ]);
    expect(refusals).toEqual(['invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'invalid_request', 'not_found', 'not_found', 'invalid_request', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
  });

  it('suspends and resumes an organization', async () => {
    const { admin, organization } = suite;
    expect((await admin.setOrganizationStatus(organization.slug, 'suspended')).status).toBe('suspended');
    expect((await admin.listMyOrganizations(suite.orgAdmin.accountId)).find((o) => o.id === organization.id)?.status).toBe('suspended');
    expect((await admin.setOrganizationStatus(organization.slug, 'active')).status).toBe('active');
  });

  it('adds and removes admins, keeps the last one, and refuses unknown people', async () => {
    const { admin, db, organization, orgAdmin, services } = suite;
    const second = await createOwner(services, 'second-admin');
    const added = await admin.addOrganizationAdmin(organization.slug, second.email);
    expect(added.admins.map((a) => a.accountId).sort()).toEqual([orgAdmin.accountId, second.accountId].sort());
    // Adding an admin again changes nothing.
    expect((await admin.addOrganizationAdmin(organization.slug, second.email)).admins).toHaveLength(2);
    expect((await admin.removeOrganizationAdmin(organization.slug, orgAdmin.email)).admins).toEqual([{ accountId: second.accountId, email: second.email }]);
    expect(await admin.listMyOrganizations(orgAdmin.accountId)).not.toContainEqual(expect.objectContaining({ id: organization.id }));

    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.removeOrganizationAdmin(organization.slug, second.email)),
      codeOf(admin.removeOrganizationAdmin(organization.slug, orgAdmin.email)),
      codeOf(admin.addOrganizationAdmin(organization.slug, 'nobody@example.test')),
      codeOf(admin.addOrganizationAdmin('no-such-org', second.email)),
    ]);
    expect(refusals).toEqual(['conflict', 'not_found', 'not_found', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
    await admin.addOrganizationAdmin(organization.slug, orgAdmin.email);
  });

  it('lets an admin set the brand; anyone else, and a malformed id, learn nothing and change nothing', async () => {
    const { admin, db, organization, orgAdmin, owner } = suite;
    const brand = { displayName: 'Acme', colors: { primary: '#AA3300' }, supportUrl: 'https://acme.example.com/help' };
    expect((await admin.setBrand(orgAdmin.accountId, organization.id, brand)).brand).toEqual({ ...brand, colors: { primary: '#aa3300' } });
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.setBrand(owner.accountId, organization.id, { displayName: 'Hijacked' })),
      codeOf(admin.setBrand(orgAdmin.accountId, 'not-a-uuid', brand)),
      codeOf(admin.setBrand(orgAdmin.accountId, organization.id, ['not', 'an', 'object'])),
      codeOf(admin.setBrand(orgAdmin.accountId, organization.id, { displayName: 'Acme', logoUrl: 'javascript:alert(1)' })),
      codeOf(admin.setBrand(orgAdmin.accountId, organization.id, { displayName: 'Acme', audience: 'owners' })),
    ]);
    expect(refusals).toEqual(['not_found', 'not_found', 'invalid_request', 'invalid_request', 'invalid_request']);
    expect(await runtimeRows(db)).toBe(before);
    expect((await admin.setBrand(orgAdmin.accountId, organization.id, null)).brand).toBeNull();
  });
});
