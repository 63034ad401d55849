import type { Sql } from '../../../db/port.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { assertOrganizationAdmin } from '../admins.ts';
import { RuntimeSlugSchema } from '../contract.ts';
import type { AdminContext } from './context.ts';
import type { Listing, OrganizationStatus, OrganizationWithAdmins, ProductRuntimeSettingsChange, RuntimeOrganization } from './contract.ts';
import { checkBrand } from './packs.ts';
import { assertId, mergeSettings, notFound, parseName, parseSlug } from './policy.ts';
import * as store from './store.ts';

/** The operator's administration of organizations (the server's own command line; no actor), and admins' own views. */
export interface OrganizationAdministration {
  /** Creates an organization with its first admin, an existing account named by email. Slugs are unique: `conflict`. */
  createOrganization(input: { slug: string; name: string; adminEmail: string }): Promise<OrganizationWithAdmins>;
  /** Changes `settings.productRuntime`: a number sets a field, null clears it, a field left out is kept. */
  setOrganizationSettings(slug: string, change: ProductRuntimeSettingsChange): Promise<RuntimeOrganization>;
  /** Suspends an organization (every credential of its products stops at once) or makes it active again. */
  setOrganizationStatus(slug: string, status: OrganizationStatus): Promise<RuntimeOrganization>;
  /** Makes an existing account an admin (nothing changes when it already is one). */
  addOrganizationAdmin(slug: string, email: string): Promise<OrganizationWithAdmins>;
  /** Removes an admin; the last admin stays (`conflict`): add another first. */
  removeOrganizationAdmin(slug: string, email: string): Promise<OrganizationWithAdmins>;
  /** Every organization with its admins, oldest first. */
  listOrganizations(): Promise<Listing<OrganizationWithAdmins>>;
  /** The organizations the account administers now, suspended ones too. */
  listMyOrganizations(accountId: string): Promise<RuntimeOrganization[]>;
  /** An organization admin sets (or, with null, removes) the organization's brand profile. */
  setBrand(actorAccountId: string, organizationId: string, profile: unknown): Promise<RuntimeOrganization>;
}

/** Builds the organization part of the administration service. */
export function organizationAdministration(ctx: AdminContext): OrganizationAdministration {
  const { db } = ctx;

  /** The organization named by `slug`, locked for the transaction; a malformed slug names nothing, like an unknown one. */
  async function lockedBySlug(sql: Sql, slug: string): Promise<RuntimeOrganization> {
    const found = RuntimeSlugSchema.safeParse(slug).success ? await store.findOrganizationBySlug(sql, slug, true) : undefined;
    if (!found) throw notFound('organization');
    return found;
  }

  async function accountIdOf(email: unknown): Promise<string> {
    const account = typeof email === 'string' && email.trim() !== '' ? await ctx.deps.accounts.findByEmail(email) : undefined;
    if (!account) throw new KgateError('not_found', 'No account has that email; the person signs up first.', { field: 'adminEmail' });
    return account.id;
  }

  async function withAdmins(sql: Sql, organization: RuntimeOrganization): Promise<OrganizationWithAdmins> {
    return { ...organization, admins: (await store.listAdmins(sql, [organization.id])).get(organization.id) ?? [] };
  }

  return {
    async createOrganization(input) {
      const slug = parseSlug(input.slug);
      const name = parseName(input.name);
      const adminId = await accountIdOf(input.adminEmail);
      return db.transaction(async (tx) => {
        const id = newId();
        if (!(await store.insertOrganization(tx, { id, slug, name }))) {
          throw new KgateError('conflict', `An organization with the slug ${slug} exists already.`, { field: 'slug' });
        }
        await store.insertAdmin(tx, id, adminId);
        return withAdmins(tx, (await store.findOrganization(tx, id))!);
      });
    },
    async setOrganizationSettings(slug, change) {
      return db.transaction(async (tx) => {
        const organization = await lockedBySlug(tx, slug);
        const settings = mergeSettings(organization.settings, change);
        await store.setOrganizationSettings(tx, organization.id, settings);
        ctx.chainChanged(tx, organization.id);
        return { ...organization, settings };
      });
    },
    async setOrganizationStatus(slug, status) {
      if (status !== 'active' && status !== 'suspended') throw new KgateError('invalid_request', 'An organization is active or suspended.', { field: 'status' });
      return db.transaction(async (tx) => {
        const organization = await lockedBySlug(tx, slug);
        await store.setOrganizationStatus(tx, organization.id, status);
        ctx.chainChanged(tx, organization.id);
        return { ...organization, status };
      });
    },
    async addOrganizationAdmin(slug, email) {
      const accountId = await accountIdOf(email);
      return db.transaction(async (tx) => {
        const organization = await lockedBySlug(tx, slug);
        await store.insertAdmin(tx, organization.id, accountId);
        return withAdmins(tx, organization);
      });
    },
    async removeOrganizationAdmin(slug, email) {
      const accountId = await accountIdOf(email);
      return db.transaction(async (tx) => {
        // The organization's row lock keeps two removals from leaving it without an admin.
        const organization = await lockedBySlug(tx, slug);
        const admins = (await store.listAdmins(tx, [organization.id])).get(organization.id) ?? [];
        if (!admins.some((admin) => admin.accountId === accountId)) throw new KgateError('not_found', 'That account is not an admin of the organization.');
        if (admins.length === 1) throw new KgateError('conflict', 'An organization keeps at least one admin: add another first.');
        await store.deleteAdmin(tx, organization.id, accountId);
        return withAdmins(tx, organization);
      });
    },
    async listOrganizations() {
      const listed = await store.listOrganizations(db);
      const admins = await store.listAdmins(db, listed.items.map((o) => o.id));
      return { items: listed.items.map((o) => ({ ...o, admins: admins.get(o.id) ?? [] })), truncated: listed.truncated };
    },
    listMyOrganizations: (accountId) => store.listOrganizationsOfAdmin(db, accountId),
    async setBrand(actorAccountId, organizationId, profile) {
      assertId(organizationId, 'organization');
      await assertOrganizationAdmin(db, actorAccountId, organizationId);
      const brand = checkBrand(profile);
      await store.setOrganizationBrand(db, organizationId, brand);
      return (await store.findOrganization(db, organizationId)) ?? Promise.reject(notFound('organization'));
    },
  };
}
