import type { Sql } from '../../../db/port.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { roleAllows } from '../../workspaces/index.ts';
import type { VaultGrantAccess } from '../contract.ts';
import type { AdminContext } from './context.ts';
import type { CustomerInstallation } from './contract.ts';
import * as installations from './installation-store.ts';
import { installationOf, lockedInstallation } from './installations.ts';
import { assertId, notFound, parseGrantAccess } from './policy.ts';

/**
 * What a customer lets an installation reach: workspaces where the customer is owner or admin now, and logical
 * vaults of those workspaces, read or publish. A grant is the customer's delegation: the chain re-checks the
 * customer's role on every call, so a grant stops working when the role goes.
 */
export interface GrantAdministration {
  /**
   * Assigns a workspace to the account's active installation. The account must be owner or admin of it now: an
   * editor or viewer is refused `forbidden` (the workspaces domain's answer to a member whose role lacks the
   * permission: the member knows the workspace exists, so nothing is disclosed); a non-member, or an unknown
   * workspace, `not_found`. Assigning an assigned workspace changes nothing.
   */
  assignWorkspace(accountId: string, installationId: string, workspaceId: string): Promise<CustomerInstallation>;
  /** Removes a workspace assignment and every grant of its vaults; unknown assignment: `not_found`. */
  unassignWorkspace(accountId: string, installationId: string, workspaceId: string): Promise<CustomerInstallation>;
  /**
   * Grants a logical vault, `read` or `publish`, or changes the access of its grant. The vault must be one the
   * account reaches (else `not_found`), of a workspace where it is owner or admin now (else `forbidden`), assigned
   * to the installation (else `workspace_not_assigned`).
   */
  grantVault(accountId: string, installationId: string, vaultId: string, access: VaultGrantAccess): Promise<CustomerInstallation>;
  /** Removes a vault grant; unknown grant: `not_found`. */
  revokeVault(accountId: string, installationId: string, vaultId: string): Promise<CustomerInstallation>;
}

/** Builds the grant part of the administration service. */
export function grantAdministration(ctx: AdminContext): GrantAdministration {
  const { db } = ctx;
  const { workspaces, vaults } = ctx.deps;

  /** Runs a change of the account's active installation in one transaction, and answers the installation after it. */
  function change(accountId: string, installationId: string, work: (tx: Sql, record: installations.InstallationRecord) => Promise<void>) {
    return db.transaction(async (tx) => {
      const record = await lockedInstallation(tx, accountId, installationId);
      await work(tx, record);
      ctx.chainChanged(tx, record.organizationId);
      return installationOf(tx, accountId, record.id);
    });
  }

  return {
    async assignWorkspace(accountId, installationId, workspaceId) {
      assertId(workspaceId, 'workspace');
      return change(accountId, installationId, async (tx, record) => {
        await workspaces.authorize(accountId, workspaceId, 'vault.manage', tx);
        await installations.insertAssignment(tx, record.id, workspaceId, accountId);
      });
    },
    async unassignWorkspace(accountId, installationId, workspaceId) {
      assertId(workspaceId, 'workspace');
      // No role is needed to take a delegation back: a customer who lost the role may still withdraw what it gave.
      return change(accountId, installationId, async (tx, record) => {
        if (!(await installations.deleteAssignment(tx, record.id, workspaceId))) throw notFound('workspace assignment');
      });
    },
    async grantVault(accountId, installationId, vaultId, access) {
      assertId(vaultId, 'vault');
      const checked = parseGrantAccess(access);
      return change(accountId, installationId, async (tx, record) => {
        const reached = (await vaults.listAccessibleMappings(accountId, tx)).find(({ mapping }) => mapping.vaultId === vaultId);
        if (!reached) throw notFound('vault');
        if (!roleAllows(reached.role, 'vault.manage')) {
          throw new KgateError('forbidden', 'Your role in this workspace does not allow vault.manage.', { permission: 'vault.manage' });
        }
        const workspaceId = reached.mapping.workspaceId;
        if (!(await installations.lockAssignment(tx, record.id, workspaceId))) {
          throw new KgateError('workspace_not_assigned', "Assign the vault's workspace to the installation first.", { workspaceId });
        }
        await installations.upsertGrant(tx, { installationId: record.id, workspaceId, vaultId, access: checked, grantedBy: accountId });
      });
    },
    async revokeVault(accountId, installationId, vaultId) {
      assertId(vaultId, 'vault');
      return change(accountId, installationId, async (tx, record) => {
        if (!(await installations.deleteGrant(tx, record.id, vaultId))) throw notFound('vault grant');
      });
    },
  };
}
