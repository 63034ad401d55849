import { Hono } from 'hono';
import type { ModelsService } from '../../domains/models/index.ts';
import type { RuntimeAdminService } from '../../domains/runtime/admin/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { accountPage, signedInAs, type AccountPageDependencies } from './guards.ts';
import { html, sendPage } from './layout.ts';
import { INTELLIGENCE_SPENDING_PAGE, SPENDING_ROWS, spendingSection } from './intelligence-spending-view.ts';
import { NO_ORGANIZATION, RUNTIME_ADMIN_PAGE } from './runtime-admin-view.ts';

/** What the spending page reads. */
export interface IntelligenceSpendingDependencies extends AccountPageDependencies {
  runtimeAdmin: Pick<RuntimeAdminService, 'listMyOrganizations'>;
  models: Pick<ModelsService, 'month' | 'recent'>;
}

/**
 * The intelligence spending page: for each organization the signed-in account administers, this month's budget,
 * charges and reservations, and its latest metered requests from the ledger (docs/budgets.md). Read-only: budgets are
 * the operator's settings. Another organization's ledger is never shown, whatever the URL says.
 */
export function intelligenceSpendingPages(deps: IntelligenceSpendingDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  app.get(
    INTELLIGENCE_SPENDING_PAGE,
    accountPage(deps, async (c, current) => {
      const organizations = await deps.runtimeAdmin.listMyOrganizations(current.session.accountId);
      const sections = await Promise.all(
        organizations.map(async (organization) =>
          spendingSection(organization, await deps.models.month(organization.id, organization.settings.intelligenceBudgetMicrodollarsMonthly), await deps.models.recent(organization.id, SPENDING_ROWS)),
        ),
      );
      return sendPage(c, {
        title: 'Intelligence spending',
        signedIn: signedInAs(current),
        body: html`<p>What the model-backed education endpoints cost your organizations this month (UTC), in microdollars
            (1,000,000 µ$ is one US dollar). A request reserves its bounded cost before the model is called and is charged
            what it used; one the model accepted and did not finish is a billable failure. The budget and the concurrency
            ceiling are the operator's settings, shown on <a href="${RUNTIME_ADMIN_PAGE}">Product runtime</a>.</p>
          ${organizations.length === 0 ? NO_ORGANIZATION : sections}`,
      });
    }),
  );
  return app;
}
