import type { Database, Sql } from '../../../db/port.ts';
import type { Clock } from '../../../kernel/clock.ts';
import type { AccountsService } from '../../accounts/index.ts';
import type { VaultsService } from '../../vaults/index.ts';
import type { WorkspacesService } from '../../workspaces/index.ts';

/**
 * What Product Runtime administration needs from the rest of kgate: accounts (the operator names admins by email; a
 * customer must be active to install), workspace roles, and the mappings an account reaches (a vault's workspace and the account's role there),
 * each through its own domain.
 */
export interface RuntimeAdminDeps {
  accounts: Pick<AccountsService, 'findByEmail' | 'getAccount'>;
  workspaces: Pick<WorkspacesService, 'authorize'>;
  vaults: Pick<VaultsService, 'listAccessibleMappings'>;
  clock?: Clock;
  /**
   * Called once a change of an organization's chain has committed (its status or settings, a product retired or
   * changed, an installation uninstalled, an assignment or grant changed): caches of resolved runtime principals
   * forget what they hold of that organization.
   */
  onChainChanged?: (organizationId: string) => void;
}

/** What every part of the administration service works with. */
export interface AdminContext {
  db: Database;
  clock: Clock;
  deps: RuntimeAdminDeps;
  /** Tells `onChainChanged` of `organizationId` once `sql`'s transaction has committed. */
  chainChanged(sql: Sql, organizationId: string): void;
}
