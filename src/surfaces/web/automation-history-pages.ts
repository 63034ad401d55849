import { Hono } from 'hono';
import { KgateError, isKgateError } from '../../kernel/errors.ts';
import { RunStateSchema, type RunState } from '../../domains/automation/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { html, sendPage, sendRedirect } from './layout.ts';
import { morePage } from './knowledge-view.ts';
import { automationPage, type AutomationPageDependencies } from './automation-guard.ts';
import { automationUrl, runUrl } from './automation-urls.ts';
import { executionsTable, runFacts, runStepsTable, runsTable } from './automation-history-view.ts';
import { automationNav } from './automation-view.ts';
import { workspacePage } from './workspace-guard.ts';
import { proposalUrl } from './workspace-urls.ts';

/** Runs and executions per page. */
const HISTORY_PAGE = 50;

/** The filters of the runs page: every state, or one. */
const STATE_FILTERS: ReadonlyArray<[RunState | '', string]> = [
  ['', 'All'],
  ['queued', 'Queued'],
  ['waiting', 'Waiting'],
  ['succeeded', 'Succeeded'],
  ['failed', 'Failed'],
];

/** A query value, or nothing. */
const given = (value: string | undefined) => (value === undefined || value === '' ? undefined : value);

/** A page's address with its query, without the fields left empty. */
function withQuery(path: string, query: Record<string, string | undefined>): string {
  const entries = Object.entries(query).filter((e): e is [string, string] => e[1] !== undefined);
  return entries.length === 0 ? path : `${path}?${new URLSearchParams(entries).toString()}`;
}

/**
 * `/workspace/automation/{workspaceId}/runs` (and `/runs/{runId}`) and `/executions`: what automation did in a
 * workspace. Runs with their state, trigger, event and proposal, each with every step in order; executions, one row
 * per attempt of a webhook delivery or a proposal execution. Read-only. `/proposals/{proposalId}` leads from a run to
 * the proposal's review page.
 */
export function automationHistoryPages(deps: AutomationPageDependencies): Hono<HttpEnv> {
  const app = new Hono<HttpEnv>();
  const base = '/workspace/automation/:workspaceId';

  app.get(
    `${base}/runs`,
    automationPage(deps, async (c, request) => {
      const { workspace } = request;
      const stateWritten = given(c.req.query('state'));
      const parsed = stateWritten === undefined ? undefined : RunStateSchema.safeParse(stateWritten);
      if (parsed && !parsed.success) throw new KgateError('invalid_request', 'Choose a state from the list.');
      const state = parsed?.data;
      const triggerId = given(c.req.query('trigger'));
      const page = await request.automation.listRuns(workspace.id, { state, triggerId, limit: HISTORY_PAGE, cursor: given(c.req.query('cursor')) });
      const runsPath = automationUrl(workspace.id, 'runs');
      const next = page.nextCursor ? withQuery(runsPath, { state, trigger: triggerId, cursor: page.nextCursor }) : undefined;
      const filters = html`<nav aria-label="Runs by state" class="tabs"><ul>${STATE_FILTERS.map(
        ([value, label]) => html`<li><a href="${withQuery(runsPath, { state: value || undefined, trigger: triggerId })}"${(state ?? '') === value ? html` aria-current="page"` : ''}>${label}</a></li>`,
      )}</ul></nav>`;
      return sendPage(c, {
        title: `Runs of ${workspace.name}`,
        signedIn: request.signedIn,
        body: html`${automationNav(workspace, 'runs')}
          <p>Each time a trigger fires, a run records what happened, step by step: the event or schedule, the proposal it made and what a
            person decided, the webhooks it queued and whether they were delivered.${triggerId ? html` Runs of one trigger only; <a href="${runsPath}">every run</a>.` : ''}</p>
          ${filters}
          ${runsTable(workspace.id, page.items, state ? `No run is ${state}.` : 'No trigger has fired yet.')}
          ${morePage(next !== undefined, next, 'runs')}`,
      });
    }),
  );

  app.get(
    `${base}/runs/:runId`,
    automationPage(deps, async (c, request) => {
      const { workspace } = request;
      const run = await request.automation.getRun(c.req.param('runId') ?? '');
      // A run of another workspace (one the person also manages) is not this page's: as if it did not exist.
      if (run.workspaceId !== workspace.id) throw new KgateError('not_found', 'No such run in this workspace.');
      const executions = await request.automation.listExecutions(workspace.id, { runId: run.id, limit: HISTORY_PAGE });
      const endpoints = new Map((await request.automation.listEndpoints(workspace.id)).map((e) => [e.id, e.url]));
      return sendPage(c, {
        title: `Run of ${run.triggerName}`,
        signedIn: request.signedIn,
        body: html`${automationNav(workspace, 'runs')}
          <p><a href="${automationUrl(workspace.id, 'runs')}">Back to the runs</a></p>
          ${runFacts(run)}
          <h2>Steps</h2>
          ${runStepsTable(run)}
          <h2>Executions of this run</h2>
          ${executionsTable(workspace.id, executions.items, endpoints, 'Nothing was sent or executed for this run yet.')}
          ${morePage(executions.nextCursor !== null, withQuery(automationUrl(workspace.id, 'executions'), { run: run.id }), 'executions')}`,
      });
    }),
  );

  app.get(
    `${base}/executions`,
    automationPage(deps, async (c, request) => {
      const { workspace } = request;
      const runId = given(c.req.query('run'));
      const page = await request.automation.listExecutions(workspace.id, { runId, limit: HISTORY_PAGE, cursor: given(c.req.query('cursor')) });
      const endpoints = new Map((await request.automation.listEndpoints(workspace.id)).map((e) => [e.id, e.url]));
      const path = automationUrl(workspace.id, 'executions');
      const next = page.nextCursor ? withQuery(path, { run: runId, cursor: page.nextCursor }) : undefined;
      return sendPage(c, {
        title: `Executions of ${workspace.name}`,
        signedIn: request.signedIn,
        body: html`${automationNav(workspace, 'executions')}
          <p>Every attempt of an outbound action: each webhook delivery attempt (a failed one is retried with backoff, then gives up) and each
            execution of an approved automation proposal.${runId ? html` Those of <a href="${runUrl(workspace.id, runId)}">one run</a> only; <a href="${path}">every execution</a>.` : ''}</p>
          ${executionsTable(workspace.id, page.items, endpoints, 'Nothing was sent or executed yet.')}
          ${morePage(next !== undefined, next, 'executions')}`,
      });
    }),
  );

  // Runs and executions know a proposal, not its vault: the vault is the one of the workspace's whose proposal it is.
  // Only vaults the person may read are tried, so this leads nowhere the proposal pages would not.
  app.get(
    `${base}/proposals/:proposalId`,
    workspacePage(deps, async (c, request) => {
      const workspaceId = c.req.param('workspaceId') ?? '';
      const proposalId = c.req.param('proposalId') ?? '';
      const mappings = (await deps.vaults.listAccessibleMappings(request.actor.accountId)).filter(({ mapping }) => mapping.workspaceId === workspaceId);
      for (const { mapping } of mappings) {
        try {
          const { proposal } = await deps.proposals.get(request.actor, mapping.id, proposalId);
          return sendRedirect(c, proposalUrl(proposal.mappingId, proposal.id), 302);
        } catch (error) {
          if (!isKgateError(error) || error.code !== 'not_found') throw error;
        }
      }
      throw new KgateError('not_found', 'No such proposal in a vault you may read.');
    }),
  );

  return app;
}
