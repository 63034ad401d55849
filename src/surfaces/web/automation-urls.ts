/**
 * The addresses of the automation pages (docs/workspace.md, "Automation pages"): under `/workspace/automation`, one
 * set per workspace where the person's role manages automation.
 */

/** The automation home: the person's workspaces and whether their role manages automation there. */
export const AUTOMATION_HOME = '/workspace/automation';

/** The pages of one workspace's automation. */
export type AutomationTab = 'triggers' | 'endpoints' | 'runs' | 'executions';

/** One workspace's automation page of a tab. */
export function automationUrl(workspaceId: string, tab: AutomationTab): string {
  return `${AUTOMATION_HOME}/${encodeURIComponent(workspaceId)}/${tab}`;
}

/** A trigger's edit page (it also deletes the trigger, after a confirmation). */
export function triggerEditUrl(workspaceId: string, triggerId: string): string {
  return `${automationUrl(workspaceId, 'triggers')}/${encodeURIComponent(triggerId)}/edit`;
}

/** The form post that turns a trigger on or off. */
export function triggerToggleUrl(workspaceId: string, triggerId: string): string {
  return `${automationUrl(workspaceId, 'triggers')}/${encodeURIComponent(triggerId)}/enabled`;
}

/** The form post that deletes a trigger. */
export function triggerDeleteUrl(workspaceId: string, triggerId: string): string {
  return `${automationUrl(workspaceId, 'triggers')}/${encodeURIComponent(triggerId)}/delete`;
}

/** The form post that gives an endpoint a new secret. */
export function endpointRotateUrl(workspaceId: string, endpointId: string): string {
  return `${automationUrl(workspaceId, 'endpoints')}/${encodeURIComponent(endpointId)}/rotate-secret`;
}

/** The form post that deletes an endpoint. */
export function endpointDeleteUrl(workspaceId: string, endpointId: string): string {
  return `${automationUrl(workspaceId, 'endpoints')}/${encodeURIComponent(endpointId)}/delete`;
}

/** One run, with every step. */
export function runUrl(workspaceId: string, runId: string): string {
  return `${automationUrl(workspaceId, 'runs')}/${encodeURIComponent(runId)}`;
}

/**
 * A proposal an automation run made, by its id alone: the page finds its vault among the workspace's and leads to its
 * review page (runs and executions know the proposal, not its vault).
 */
export function automationProposalUrl(workspaceId: string, proposalId: string): string {
  return `${AUTOMATION_HOME}/${encodeURIComponent(workspaceId)}/proposals/${encodeURIComponent(proposalId)}`;
}
