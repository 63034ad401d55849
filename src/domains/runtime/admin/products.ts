import type { Sql } from '../../../db/port.ts';
import { KgateError, isKgateError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { assertOrganizationAdmin } from '../admins.ts';
import { RuntimeSlugSchema } from '../contract.ts';
import type { AdminContext } from './context.ts';
import type { InstallableProduct, Listing, ProductChange, ProductDefinition, ProductInstallation, RuntimeProduct } from './contract.ts';
import { listProductInstallations } from './installation-store.ts';
import { checkDomainPack, checkExperiencePack } from './packs.ts';
import { assertId, notFound, parseName, parseReturnOrigins, parseSlug } from './policy.ts';
import * as store from './store.ts';

/** Product definitions: organization admins define and retire them; the operator may too, from the command line. */
export interface ProductAdministration {
  /** Defines a product of an organization the actor administers. Slugs are unique across organizations: `conflict`. */
  createProduct(actorAccountId: string, organizationId: string, definition: ProductDefinition): Promise<RuntimeProduct>;
  /** Changes what `change` names of an active product (a retired one is `conflict`); the slug never changes. */
  updateProduct(actorAccountId: string, productId: string, change: ProductChange): Promise<RuntimeProduct>;
  /** Retires a product: its installations stop, and it cannot be installed. Retiring a retired product changes nothing. */
  retireProduct(actorAccountId: string, productId: string): Promise<RuntimeProduct>;
  /** The products of an organization the actor administers, retired ones too. */
  listProducts(actorAccountId: string, organizationId: string): Promise<Listing<RuntimeProduct>>;
  /** The installations of a product of an organization the actor administers, uninstalled ones too. */
  listInstallationsOfProduct(actorAccountId: string, productId: string): Promise<Listing<ProductInstallation>>;
  /** The operator defines a product of the organization with this slug (`kgate runtime product create`). */
  createProductAsOperator(organizationSlug: string, definition: ProductDefinition): Promise<RuntimeProduct>;
  /** The operator retires the product with this slug (`kgate runtime product retire`). */
  retireProductAsOperator(productSlug: string): Promise<RuntimeProduct>;
  /** What a customer may install now: active products of active organizations. */
  listInstallableProducts(): Promise<Listing<InstallableProduct>>;
}

/** A definition's stored fields, checked; `base` gives what a change leaves out. */
function fieldsOf(change: ProductChange, base?: store.ProductFields): store.ProductFields {
  return {
    name: change.name === undefined && base ? base.name : parseName(change.name),
    domainPack: change.domainPack === undefined && base ? base.domainPack : checkDomainPack(change.domainPack),
    experiencePack: change.experiencePack === undefined && base ? base.experiencePack : checkExperiencePack(change.experiencePack),
    returnOrigins: change.returnOrigins === undefined ? (base?.returnOrigins ?? []) : parseReturnOrigins(change.returnOrigins),
  };
}

/** Builds the product part of the administration service. */
export function productAdministration(ctx: AdminContext): ProductAdministration {
  const { db } = ctx;

  async function insert(sql: Sql, organizationId: string, definition: ProductDefinition): Promise<RuntimeProduct> {
    const slug = parseSlug(definition.slug);
    const fields = fieldsOf(definition);
    const id = newId();
    if (!(await store.insertProduct(sql, { id, organizationId, slug, ...fields }))) {
      throw new KgateError('conflict', `A product with the slug ${slug} exists already.`, { field: 'slug' });
    }
    return (await store.findProduct(sql, id))!;
  }

  /** The product with this id (`lock`: locked) when the actor administers its organization; `not_found` otherwise. */
  async function productForAdmin(sql: Sql, actorAccountId: string, productId: string, lock: boolean): Promise<RuntimeProduct> {
    assertId(productId, 'product');
    const product = await store.findProduct(sql, productId, lock);
    if (!product) throw notFound('product');
    try {
      await assertOrganizationAdmin(sql, actorAccountId, product.organizationId);
    } catch (error) {
      // The product's answer, not the organization's: the same words as for an unknown product.
      throw isKgateError(error) ? notFound('product') : error;
    }
    return product;
  }

  async function retire(sql: Sql, product: RuntimeProduct): Promise<RuntimeProduct> {
    if (product.status === 'retired') return product;
    await store.setProductStatus(sql, product.id, 'retired');
    ctx.chainChanged(sql, product.organizationId);
    return { ...product, status: 'retired' };
  }

  return {
    async createProduct(actorAccountId, organizationId, definition) {
      assertId(organizationId, 'organization');
      await assertOrganizationAdmin(db, actorAccountId, organizationId);
      return insert(db, organizationId, definition);
    },
    async updateProduct(actorAccountId, productId, change) {
      return db.transaction(async (tx) => {
        const product = await productForAdmin(tx, actorAccountId, productId, true);
        if (product.status === 'retired') throw new KgateError('conflict', 'The product is retired; it cannot change.');
        const fields = fieldsOf(change, product);
        await store.updateProduct(tx, product.id, fields);
        ctx.chainChanged(tx, product.organizationId);
        return { ...product, ...fields };
      });
    },
    retireProduct: (actorAccountId, productId) => db.transaction(async (tx) => retire(tx, await productForAdmin(tx, actorAccountId, productId, true))),
    async listProducts(actorAccountId, organizationId) {
      assertId(organizationId, 'organization');
      await assertOrganizationAdmin(db, actorAccountId, organizationId);
      return store.listProducts(db, organizationId);
    },
    async listInstallationsOfProduct(actorAccountId, productId) {
      const product = await productForAdmin(db, actorAccountId, productId, false);
      return listProductInstallations(db, product.id);
    },
    async createProductAsOperator(organizationSlug, definition) {
      const organization = RuntimeSlugSchema.safeParse(organizationSlug).success ? await store.findOrganizationBySlug(db, organizationSlug) : undefined;
      if (!organization) throw notFound('organization');
      return insert(db, organization.id, definition);
    },
    async retireProductAsOperator(productSlug) {
      return db.transaction(async (tx) => {
        const found = RuntimeSlugSchema.safeParse(productSlug).success ? await store.findProductBySlug(tx, productSlug) : undefined;
        if (!found) throw notFound('product');
        return retire(tx, (await store.findProduct(tx, found.id, true))!);
      });
    },
    listInstallableProducts: () => store.listInstallableProducts(db),
  };
}
