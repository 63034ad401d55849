import { z } from 'zod';
import {
  MAX_AUTOMATION_PAGE,
  RunSchema,
  RunStateSchema,
  TriggerCreateSchema,
  TriggerPatchSchema,
  TriggerSchema,
} from '../../domains/automation/index.ts';
import { AUTOMATION_READ, AUTOMATION_WRITE, automationOf } from './automation-fields.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

// Triggers and their runs (docs/automation.md). Every call needs automation management (owner, admin) in the
// workspace, checked by the domain from server records; a workspace the caller is not in is not_found.

const COMMON_ERRORS = ['invalid_request', 'not_found', 'forbidden', 'unavailable'] as const;

/** GET /triggers. */
export const listAutomationTriggers = defineOperation({
  ...AUTOMATION_READ,
  id: 'listAutomationTriggers',
  summary: 'List triggers',
  description: 'The triggers of a workspace, newest first.',
  input: z.strictObject({ workspaceId: z.uuid() }),
  output: z.object({ triggers: z.array(TriggerSchema) }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'GET', path: '/triggers' }],
  run: async (ctx, input) => ({ triggers: await automationOf(ctx).listTriggers(ctx.principal.actor, input.workspaceId) }),
});

/** POST /triggers. */
export const createAutomationTrigger = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'createAutomationTrigger',
  summary: 'Create a trigger',
  description:
    'A trigger fires on events of a type (with conditions on their fields) or every so many minutes, and either ' +
    'delivers the event to webhooks or proposes a note for a person to approve. A propose action’s mapping must be ' +
    'a hosted mapping of the workspace.',
  input: z.strictObject(TriggerCreateSchema.shape),
  output: z.object({ trigger: TriggerSchema }),
  errors: [...COMMON_ERRORS, 'conflict'],
  rest: [{ method: 'POST', path: '/triggers' }],
  run: async (ctx, input) => ({ trigger: await automationOf(ctx).createTrigger(ctx.principal.actor, input) }),
});

/** PATCH /triggers/{id}. */
export const updateAutomationTrigger = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'updateAutomationTrigger',
  summary: 'Change a trigger',
  description: 'The fields given replace the stored ones. With expectedVersion, a trigger changed since is a conflict and nothing changes.',
  input: z.strictObject({ id: z.uuid(), ...TriggerPatchSchema.shape }),
  output: z.object({ trigger: TriggerSchema }),
  errors: [...COMMON_ERRORS, 'conflict'],
  rest: [{ method: 'PATCH', path: '/triggers/{id}' }],
  run: async (ctx, { id, ...patch }) => ({ trigger: await automationOf(ctx).updateTrigger(ctx.principal.actor, id, patch) }),
});

/** DELETE /triggers/{id}. */
export const deleteAutomationTrigger = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'deleteAutomationTrigger',
  summary: 'Delete a trigger',
  description: 'Deletes a trigger; its runs stay, with the trigger as it was when they fired.',
  input: z.strictObject({ id: z.uuid() }),
  output: z.object({ deleted: z.literal(true), id: z.uuid() }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'DELETE', path: '/triggers/{id}' }],
  async run(ctx, input) {
    await automationOf(ctx).deleteTrigger(ctx.principal.actor, input.id);
    return { deleted: true as const, id: input.id };
  },
});

/** GET /runs. */
export const listAutomationRuns = defineOperation({
  ...AUTOMATION_READ,
  id: 'listAutomationRuns',
  summary: 'List runs',
  description: 'The runs of a workspace, newest first, each with its steps; optionally of one state or one trigger.',
  input: z.strictObject({
    workspaceId: z.uuid(),
    state: RunStateSchema.optional(),
    triggerId: z.uuid().optional(),
    limit: z.number().int().min(1).max(MAX_AUTOMATION_PAGE).optional(),
    cursor: z.string().max(200).optional(),
  }),
  output: z.object({ runs: z.array(RunSchema), nextCursor: z.string().nullable() }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'GET', path: '/runs' }],
  async run(ctx, { workspaceId, ...query }) {
    const page = await automationOf(ctx).listRuns(ctx.principal.actor, workspaceId, query);
    return { runs: page.items, nextCursor: page.nextCursor };
  },
});

/** GET /runs/{id}. */
export const getAutomationRun = defineOperation({
  ...AUTOMATION_READ,
  id: 'getAutomationRun',
  summary: 'Read a run',
  description: 'One run with every step in order.',
  input: z.strictObject({ id: z.uuid() }),
  output: z.object({ run: RunSchema }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'GET', path: '/runs/{id}' }],
  run: async (ctx, input) => ({ run: await automationOf(ctx).getRun(ctx.principal.actor, input.id) }),
});

/** The trigger operations, in route order. */
export const AUTOMATION_TRIGGER_OPERATIONS: readonly AnyOperation[] = [
  listAutomationTriggers,
  createAutomationTrigger,
  updateAutomationTrigger,
  deleteAutomationTrigger,
];
/** The run operations, in route order. */
export const AUTOMATION_RUN_OPERATIONS: readonly AnyOperation[] = [listAutomationRuns, getAutomationRun];
