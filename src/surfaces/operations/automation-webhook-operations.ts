import { z } from 'zod';
import { EndpointCreateSchema, EndpointSecretSchema, ExecutionSchema, MAX_AUTOMATION_PAGE, WebhookEndpointSchema } from '../../domains/automation/index.ts';
import { AUTOMATION_READ, AUTOMATION_WRITE, webhooksOf } from './automation-fields.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

// Webhook endpoints and the executions of outbound actions (docs/automation.md). A secret is shown once, when it is
// made (creation, rotation); lists show only its hint.

const COMMON_ERRORS = ['invalid_request', 'not_found', 'forbidden', 'unavailable'] as const;

/** GET /endpoints. */
export const listWebhookEndpoints = defineOperation({
  ...AUTOMATION_READ,
  id: 'listWebhookEndpoints',
  summary: 'List webhook endpoints',
  description: 'The webhook endpoints of a workspace, newest first, each by its secret’s hint (never the secret).',
  input: z.strictObject({ workspaceId: z.uuid() }),
  output: z.object({ endpoints: z.array(WebhookEndpointSchema) }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'GET', path: '/endpoints' }],
  run: async (ctx, input) => ({ endpoints: await webhooksOf(ctx).list(ctx.principal.actor, input.workspaceId) }),
});

/** POST /endpoints. */
export const createWebhookEndpoint = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'createWebhookEndpoint',
  summary: 'Create a webhook endpoint',
  description:
    'An https URL that receives the workspace’s events of the given types (default every type), signed the ' +
    'Standard Webhooks way. Its secret is answered once, now. A URL that is not https or whose host is not public ' +
    'is endpoint_url_refused.',
  input: z.strictObject(EndpointCreateSchema.shape),
  output: EndpointSecretSchema,
  errors: [...COMMON_ERRORS, 'conflict', 'endpoint_url_refused'],
  rest: [{ method: 'POST', path: '/endpoints' }],
  run: (ctx, input) => webhooksOf(ctx).create(ctx.principal.actor, input),
});

/** POST /endpoints/{id}/rotate-secret. */
export const rotateWebhookSecret = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'rotateWebhookSecret',
  summary: 'Rotate a webhook secret',
  description: 'A new secret, answered once; the previous one keeps signing beside it for 24 hours.',
  input: z.strictObject({ id: z.uuid() }),
  output: EndpointSecretSchema,
  errors: COMMON_ERRORS,
  rest: [{ method: 'POST', path: '/endpoints/{id}/rotate-secret' }],
  run: (ctx, input) => webhooksOf(ctx).rotateSecret(ctx.principal.actor, input.id),
});

/** DELETE /endpoints/{id}. */
export const deleteWebhookEndpoint = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'deleteWebhookEndpoint',
  summary: 'Delete a webhook endpoint',
  description: 'Deletes the endpoint; its pending deliveries are dropped, its executions stay.',
  input: z.strictObject({ id: z.uuid() }),
  output: z.object({ deleted: z.literal(true), id: z.uuid() }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'DELETE', path: '/endpoints/{id}' }],
  async run(ctx, input) {
    await webhooksOf(ctx).remove(ctx.principal.actor, input.id);
    return { deleted: true as const, id: input.id };
  },
});

/** GET /executions. */
export const listAutomationExecutions = defineOperation({
  ...AUTOMATION_READ,
  id: 'listAutomationExecutions',
  summary: 'List executions',
  description: 'Every attempt of an outbound action of a workspace (a webhook delivery attempt, a proposal execution), newest first.',
  input: z.strictObject({
    workspaceId: z.uuid(),
    runId: z.uuid().optional(),
    limit: z.number().int().min(1).max(MAX_AUTOMATION_PAGE).optional(),
    cursor: z.string().max(200).optional(),
  }),
  output: z.object({ executions: z.array(ExecutionSchema), nextCursor: z.string().nullable() }),
  errors: COMMON_ERRORS,
  rest: [{ method: 'GET', path: '/executions' }],
  async run(ctx, { workspaceId, ...query }) {
    const page = await webhooksOf(ctx).executions(ctx.principal.actor, workspaceId, query);
    return { executions: page.items, nextCursor: page.nextCursor };
  },
});

/** The endpoint operations, in route order. */
export const WEBHOOK_ENDPOINT_OPERATIONS: readonly AnyOperation[] = [listWebhookEndpoints, createWebhookEndpoint, rotateWebhookSecret, deleteWebhookEndpoint];
/** The executions operation. */
export const AUTOMATION_EXECUTION_OPERATIONS: readonly AnyOperation[] = [listAutomationExecutions];
