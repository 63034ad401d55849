import type { Sql } from '../../../db/port.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { RuntimeSlugSchema } from '../contract.ts';
import type { AdminContext } from './context.ts';
import type { CustomerInstallation, Listing } from './contract.ts';
import * as installations from './installation-store.ts';
import { assertId, notFound, parseSublimit } from './policy.ts';
import * as store from './store.ts';

/** A customer's installations of products (any active account, on its own installations only). */
export interface InstallationAdministration {
  /**
   * Installs the active product with this slug, of an active organization (anything else: `not_found`). One active
   * installation per product and customer (`conflict`); after an uninstall, installing again creates a new one.
   */
  install(accountId: string, productSlug: string): Promise<CustomerInstallation>;
  /** Uninstalls an active installation: every credential of it stops at once. Its records stay, inert. */
  uninstall(accountId: string, installationId: string): Promise<CustomerInstallation>;
  /** Sets (or, with null, removes) the installation's intelligence budget sublimit, in microdollars a month. */
  setInstallationSublimit(accountId: string, installationId: string, microdollars: number | null): Promise<CustomerInstallation>;
  /** The account's active installations, newest first, with their workspace assignments and vault grants. */
  listMyInstallations(accountId: string): Promise<Listing<CustomerInstallation>>;
}

/** The customer's installation with this id, as it stands in `sql` now. */
export async function installationOf(sql: Sql, accountId: string, installationId: string): Promise<CustomerInstallation> {
  const found = (await installations.listCustomerInstallations(sql, accountId, installationId)).items[0];
  if (!found) throw notFound('installation');
  return found;
}

/** The customer's active installation with this id, locked for the transaction; `not_found` for anything else. */
export async function lockedInstallation(sql: Sql, accountId: string, installationId: string): Promise<installations.InstallationRecord> {
  assertId(installationId, 'installation');
  const record = await installations.lockActiveInstallation(sql, installationId, accountId);
  if (!record) throw notFound('installation');
  return record;
}

/** Builds the installation part of the administration service. */
export function installationAdministration(ctx: AdminContext): InstallationAdministration {
  const { db } = ctx;
  return {
    async install(accountId, productSlug) {
      if (!RuntimeSlugSchema.safeParse(productSlug).success) throw notFound('product');
      const account = await ctx.deps.accounts.getAccount(accountId);
      if (account.status !== 'active') throw new KgateError('account_inactive', 'The account is suspended.');
      return db.transaction(async (tx) => {
        const productId = await store.findInstallableProduct(tx, productSlug);
        if (!productId) throw notFound('product');
        const id = newId();
        if (!(await installations.insertInstallation(tx, { id, productId, customerAccountId: accountId }))) {
          throw new KgateError('conflict', 'You have installed this product already.');
        }
        return installationOf(tx, accountId, id);
      });
    },
    async uninstall(accountId, installationId) {
      return db.transaction(async (tx) => {
        const record = await lockedInstallation(tx, accountId, installationId);
        await installations.uninstall(tx, record.id, ctx.clock.now());
        ctx.chainChanged(tx, record.organizationId);
        return installationOf(tx, accountId, record.id);
      });
    },
    async setInstallationSublimit(accountId, installationId, microdollars) {
      const sublimit = parseSublimit(microdollars);
      return db.transaction(async (tx) => {
        const record = await lockedInstallation(tx, accountId, installationId);
        const current = record.configuration.productRuntime;
        const productRuntime: Record<string, unknown> = typeof current === 'object' && current !== null ? { ...current } : {};
        if (sublimit === null) delete productRuntime.intelligenceBudgetMicrodollarsMonthly;
        else productRuntime.intelligenceBudgetMicrodollarsMonthly = sublimit;
        await installations.setConfiguration(tx, record.id, { ...record.configuration, productRuntime });
        ctx.chainChanged(tx, record.organizationId);
        return installationOf(tx, accountId, record.id);
      });
    },
    listMyInstallations: (accountId) => installations.listCustomerInstallations(db, accountId),
  };
}
