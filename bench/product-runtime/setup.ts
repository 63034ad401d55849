/**
 * The installation the Product Runtime benchmark loads: the demo owner of `kgate admin bootstrap` (the same code the
 * CLI runs), and behind it a whole Product Runtime chain made through the real administration and credentials
 * services, as an operator, an organization admin and the customer make it: an organization (no monthly cap) with a
 * second account as its admin, a product, the owner's installation of it with the owner's workspace assigned and its
 * demo vault granted for publishing, and a service principal (scope `notes.publish`) with a client secret.
 *
 * The owner is the customer: the Developer REST API and the Product Runtime reach the same vault and the same note, so
 * the two surfaces are compared on the same data. The owner's REST allowances are raised to 10^9 (as the HTTP
 * benchmark does), so that no row is refused with `rate_limited`; every call still reserves its unit. Everything runs
 * on the database opened from this process, before the server starts (PGlite allows one process per data directory).
 */
import { randomBytes } from 'node:crypto';
import { createServices } from '../../src/app/services.ts';
import { bootstrap } from '../../src/cli/bootstrap-command.ts';
import { openInstallation } from '../http/installation.ts';

/** What the benchmark needs of the installation: the owner's REST access and the product's client credentials. */
export interface RuntimeInstallation {
  /** The customer: the bootstrapped owner. */
  accountId: string;
  /** The owner's personal access token, for the Developer REST API. */
  token: string;
  mappingId: string;
  workspaceId: string;
  vaultId: string;
  /** Notes seeded from examples/vault. */
  seeded: number;
  organizationId: string;
  /** The service principal's id: its OAuth client_id. */
  principalId: string;
  /** Its client secret (`kgcs_…`), kept in memory only. */
  clientSecret: string;
}

/** Makes the owner and the chain on the installation of `env` (a fresh data directory or a scratch database). */
export async function prepareRuntimeInstallation(env: Record<string, string>): Promise<RuntimeInstallation> {
  const opened = await openInstallation(env);
  try {
    const services = createServices(opened.db);
    const owner = await bootstrap('http://localhost:8787', services, {});
    const limit = 1_000_000_000;
    await services.accounts.setAllowanceOverrides(owner.accountId, {
      restOperationsPerMinute: limit,
      restOperationsPerMonth: limit,
      mcpOperationsPerMinute: limit,
      mcpOperationsPerMonth: limit,
    });
    const adminEmail = 'bench-org-admin@kgate.local';
    const orgAdmin = await services.onboarding.bootstrapOwner({ email: adminEmail });
    const { runtimeAdmin: admin, runtimeCredentials: credentials } = services;
    const suffix = randomBytes(4).toString('hex');
    // No apiOperationsPerMonth: no cap, yet every call is counted (docs/runtime.md, "Metering").
    const organization = await admin.createOrganization({ slug: `bench-org-${suffix}`, name: 'Benchmark organization', adminEmail });
    const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `bench-product-${suffix}`, name: 'Benchmark product', domainPack: 'education' });
    let installation = await admin.install(owner.accountId, product.slug);
    installation = await admin.assignWorkspace(owner.accountId, installation.id, owner.workspaceId);
    installation = await admin.grantVault(owner.accountId, installation.id, owner.vaultId, 'publish');
    const principal = await credentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'Benchmark backend', scopes: ['notes.publish'] });
    const secret = await credentials.addClientSecret(orgAdmin.accountId, principal.id);
    return {
      accountId: owner.accountId,
      token: owner.token,
      mappingId: owner.mappingId,
      workspaceId: owner.workspaceId,
      vaultId: owner.vaultId,
      seeded: owner.seeded?.created ?? 0,
      organizationId: organization.id,
      principalId: principal.id,
      clientSecret: secret.secret,
    };
  } finally {
    await opened.close();
  }
}

/** The client credentials grant's form (client_secret_post), as a product's backend sends it. */
export function tokenRequestBody(installation: Pick<RuntimeInstallation, 'principalId' | 'clientSecret'>): string {
  return new URLSearchParams({ grant_type: 'client_credentials', client_id: installation.principalId, client_secret: installation.clientSecret }).toString();
}

/** A fresh access token from the running server (tokens live 15 minutes: each runtime row asks for its own). */
export async function fetchRuntimeToken(url: string, installation: Pick<RuntimeInstallation, 'principalId' | 'clientSecret'>): Promise<string> {
  const response = await fetch(`${url}/api/product/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: tokenRequestBody(installation),
  });
  const body = (await response.json()) as { access_token?: string; error?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token endpoint answered ${response.status} ${body.error ?? ''}`);
  return body.access_token;
}
