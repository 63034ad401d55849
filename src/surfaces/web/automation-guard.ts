import type { Context, Handler } from 'hono';
import { KgateError } from '../../kernel/errors.ts';
import type { ProposalsService } from '../../domains/proposals/index.ts';
import type { VaultsService } from '../../domains/vaults/index.ts';
import { roleAllows, type WorkspacesService } from '../../domains/workspaces/index.ts';
import type { HttpEnv } from '../http/context.ts';
import { AUTOMATION_OPERATIONS } from '../operations/automation-table.ts';
import { automationCalls, type AutomationCalls } from './automation-calls.ts';
import type { AutomationWorkspace } from './automation-view.ts';
import type { VaultChoice } from './automation-trigger-form.ts';
import { workspaceForm, workspacePage, type WorkspaceDependencies, type WorkspaceRequest } from './workspace-guard.ts';

/** What the automation pages need beyond the workspace's. */
export interface AutomationPageDependencies extends WorkspaceDependencies {
  /** The person's workspaces and roles: which of them the person manages automation in. */
  workspaces: Pick<WorkspacesService, 'listWorkspaces'>;
  /** The workspace's hosted vaults, which a propose action may write into. */
  vaults: Pick<VaultsService, 'listAccessibleMappings'>;
  /** Finds the vault of a proposal a run made, to lead to its review page. */
  proposals: Pick<ProposalsService, 'get'>;
}

/** A request of one workspace's automation pages: the person, the workspace, and the automation operations as them. */
export interface AutomationRequest extends WorkspaceRequest {
  workspace: AutomationWorkspace;
  automation: AutomationCalls;
}

/**
 * The workspace a page names, among the person's, where the role manages automation (spec 5 rule 7): a workspace the
 * person is not in is `not_found` (as one that does not exist); a role without automation management is `forbidden`,
 * saying so. The operations check the same again on every call.
 */
async function automationRequest(deps: AutomationPageDependencies, request: WorkspaceRequest, workspaceId: string): Promise<AutomationRequest> {
  const workspace = (await deps.workspaces.listWorkspaces(request.actor.accountId)).find((w) => w.id === workspaceId);
  if (!workspace) throw new KgateError('not_found', 'No such workspace.');
  if (!roleAllows(workspace.role, 'automation.manage')) {
    throw new KgateError('forbidden', `Your role in ${workspace.name} (${workspace.role}) does not manage automation: its owners and admins do.`, { permission: 'automation.manage' });
  }
  return { ...request, workspace: { id: workspace.id, name: workspace.name }, automation: automationCalls(request.call, AUTOMATION_OPERATIONS) };
}

/** A page of one workspace's automation (`:workspaceId` in its path): signed in, and the role manages automation. */
export function automationPage(deps: AutomationPageDependencies, handler: (c: Context<HttpEnv>, request: AutomationRequest) => Promise<Response>): Handler<HttpEnv> {
  return workspacePage(deps, async (c, request) => handler(c, await automationRequest(deps, request, c.req.param('workspaceId') ?? '')));
}

/** A form post of one workspace's automation: CSRF-checked (guards.ts), then as automationPage. */
export function automationForm(
  deps: AutomationPageDependencies,
  handler: (c: Context<HttpEnv>, request: AutomationRequest, form: URLSearchParams) => Promise<Response>,
): Handler<HttpEnv> {
  return workspaceForm(deps, '/workspace/automation', async (c, request, form) => handler(c, await automationRequest(deps, request, c.req.param('workspaceId') ?? ''), form));
}

/** The workspace's hosted vaults the person may see, by name: where a propose action may write. */
export async function hostedVaultsOf(deps: AutomationPageDependencies, request: AutomationRequest): Promise<VaultChoice[]> {
  const mappings = await deps.vaults.listAccessibleMappings(request.actor.accountId);
  return mappings
    .filter(({ mapping }) => mapping.workspaceId === request.workspace.id && mapping.provider === 'hosted')
    .map(({ mapping }) => ({ mappingId: mapping.id, name: mapping.name }));
}
