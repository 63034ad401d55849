import { z } from 'zod';
import { AutomationEventSchema, ProcessSummarySchema } from '../../domains/automation/index.ts';
import { KgateError } from '../../kernel/errors.ts';
import { AUTOMATION_WRITE, automationOf } from './automation-fields.ts';
import { defineOperation, type AnyOperation } from './operation.ts';

// Events in, and `process` (docs/automation.md). The event input takes kgate's own fields and CloudEvents 1.0
// structured JSON alike; the fields are typed loosely here because the domain normalizes and validates them as one
// (events/), and refuses with invalid_request what neither shape allows.

/** POST /events. */
export const ingestAutomationEvent = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'ingestAutomationEvent',
  summary: 'Send an event',
  description:
    'Stores one event of a workspace, in kgate’s shape (type, source, subject, occurredAt, data) or as CloudEvents ' +
    '1.0 structured JSON (specversion, id, source, type, time, subject, data), and starts one run per enabled ' +
    'trigger it matches. The Idempotency-Key header is required and names the event: the same key with the same ' +
    'event answers the stored event (duplicate true) and starts nothing; a CloudEvents id is not the key. Needs ' +
    'automation management (owner, admin) in the workspace.',
  idempotency: 'always',
  input: z.strictObject({
    workspaceId: z.uuid(),
    type: z.string().max(100).optional().describe('kgate and CloudEvents: dotted lower-case words (form.submitted)'),
    source: z.string().max(200).optional().describe('kgate and CloudEvents: who sent it'),
    subject: z.string().max(500).optional().describe('kgate and CloudEvents: what it is about'),
    occurredAt: z.string().max(100).optional().describe('kgate: when it happened (ISO 8601 with offset)'),
    data: z.unknown().optional().describe('kgate and CloudEvents: a JSON object of at most 64 KiB'),
    specversion: z.string().max(20).optional().describe('CloudEvents: "1.0"'),
    id: z.string().max(200).optional().describe('CloudEvents: the producer’s id (not the idempotency key)'),
    time: z.string().max(100).optional().describe('CloudEvents: when it happened'),
    datacontenttype: z.string().max(200).optional().describe('CloudEvents: application/json'),
    dataschema: z.string().max(2000).optional().describe('CloudEvents: the URI of data’s schema'),
  }),
  output: z.object({
    event: AutomationEventSchema,
    duplicate: z.boolean().describe('True when this key already stored this event: nothing new was started'),
    runIds: z.array(z.uuid()).describe('The runs it started'),
  }),
  errors: [
    'invalid_request',
    'not_found',
    'forbidden',
    'payload_too_large',
    'idempotency_key_required',
    'idempotency_key_reused',
    'idempotency_key_in_flight',
    'unavailable',
  ],
  rest: [{ method: 'POST', path: '/events' }],
  run(ctx, input) {
    // The pipeline opens the idempotent commit of every call whose rule is `always`; without it nothing may be stored.
    if (!ctx.commit) throw new KgateError('idempotency_key_required', 'Sending an event needs an Idempotency-Key header.');
    return automationOf(ctx).ingest(ctx.principal.actor, input, ctx.commit.key, ctx.commit.sql);
  },
});

/** POST /process. */
export const processAutomation = defineOperation({
  ...AUTOMATION_WRITE,
  id: 'processAutomation',
  summary: 'Move automation on now',
  description:
    'Does now, for the workspaces where you manage automation, what the background loop does: starts due schedule ' +
    'runs, steps queued and waiting runs, executes approved automation proposals as the person who approved them, ' +
    'and delivers due webhooks. Answers what it did. Safe to call concurrently.',
  input: z.strictObject({}),
  output: ProcessSummarySchema,
  errors: ['unavailable'],
  rest: [{ method: 'POST', path: '/process' }],
  run: (ctx) => automationOf(ctx).process({ accountId: ctx.principal.actor.accountId }),
});

/** The event and process operations, in route order. */
export const AUTOMATION_EVENT_OPERATIONS: readonly AnyOperation[] = [ingestAutomationEvent];
/** POST /process, last of the routes. */
export const AUTOMATION_PROCESS_OPERATIONS: readonly AnyOperation[] = [processAutomation];
