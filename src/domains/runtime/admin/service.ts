import type { Database } from '../../../db/port.ts';
import { systemClock } from '../../../kernel/clock.ts';
import type { AdminContext, RuntimeAdminDeps } from './context.ts';
import { grantAdministration, type GrantAdministration } from './grants.ts';
import { installationAdministration, type InstallationAdministration } from './installations.ts';
import { memoryDecisions, type MemoryDecisions } from './memory-decisions.ts';
import { organizationAdministration, type OrganizationAdministration } from './organizations.ts';
import { productAdministration, type ProductAdministration } from './products.ts';

/**
 * Product Runtime administration (docs/runtime.md, "Organizations, products, installations"): the operator's
 * organizations, organization admins' products, customers' installations, assignments and grants, and people's
 * decisions about shared memory. Unknown and forbidden look the same (`not_found`) unless a caller already knows
 * the thing exists (a member of a workspace whose role lacks the permission: `forbidden`).
 */
export type RuntimeAdminService = OrganizationAdministration & ProductAdministration & InstallationAdministration & GrantAdministration & MemoryDecisions;

/** Builds the administration service over `db`; other domains are reached through `deps`. */
export function createRuntimeAdminService(db: Database, deps: RuntimeAdminDeps): RuntimeAdminService {
  const ctx: AdminContext = {
    db,
    clock: deps.clock ?? systemClock,
    deps,
    chainChanged(sql, organizationId) {
      const notify = deps.onChainChanged;
      if (notify) sql.afterCommit(() => notify(organizationId));
    },
  };
  return {
    ...organizationAdministration(ctx),
    ...productAdministration(ctx),
    ...installationAdministration(ctx),
    ...grantAdministration(ctx),
    ...memoryDecisions(ctx),
  };
}
