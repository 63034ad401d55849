import type { Sql } from '../../../db/port.ts';
import { KgateError, isKgateError } from '../../../kernel/errors.ts';
import { isUuid } from '../../../kernel/ids.ts';
import { assertOrganizationAdmin, organizationOfPrincipal } from '../admins.ts';
import * as store from './store.ts';

/**
 * Who may manage principals and credentials: an admin of the organization whose product the installation is of,
 * now. Unknown ids and ids of another organization look the same (`not_found`), named after what the caller asked for.
 */
async function assertAdminOf(sql: Sql, actorAccountId: string, organizationId: string | undefined, notFound: () => KgateError): Promise<void> {
  if (!organizationId) throw notFound();
  try {
    await assertOrganizationAdmin(sql, actorAccountId, organizationId);
  } catch (error) {
    throw isKgateError(error) && error.code === 'not_found' ? notFound() : error;
  }
}

/** Refuses unless the actor administers the installation's organization; answers the installation's status. */
export async function assertInstallationAdmin(sql: Sql, actorAccountId: string, installationId: string): Promise<{ status: string }> {
  const installation = isUuid(installationId) ? await store.findInstallationOwner(sql, installationId) : undefined;
  await assertAdminOf(sql, actorAccountId, installation?.organization_id, () => new KgateError('not_found', 'The installation does not exist.'));
  return { status: installation!.status };
}

/**
 * Refuses unless the actor administers the principal's organization. `notFound` is the message of the refusal: a
 * credential's own ("The credential does not exist.") when the principal was reached through one.
 */
export async function assertPrincipalAdmin(
  sql: Sql,
  actorAccountId: string,
  principalId: string,
  notFound = 'The service principal does not exist.',
): Promise<void> {
  const organizationId = isUuid(principalId) ? await organizationOfPrincipal(sql, principalId) : undefined;
  await assertAdminOf(sql, actorAccountId, organizationId, () => new KgateError('not_found', notFound));
}
