import { Hono } from 'hono';
import type { HttpEnv } from '../http/context.ts';
import { html, sendPage } from './layout.ts';
import { automationEndpointPages } from './automation-endpoint-pages.ts';
import type { AutomationPageDependencies } from './automation-guard.ts';
import { automationHistoryPages } from './automation-history-pages.ts';
import { automationTriggerPages } from './automation-trigger-pages.ts';
import { AUTOMATION_HOME } from './automation-urls.ts';
import { workspacesTable } from './automation-view.ts';
import { workspacePage } from './workspace-guard.ts';

export type { AutomationPageDependencies } from './automation-guard.ts';

/**
 * The automation pages (docs/workspace.md, "Automation pages"): where people see and manage what automation does in
 * the workspaces where their role manages automation (owners and admins, spec 5 rule 7). `/workspace/automation`
 * lists the person's workspaces; each has its triggers, webhook endpoints, runs and executions. The pages run the
 * automation gateway's own operations through the invocation pipeline as the signed-in person; automation
 * proposals are reviewed on the proposal pages, with agents' proposals.
 */
export function automationPages(deps: AutomationPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();

  app.get(
    AUTOMATION_HOME,
    workspacePage(deps, async (c, request) => {
      const workspaces = await deps.workspaces.listWorkspaces(request.actor.accountId);
      return sendPage(c, {
        title: 'Automation',
        signedIn: request.signedIn,
        body: html`<p>Workflow tools (n8n, Zapier, Make, Power Automate) and other producers send events to kgate; triggers turn them into
            webhook deliveries or into note proposals that a person approves. Owners and admins of a workspace manage its automation here.</p>
          ${workspacesTable(workspaces)}
          <p class="muted">Automation proposals wait with agents' proposals on each vault's Proposals page.</p>`,
      });
    }),
  );

  app.route('/', automationTriggerPages(deps));
  app.route('/', automationEndpointPages(deps));
  app.route('/', automationHistoryPages(deps));
  return app;
}
