import { KgateError } from '../../kernel/errors.ts';
import type { EndpointCreate, EndpointSecret, Execution, Page, Run, RunState, Trigger, TriggerCreate, TriggerPatch, WebhookEndpoint } from '../../domains/automation/index.ts';
import type { AnyOperation } from '../operations/operation.ts';
import type { WorkspaceCall } from './workspace-calls.ts';

/**
 * What the automation pages do, each through the automation gateway's own operation (the same validation, the same
 * automation-management check of the role, the same answers as `/api/dev/automation`), called through the invocation
 * pipeline as the signed-in person.
 */
export interface AutomationCalls {
  listTriggers(workspaceId: string): Promise<Trigger[]>;
  createTrigger(input: TriggerCreate): Promise<Trigger>;
  updateTrigger(id: string, patch: TriggerPatch): Promise<Trigger>;
  deleteTrigger(id: string): Promise<void>;
  listEndpoints(workspaceId: string): Promise<WebhookEndpoint[]>;
  createEndpoint(input: EndpointCreate): Promise<EndpointSecret>;
  rotateSecret(id: string): Promise<EndpointSecret>;
  deleteEndpoint(id: string): Promise<void>;
  listRuns(workspaceId: string, query: { state?: RunState; triggerId?: string; limit?: number; cursor?: string }): Promise<Page<Run>>;
  getRun(id: string): Promise<Run>;
  listExecutions(workspaceId: string, query: { runId?: string; limit?: number; cursor?: string }): Promise<Page<Execution>>;
}

/** The operation ids the pages run (docs/automation.md lists their routes). */
type AutomationOperationId =
  | 'listAutomationTriggers'
  | 'createAutomationTrigger'
  | 'updateAutomationTrigger'
  | 'deleteAutomationTrigger'
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'rotateWebhookSecret'
  | 'deleteWebhookEndpoint'
  | 'listAutomationRuns'
  | 'getAutomationRun'
  | 'listAutomationExecutions';

/** Drops undefined fields: the operations' inputs are strict objects, and a query field is absent or a value. */
function defined(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
}

/**
 * The automation calls of one person, over `operations` (the automation gateway's table). An operation missing from
 * the table answers `unavailable`, as a gateway built without automation does.
 */
export function automationCalls(call: WorkspaceCall, operations: readonly AnyOperation[]): AutomationCalls {
  const byId = new Map(operations.map((operation) => [operation.id, operation]));
  const run = <T>(id: AutomationOperationId, input: Record<string, unknown>): Promise<T> => {
    const operation = byId.get(id);
    if (!operation) return Promise.reject(new KgateError('unavailable', 'Automation is not available on this server.'));
    return call<T>(operation, defined(input));
  };
  return {
    listTriggers: async (workspaceId) => (await run<{ triggers: Trigger[] }>('listAutomationTriggers', { workspaceId })).triggers,
    createTrigger: async (input) => (await run<{ trigger: Trigger }>('createAutomationTrigger', { ...input })).trigger,
    updateTrigger: async (id, patch) => (await run<{ trigger: Trigger }>('updateAutomationTrigger', { ...patch, id })).trigger,
    deleteTrigger: async (id) => {
      await run('deleteAutomationTrigger', { id });
    },
    listEndpoints: async (workspaceId) => (await run<{ endpoints: WebhookEndpoint[] }>('listWebhookEndpoints', { workspaceId })).endpoints,
    createEndpoint: (input) => run<EndpointSecret>('createWebhookEndpoint', { ...input }),
    rotateSecret: (id) => run<EndpointSecret>('rotateWebhookSecret', { id }),
    deleteEndpoint: async (id) => {
      await run('deleteWebhookEndpoint', { id });
    },
    listRuns: async (workspaceId, query) => {
      const page = await run<{ runs: Run[]; nextCursor: string | null }>('listAutomationRuns', { workspaceId, ...query });
      return { items: page.runs, nextCursor: page.nextCursor };
    },
    getRun: async (id) => (await run<{ run: Run }>('getAutomationRun', { id })).run,
    listExecutions: async (workspaceId, query) => {
      const page = await run<{ executions: Execution[]; nextCursor: string | null }>('listAutomationExecutions', { workspaceId, ...query });
      return { items: page.executions, nextCursor: page.nextCursor };
    },
  };
}
