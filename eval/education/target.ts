/**
 * Where the suite's requests go: an in-process gateway on a fresh database, with a Product Runtime chain made through
 * the real administration and credentials services (an organization with an intelligence budget, a product, an
 * installation, a service principal holding `intelligence.execute`), as a product's backend would be set up. The
 * model is the fake model server (offline) or the configured one (live).
 */
import { randomBytes } from 'node:crypto';
import type { Services } from '../../src/app/services.ts';
import type { PriceTable } from '../../src/domains/models/index.ts';
import type { AnyOperation } from '../../src/surfaces/operations/operation.ts';
import { OPERATIONS } from '../../src/surfaces/operations/table.ts';

/** The monthly budget the suite's organization gets: far above what the eight scenarios cost. */
export const EVAL_BUDGET_MICRODOLLARS = 50_000_000;

/** The operations the suite's gateway serves: kgate's own table. */
export function evalOperations(): readonly AnyOperation[] {
  return OPERATIONS;
}

/** The client credentials of the suite's service principal. */
export interface EvalCredentials {
  principalId: string;
  clientSecret: string;
  organizationSlug: string;
}

/** Makes the chain on a started gateway's services (see the module comment). */
export async function prepareEvalChain(services: Services): Promise<EvalCredentials> {
  const suffix = randomBytes(4).toString('hex');
  const customer = await services.onboarding.bootstrapOwner({ email: `eval-teacher-${suffix}@example.test` });
  const adminEmail = `eval-org-admin-${suffix}@example.test`;
  const orgAdmin = await services.onboarding.bootstrapOwner({ email: adminEmail });
  const admin = services.runtimeAdmin;
  const organization = await admin.createOrganization({ slug: `eval-org-${suffix}`, name: 'Education evaluation', adminEmail });
  await admin.setOrganizationSettings(organization.slug, { intelligenceBudgetMicrodollarsMonthly: EVAL_BUDGET_MICRODOLLARS, maxConcurrentIntelligence: 4 });
  const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `eval-product-${suffix}`, name: 'Education evaluation', domainPack: 'education' });
  let installation = await admin.install(customer.accountId, product.slug);
  installation = await admin.assignWorkspace(customer.accountId, installation.id, customer.workspaceId);
  await admin.grantVault(customer.accountId, installation.id, customer.mapping.vaultId, 'read');
  const principal = await services.runtimeCredentials.createPrincipal(orgAdmin.accountId, installation.id, { name: 'Evaluation backend', scopes: ['intelligence.execute'] });
  const secret = await services.runtimeCredentials.addClientSecret(orgAdmin.accountId, principal.id);
  return { principalId: principal.id, clientSecret: secret.secret, organizationSlug: organization.slug };
}

/** An access token by the client credentials grant, as a product gets one. */
export async function evalToken(url: string, credentials: Pick<EvalCredentials, 'principalId' | 'clientSecret'>): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.principalId, client_secret: credentials.clientSecret });
  const response = await fetch(`${url}/api/product/v1/oauth/token`, { method: 'POST', body: form, signal: AbortSignal.timeout(10_000) });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`the token endpoint answered ${response.status}`);
  return body.access_token;
}

/** What a run calls: the gateway's address, a token, the prices the receipts are recomputed with. */
export interface EvalTarget {
  url: string;
  token: string;
  prices: PriceTable;
  /** The model names the receipts must carry, when known (offline: the fake's). */
  expectedModel?: { chat: string; image: string | null };
}
