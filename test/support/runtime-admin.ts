/**
 * What the Product Runtime administration tests start from: a fresh database, the services, the administration
 * service over them, an organization with its admin and a product, and a snapshot of every runtime_* table for
 * "nothing changed" assertions.
 */
import type { Services } from '../../src/app/services.ts';
import type { Database } from '../../src/db/port.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { newId } from '../../src/kernel/ids.ts';
import { createRuntimeAdminService, type RuntimeAdminService, type RuntimeOrganization, type RuntimeProduct } from '../../src/domains/runtime/admin/index.ts';
import { openDomainDatabase } from './domain-database.ts';
import { createOwner, type Owner } from './fixtures.ts';

/** A database with an organization (its admin `orgAdmin`), one active product of it, and a customer `owner`. */
export interface RuntimeAdminSuite {
  db: Database;
  services: Services;
  admin: RuntimeAdminService;
  /** A customer: an account with a workspace and a hosted vault. */
  owner: Owner;
  /** The organization's first admin. */
  orgAdmin: Owner;
  organization: RuntimeOrganization;
  product: RuntimeProduct;
  /** Organization ids whose chain changed, in order, as onChainChanged reported them. */
  chainChanges: string[];
}

/** Opens the suite; the organization's and product's slugs end with `label` so that each file's are its own. */
export async function openRuntimeAdminSuite(label: string, clock?: Clock): Promise<RuntimeAdminSuite> {
  const { db, services, owner } = await openDomainDatabase(`${label}-customer`, clock);
  const chainChanges: string[] = [];
  const admin = createRuntimeAdminService(db, {
    accounts: services.accounts,
    workspaces: services.workspaces,
    vaults: services.vaults,
    ...(clock ? { clock } : {}),
    onChainChanged: (organizationId) => chainChanges.push(organizationId),
  });
  const orgAdmin = await createOwner(services, `${label}-org-admin`);
  const organization = await admin.createOrganization({ slug: `acme-${label}`, name: 'Acme Learning', adminEmail: orgAdmin.email });
  const product = await admin.createProduct(orgAdmin.accountId, organization.id, { slug: `tutor-${label}`, name: 'Acme Tutor', domainPack: 'education' });
  return { db, services, admin, owner, orgAdmin, organization, product, chainChanges };
}

const RUNTIME_TABLES = [
  'runtime_organizations',
  'runtime_organization_admins',
  'runtime_products',
  'runtime_installations',
  'runtime_workspace_assignments',
  'runtime_vault_grants',
  'runtime_memory_candidates',
];

/** Every row of every administration table, for "nothing changed" assertions. */
export async function runtimeRows(db: Database): Promise<string> {
  const parts: unknown[] = [];
  for (const table of RUNTIME_TABLES) parts.push(await db.query(`SELECT * FROM ${table} ORDER BY 1, 2`));
  return JSON.stringify(parts);
}

/** The code a promise is refused with, or 'resolved'. */
export function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => 'resolved',
    (error: { code?: string }) => error.code,
  );
}

/**
 * Stores a service principal of an installation directly (principals are the credentials domain's; these tests
 * only need one to exist, as the author of memory candidates).
 */
export async function insertPrincipal(db: Database, installationId: string): Promise<string> {
  const id = newId();
  await db.query(`INSERT INTO runtime_service_principals (id, installation_id, name, scopes) VALUES ($1, $2, 'tests', '{}')`, [id, installationId]);
  return id;
}

/** Stores a memory candidate as a product would propose it for `scopeId` of `vaultId`. */
export async function insertCandidate(
  db: Database,
  input: { installationId: string; principalId: string; scopeId: string; vaultId: string; title: string },
): Promise<string> {
  const id = newId();
  await db.query(
    `INSERT INTO runtime_memory_candidates (id, installation_id, principal_id, scope_id, vault_id, title, body, evidence)
     VALUES ($1, $2, $3, $4, $5, $6, 'The class meets on Tuesdays.', '[{"path":"Class/Schedule.md"}]')`,
    [id, input.installationId, input.principalId, input.scopeId, input.vaultId, input.title],
  );
  return id;
}
