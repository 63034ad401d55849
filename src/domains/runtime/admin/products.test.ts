import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeOf, openRuntimeAdminSuite, runtimeRows, type RuntimeAdminSuite } from '../../../../test/support/runtime-admin.ts';

describe('runtime administration: products', () => {
  let suite: RuntimeAdminSuite;

  beforeAll(async () => {
    suite = await openRuntimeAdminSuite('products');
  });
  afterAll(() => suite.db.close());

  it('an organization admin defines a product with normalized return origins', async () => {
    const { admin, orgAdmin, organization } = suite;
    const product = await admin.createProduct(orgAdmin.accountId, organization.id, {
      slug: 'planner',
      name: ' Lesson Planner ',
      experiencePack: { version: 1, presentation: { density: 'compact' } },
      returnOrigins: ['https://Planner.Example.com', 'https://planner.example.com/', 'https://planner.example.com:8443/oauth/done?x=1'],
    });
    expect(product).toMatchObject({
      organizationId: organization.id,
      slug: 'planner',
      name: 'Lesson Planner',
      status: 'active',
      domainPack: null,
      experiencePack: { version: 1, presentation: { density: 'compact' } },
      returnOrigins: ['https://planner.example.com', 'https://planner.example.com:8443/oauth/done?x=1'],
    });
    const listed = await admin.listProducts(orgAdmin.accountId, organization.id);
    expect(listed.items.map((p) => p.slug)).toEqual(['tutor-products', 'planner']);
  });

  it('refuses a non-admin, a taken slug and bad definitions, and changes nothing', async () => {
    const { admin, db, orgAdmin, organization, owner } = suite;
    const before = await runtimeRows(db);
    const create = (definition: Parameters<typeof admin.createProduct>[2], actor = orgAdmin.accountId, orgId = organization.id) =>
      codeOf(admin.createProduct(actor, orgId, definition));
    const refusals = await Promise.all([
      create({ slug: 'sneaky', name: 'Sneaky' }, owner.accountId),
      create({ slug: 'sneaky', name: 'Sneaky' }, orgAdmin.accountId, '00000000-0000-7000-8000-000000000000'),
      create({ slug: 'sneaky', name: 'Sneaky' }, orgAdmin.accountId, 'acme'),
      create({ slug: 'planner', name: 'Again' }),
      create({ slug: 'tutor-products', name: 'Again' }),
      create({ slug: 'UPPER', name: 'Bad slug' }),
      create({ slug: 'fine', name: '' }),
      create({ slug: 'fine', name: 'Fine', domainPack: 'astrology' }),
      create({ slug: 'fine', name: 'Fine', experiencePack: 'not an object' }),
      create({ slug: 'fine', name: 'Fine', experiencePack: { version: 1, audience: 'teachers' } }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: ['http://insecure.example.com'] }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: ['https://*.example.com'] }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: ['https://example.com/cb#frag'] }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: ['https://user:pw@example.com'] }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: ['https://example.com/ cb'] }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: ['not a url'] }),
      create({ slug: 'fine', name: 'Fine', returnOrigins: Array.from({ length: 11 }, (_, i) => `https://o${i}.example.com`) }),
    ]);
    expect(refusals).toEqual([
      'not_found',
      'not_found',
      'not_found',
      'conflict',
      'conflict',
      ...Array<string>(12).fill('invalid_request'),
    ]);
    expect(await runtimeRows(db)).toBe(before);
  });

  it('updates what a change names and keeps the rest', async () => {
    const { admin, orgAdmin, product } = suite;
    const renamed = await admin.updateProduct(orgAdmin.accountId, product.id, { name: 'Acme Tutor 2', returnOrigins: ['https://tutor.example.com'] });
    expect(renamed).toMatchObject({ slug: product.slug, name: 'Acme Tutor 2', domainPack: 'education', returnOrigins: ['https://tutor.example.com'] });
    const cleared = await admin.updateProduct(orgAdmin.accountId, product.id, { domainPack: null });
    expect(cleared).toMatchObject({ name: 'Acme Tutor 2', domainPack: null, returnOrigins: ['https://tutor.example.com'] });
  });

  it('lists installations for admins only', async () => {
    const { admin, orgAdmin, owner, product } = suite;
    const installation = await admin.install(owner.accountId, product.slug);
    const listed = await admin.listInstallationsOfProduct(orgAdmin.accountId, product.id);
    expect(listed.items).toEqual([{ id: installation.id, status: 'active', customer: { accountId: owner.accountId, email: owner.email }, createdAt: expect.any(Date), uninstalledAt: null }]);
    expect(await codeOf(admin.listInstallationsOfProduct(owner.accountId, product.id))).toBe('not_found');
    expect(await codeOf(admin.listProducts(owner.accountId, product.organizationId))).toBe('not_found');
  });

  it('retires a product once; a retired product cannot change, and a non-admin cannot retire', async () => {
    const { admin, db, orgAdmin, owner, product, chainChanges } = suite;
    const beforeRefusal = await runtimeRows(db);
    expect(await codeOf(admin.retireProduct(owner.accountId, product.id))).toBe('not_found');
    expect(await codeOf(admin.updateProduct(owner.accountId, product.id, { name: 'Mine now' }))).toBe('not_found');
    expect(await codeOf(admin.updateProduct(orgAdmin.accountId, product.id, { returnOrigins: ['ftp://x'] }))).toBe('invalid_request');
    expect(await runtimeRows(db)).toBe(beforeRefusal);

    const changes = chainChanges.length;
    expect((await admin.retireProduct(orgAdmin.accountId, product.id)).status).toBe('retired');
    expect(chainChanges.slice(changes)).toEqual([product.organizationId]);
    const retired = await runtimeRows(db);
    expect((await admin.retireProduct(orgAdmin.accountId, product.id)).status).toBe('retired');
    expect(await codeOf(admin.updateProduct(orgAdmin.accountId, product.id, { name: 'Back' }))).toBe('conflict');
    expect(await runtimeRows(db)).toBe(retired);
    expect(chainChanges.length).toBe(changes + 1);
  });

  it('the operator creates and retires products by slug', async () => {
    const { admin, db, organization } = suite;
    const made = await admin.createProductAsOperator(organization.slug, { slug: 'quiz', name: 'Quiz', domainPack: 'education' });
    expect(made).toMatchObject({ organizationId: organization.id, slug: 'quiz', status: 'active' });
    expect((await admin.retireProductAsOperator('quiz')).status).toBe('retired');
    const before = await runtimeRows(db);
    const refusals = await Promise.all([
      codeOf(admin.createProductAsOperator('no-such-org', { slug: 'x1', name: 'X' })),
      codeOf(admin.createProductAsOperator(organization.slug, { slug: 'quiz', name: 'Quiz again' })),
      codeOf(admin.retireProductAsOperator('no-such-product')),
      codeOf(admin.retireProductAsOperator('NOT A SLUG')),
    ]);
    expect(refusals).toEqual(['not_found', 'conflict', 'not_found', 'not_found']);
    expect(await runtimeRows(db)).toBe(before);
  });
});
