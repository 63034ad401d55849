/**
 * The chain the generation benchmark calls through, made from this process before the gateway starts (PGlite allows
 * one process per data directory) with the real services, as the operator, an organization admin and a customer make
 * it: a customer (`kgate admin bootstrap`'s owner), an organization with its admin, a product, the customer's
 * installation and a service principal holding `intelligence.execute` with a client secret. The organization gets a
 * monthly intelligence budget far above what the run spends and a concurrency ceiling above the run's concurrency,
 * so that no call is refused: every call still reserves, dispatches and settles its ledger row.
 */
import { randomBytes } from 'node:crypto';
import { createServices } from '../../src/app/services.ts';
import { bootstrap } from '../../src/cli/bootstrap-command.ts';
import { openInstallation } from '../http/installation.ts';

/** The monthly budget the benchmark organization gets: 10^12 microdollars (a million dollars). */
export const BENCH_BUDGET_MICRODOLLARS = 1_000_000_000_000;
/** Its maxConcurrentIntelligence: above any concurrency the benchmark uses. */
export const BENCH_MAX_CONCURRENT = 256;

/** What the benchmark needs of the chain. */
export interface GenerationChain {
  organizationId: string;
  installationId: string;
  principalId: string;
  /** The client secret (`kgcs_…`), kept in memory only. */
  clientSecret: string;
}

/** Makes the chain on the installation of `env` (a fresh data directory or a scratch database). */
export async function prepareGenerationChain(env: Record<string, string>): Promise<GenerationChain> {
  const opened = await openInstallation(env);
  try {
    const services = createServices(opened.db);
    const customer = await bootstrap('http://localhost:8787', services, {});
    const adminEmail = 'bench-generation-admin@kgate.local';
    const orgAdmin = await services.onboarding.bootstrapOwner({ email: adminEmail });
    const { runtimeAdmin: admin, runtimeCredentials: credentials } = services;
    const suffix = randomBytes(4).toString('hex');
    const organization = await admin.createOrganization({ slug: `bench-gen-${suffix}`, name: 'Generation benchmark organization', adminEmail });
    await admin.setOrganizationSettings(organization.slug, {
      intelligenceBudgetMicrodollarsMonthly: BENCH_BUDGET_MICRODOLLARS,
      maxConcurrentIntelligence: BENCH_MAX_CONCURRENT,
    });
    const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `bench-gen-product-${suffix}`, name: 'Generation benchmark product', domainPack: 'education' });
    const installation = await admin.install(customer.accountId, product.slug);
    const principal = await credentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'Generation benchmark backend', scopes: ['intelligence.execute'] });
    const secret = await credentials.addClientSecret(orgAdmin.accountId, principal.id);
    return { organizationId: organization.id, installationId: installation.id, principalId: principal.id, clientSecret: secret.secret };
  } finally {
    await opened.close();
  }
}
