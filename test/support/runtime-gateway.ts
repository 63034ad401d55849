/**
 * A started gateway with a whole Product Runtime chain made through the real administration and credentials services:
 * an organization (its admin), a product, a customer's installation with one assigned workspace and one granted vault,
 * a service principal with a client secret, and a helper that calls the runtime as a product does.
 */
import { randomUUID } from 'node:crypto';
import type { CustomerInstallation, OrganizationWithAdmins, RuntimeProduct } from '../../src/domains/runtime/admin/index.ts';
import type { RuntimeScope, VaultGrantAccess } from '../../src/domains/runtime/index.ts';
import { createOwner, type Owner } from './fixtures.ts';
import type { TestGateway } from './gateway.ts';

/** A V1 envelope as the runtime answers it. */
export interface Envelope<D = Record<string, unknown>> {
  version: number;
  kind: string;
  status: 'ok' | 'partial' | 'unavailable' | 'error';
  data: D;
  receipts: Array<Record<string, unknown>>;
  problems: Array<{ code: string; message: string; details?: Record<string, unknown> }>;
  requestId: string;
}

/** One answer of the runtime: status, headers and envelope. */
export interface RuntimeAnswer<D = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: Envelope<D>;
}

/** The chain behind one product installation. */
export interface RuntimeChainSetup {
  customer: Owner;
  orgAdmin: Owner;
  organization: OrganizationWithAdmins;
  product: RuntimeProduct;
  installation: CustomerInstallation;
  principalId: string;
  clientSecret: string;
  /** The customer's hosted vault, granted to the installation. */
  vaultId: string;
  workspaceId: string;
}

/** Makes the chain with unique slugs; the vault is granted with `access`, the principal holds `scopes`. */
export async function createRuntimeChain(
  gateway: TestGateway,
  label: string,
  options: { access?: VaultGrantAccess; scopes?: RuntimeScope[] } = {},
): Promise<RuntimeChainSetup> {
  const { runtimeAdmin: admin, runtimeCredentials: credentials } = gateway.services;
  const suffix = randomUUID().slice(0, 8);
  const customer = await createOwner(gateway.services, `${label}-customer`);
  const orgAdmin = await createOwner(gateway.services, `${label}-org-admin`);
  const organization = await admin.createOrganization({ slug: `org-${label}-${suffix}`, name: `Org ${label}`, adminEmail: orgAdmin.email });
  const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `product-${label}-${suffix}`, name: `Product ${label}`, domainPack: 'education' });
  let installation = await admin.install(customer.accountId, product.slug);
  installation = await admin.assignWorkspace(customer.accountId, installation.id, customer.workspaceId);
  installation = await admin.grantVault(customer.accountId, installation.id, customer.mapping.vaultId, options.access ?? 'publish');
  const principal = await credentials.createPrincipal(orgAdmin.accountId, installation.id, { name: `${label} backend`, scopes: options.scopes ?? ['notes.publish'] });
  const secret = await credentials.addClientSecret(orgAdmin.accountId, principal.id);
  return {
    customer,
    orgAdmin,
    organization,
    product,
    installation,
    principalId: principal.id,
    clientSecret: secret.secret,
    vaultId: customer.mapping.vaultId,
    workspaceId: customer.workspaceId,
  };
}

/** Gets an access token by the client credentials grant, as a product does. */
export async function runtimeToken(gateway: TestGateway, chain: Pick<RuntimeChainSetup, 'principalId' | 'clientSecret'>, scope?: string): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: chain.principalId, client_secret: chain.clientSecret, ...(scope ? { scope } : {}) });
  const response = await fetch(`${gateway.url}/api/product/v1/oauth/token`, { method: 'POST', body: form });
  const body = (await response.json()) as { access_token?: string };
  if (response.status !== 200 || !body.access_token) throw new Error(`token endpoint answered ${response.status}: ${JSON.stringify(body)}`);
  return body.access_token;
}

/** Calls the runtime: the version header and the bearer token are sent unless overridden (`null` leaves one out). */
export async function callRuntime<D = Record<string, unknown>>(
  gateway: TestGateway,
  token: string | null,
  method: 'GET' | 'POST',
  path: string,
  options: { json?: unknown; headers?: Record<string, string | null>; signal?: AbortSignal } = {},
): Promise<RuntimeAnswer<D>> {
  const headers: Record<string, string> = {};
  const wanted: Record<string, string | null> = { 'X-Service-Runtime-Version': '1', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...options.headers };
  for (const [name, value] of Object.entries(wanted)) if (value !== null) headers[name] = value;
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers,
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Envelope<D> };
}

/** The hosted vault routes' prefix of a chain's vault. */
export function vaultPath(chain: Pick<RuntimeChainSetup, 'workspaceId' | 'vaultId'>): string {
  return `/workspaces/${chain.workspaceId}/vaults/${chain.vaultId}`;
}
