import { z } from 'zod';
import type { Sql } from '../../db/port.ts';
import type { Actor } from '../../kernel/principal.ts';

/**
 * The automation contract (docs/automation.md), version 1: what events look like once normalized, and the records
 * of triggers, runs, webhook endpoints, deliveries and executions as callers read them. Its version is part of every
 * normalized event and every webhook payload; a change that is not additive gets a new version.
 */
export const AUTOMATION_CONTRACT_VERSION = 1;
/** The name a normalized event and a webhook payload carry in `contract`. */
export const AUTOMATION_CONTRACT = 'kgate.automation/1';

/** Largest serialized `data` of one event (the whole request body is bounded at the transport too). */
export const MAX_EVENT_DATA_BYTES = 64 * 1024;
/** Largest request body of the automation gateway. */
export const MAX_AUTOMATION_BODY_BYTES = 256 * 1024;
/** Deepest nesting of an event's `data`. */
export const MAX_EVENT_DEPTH = 16;
/** Most triggers of one workspace, and most webhook endpoints of one workspace. */
export const MAX_TRIGGERS_PER_WORKSPACE = 100;
export const MAX_ENDPOINTS_PER_WORKSPACE = 20;
/** Conditions of one trigger, at most. */
export const MAX_TRIGGER_CONDITIONS = 10;
/** Items a list answers by default and at most. */
export const DEFAULT_AUTOMATION_PAGE = 50;
export const MAX_AUTOMATION_PAGE = 200;
/** How long a rotated-out webhook secret keeps signing beside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** An event type or a source name: dotted lower-case words (`form.submitted`, `note.created`). */
export const EventTypeSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*$/, 'dotted lower-case words, like form.submitted');

/**
 * A trigger's or an endpoint's event filter: an exact type, or a prefix ending in `.*` (`form.*` matches
 * `form.submitted` and `form.deleted`, not `form`), or `*` for every type.
 */
export const EventFilterSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^(?:\*|[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)*(?:\.\*)?)$/, 'an event type, a prefix ending in .*, or *');

/**
 * An event as it arrives at `POST /events`, in kgate's own shape. CloudEvents 1.0 structured JSON (`specversion`,
 * `id`, `source`, `type`, `time`, `subject`, `data`) is accepted too and normalized to the same record (events/).
 */
export const EventInputSchema = z.strictObject({
  workspaceId: z.uuid(),
  type: EventTypeSchema,
  source: z.string().min(1).max(200).describe('Who sent it: the bridge or producer (n8n, zapier, forms.example.com)'),
  subject: z.string().max(500).optional().describe('What it is about, in the producer’s words (a record id, a path)'),
  occurredAt: z.iso.datetime({ offset: true }).optional().describe('When it happened at the producer; default: when it arrived'),
  data: z.record(z.string(), z.unknown()).describe('The event’s payload, a JSON object of at most 64 KiB'),
});
/** See EventInputSchema. */
export type EventInput = z.infer<typeof EventInputSchema>;

/** An event once normalized into the automation contract and stored. */
export const AutomationEventSchema = z.object({
  contract: z.literal(AUTOMATION_CONTRACT),
  id: z.uuid(),
  workspaceId: z.uuid(),
  type: z.string(),
  source: z.string(),
  subject: z.string().nullable(),
  occurredAt: z.string(),
  receivedAt: z.string(),
  data: z.record(z.string(), z.unknown()),
});
/** See AutomationEventSchema. */
export type AutomationEvent = z.infer<typeof AutomationEventSchema>;

/** One condition of a trigger: a dotted field of the normalized event (`data.form`, `source`) equals a value. */
export const TriggerConditionSchema = z.strictObject({
  field: z.string().min(1).max(200).regex(/^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/),
  equals: z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]),
});
/** See TriggerConditionSchema. */
export type TriggerCondition = z.infer<typeof TriggerConditionSchema>;

/**
 * What a run of a trigger does.
 * - `webhook`: deliver the event (its type, its normalized record) to the workspace's endpoints that take its type,
 *   or to the named ones.
 * - `propose`: propose writing one note of a hosted mapping of the workspace (an ActionProposal, the lifecycle of
 *   `propose_action`): `path`, `content` and `title` are templates in which `{{event.type}}`, `{{event.subject}}`,
 *   `{{event.data.name}}` and the like are replaced by the event's values. A person approves it; `process` executes it.
 */
export const TriggerActionSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('webhook'),
    endpointIds: z.array(z.uuid()).max(20).optional().describe('Only these endpoints; default every endpoint of the workspace that takes the type'),
  }),
  z.strictObject({
    kind: z.literal('propose'),
    mappingId: z.uuid(),
    title: z.string().min(1).max(200),
    path: z.string().min(1).max(500),
    content: z.string().max(64 * 1024),
  }),
]);
/** See TriggerActionSchema. */
export type TriggerAction = z.infer<typeof TriggerActionSchema>;

/** When a trigger fires: on events of a type (and its conditions), or on a schedule. Exactly one of the two. */
export const TriggerWhenSchema = z.union([
  z.strictObject({ eventType: EventFilterSchema, conditions: z.array(TriggerConditionSchema).max(MAX_TRIGGER_CONDITIONS).optional() }),
  z.strictObject({ everyMinutes: z.number().int().min(1).max(10080) }),
]);
/** See TriggerWhenSchema. */
export type TriggerWhen = z.infer<typeof TriggerWhenSchema>;

/** A trigger as callers read it. */
export const TriggerSchema = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  name: z.string(),
  enabled: z.boolean(),
  when: TriggerWhenSchema,
  action: TriggerActionSchema,
  nextDueAt: z.string().nullable().describe('A schedule trigger: when it is next due'),
  createdBy: z.uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});
/** See TriggerSchema. */
export type Trigger = z.infer<typeof TriggerSchema>;

/** Creating a trigger. */
export const TriggerCreateSchema = z.strictObject({
  workspaceId: z.uuid(),
  name: z.string().min(1).max(200),
  enabled: z.boolean().optional(),
  when: TriggerWhenSchema,
  action: TriggerActionSchema,
});
/** See TriggerCreateSchema. */
export type TriggerCreate = z.infer<typeof TriggerCreateSchema>;

/** Changing a trigger: the fields given replace the stored ones; `expectedVersion` guards against a lost update. */
export const TriggerPatchSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  enabled: z.boolean().optional(),
  when: TriggerWhenSchema.optional(),
  action: TriggerActionSchema.optional(),
  expectedVersion: z.number().int().min(1).optional(),
});
/** See TriggerPatchSchema. */
export type TriggerPatch = z.infer<typeof TriggerPatchSchema>;

/** Where a run stands. */
export const RunStateSchema = z.enum(['queued', 'running', 'waiting', 'succeeded', 'failed']);
/** See RunStateSchema. */
export type RunState = z.infer<typeof RunStateSchema>;

/** The steps a run records, in the order they can happen (docs/automation.md, "Runs"). */
export const RunStepKindSchema = z.enum([
  'matched',
  'scheduled',
  'proposal.created',
  'proposal.approved',
  'proposal.rejected',
  'proposal.expired',
  'proposal.executed',
  'proposal.failed',
  'webhook.queued',
  'webhook.delivered',
  'webhook.gave_up',
  'refused',
  'succeeded',
  'failed',
]);
/** See RunStepKindSchema. */
export type RunStepKind = z.infer<typeof RunStepKindSchema>;

/** One step of a run. */
export const RunStepSchema = z.object({ n: z.number().int(), step: RunStepKindSchema, at: z.string(), detail: z.record(z.string(), z.unknown()) });
/** See RunStepSchema. */
export type RunStep = z.infer<typeof RunStepSchema>;

/** A run as callers read it, with its steps. */
export const RunSchema = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  triggerId: z.uuid().nullable(),
  triggerName: z.string(),
  eventId: z.uuid().nullable(),
  proposalId: z.uuid().nullable(),
  state: RunStateSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  failure: z.object({ code: z.string(), detail: z.string() }).nullable(),
  steps: z.array(RunStepSchema),
});
/** See RunSchema. */
export type Run = z.infer<typeof RunSchema>;

/** A webhook endpoint as callers read it (never its secret, except once: EndpointSecretSchema). */
export const WebhookEndpointSchema = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.string()).describe('Types delivered to it; empty: every type'),
  secretHint: z.string().describe('The first characters of the current secret, to tell secrets apart'),
  secretRotatedAt: z.string().nullable(),
  previousSecretExpiresAt: z.string().nullable().describe('Until then the previous secret signs too'),
  createdBy: z.uuid(),
  createdAt: z.string(),
});
/** See WebhookEndpointSchema. */
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

/** Creating a webhook endpoint. */
export const EndpointCreateSchema = z.strictObject({
  workspaceId: z.uuid(),
  url: z.string().min(1).max(2000),
  description: z.string().max(500).optional(),
  eventTypes: z.array(EventFilterSchema).max(50).optional(),
});
/** See EndpointCreateSchema. */
export type EndpointCreate = z.infer<typeof EndpointCreateSchema>;

/** The one time a secret is shown: at creation and at each rotation (`whsec_` and base64 of 32 random bytes). */
export const EndpointSecretSchema = z.object({ endpoint: WebhookEndpointSchema, secret: z.string() });
/** See EndpointSecretSchema. */
export type EndpointSecret = z.infer<typeof EndpointSecretSchema>;

/** One attempt of an outbound action: a webhook delivery attempt, or the execution of an approved proposal. */
export const ExecutionSchema = z.object({
  id: z.uuid(),
  workspaceId: z.uuid(),
  kind: z.enum(['webhook', 'proposal']),
  runId: z.uuid().nullable(),
  deliveryId: z.string().nullable().describe('The webhook-id of the message (the same on every attempt)'),
  endpointId: z.uuid().nullable(),
  proposalId: z.uuid().nullable(),
  eventType: z.string().nullable(),
  attempt: z.number().int(),
  outcome: z.enum(['succeeded', 'failed', 'gave_up']),
  httpStatus: z.number().int().nullable(),
  errorCode: z.string().nullable(),
  detail: z.string(),
  startedAt: z.string(),
  durationMs: z.number().int(),
  nextAttemptAt: z.string().nullable(),
});
/** See ExecutionSchema. */
export type Execution = z.infer<typeof ExecutionSchema>;

/** What one `process` call did. */
export const ProcessSummarySchema = z.object({
  runsStarted: z.number().int().describe('Due schedule triggers that started a run'),
  runsStepped: z.number().int().describe('Queued or waiting runs moved on'),
  proposalsExecuted: z.number().int().describe('Approved automation proposals executed (or failed)'),
  deliveriesAttempted: z.number().int(),
  delivered: z.number().int(),
  failedAttempts: z.number().int(),
  gaveUp: z.number().int(),
});
/** See ProcessSummarySchema. */
export type ProcessSummary = z.infer<typeof ProcessSummarySchema>;

/** A page of a list, newest first. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Outbound event types kgate itself emits to webhook endpoints (besides the types of forwarded events). A proposal's
 * rejection or expiry is told for proposals a trigger's run made (the run watches its verdict).
 */
export const EMITTED_EVENT_TYPES = [
  'proposal.created',
  'proposal.rejected',
  'proposal.expired',
  'proposal.executed',
  'proposal.failed',
  'run.succeeded',
  'run.failed',
] as const;

/**
 * Webhook endpoints, signing and delivery (webhooks/). Creating an endpoint is an automation-management act of a
 * workspace role; it grants nothing else. Delivery is at least once, with the same `webhook-id` on every attempt.
 */
export interface WebhooksService {
  list(actor: Actor, workspaceId: string): Promise<WebhookEndpoint[]>;
  /** https only; the host must resolve to public addresses unless configured (`endpoint_url_refused`). */
  create(actor: Actor, input: EndpointCreate): Promise<EndpointSecret>;
  /** A new secret; the previous one keeps signing until SECRET_OVERLAP_MS from now. Shown once. */
  rotateSecret(actor: Actor, endpointId: string): Promise<EndpointSecret>;
  /** Deletes it; its pending deliveries are dropped (their executions stay). */
  remove(actor: Actor, endpointId: string): Promise<void>;
  /**
   * Queues one message per endpoint of the workspace that takes `eventType` (or per named endpoint that does), in
   * the caller's transaction, and answers their delivery ids. The payload is fixed now: every attempt sends the same
   * bytes. Nothing is sent here.
   */
  enqueue(
    sql: Sql,
    message: { workspaceId: string; eventType: string; data: Readonly<Record<string, unknown>>; runId?: string | null; endpointIds?: readonly string[] },
  ): Promise<string[]>;
  /**
   * Attempts the deliveries due now (of `workspaceIds` only, when given), each claimed under a lease so that two
   * processes never send one attempt twice; every attempt is an execution record. Answers what it did.
   */
  deliverDue(options?: { workspaceIds?: readonly string[]; limit?: number }): Promise<Pick<ProcessSummary, 'deliveriesAttempted' | 'delivered' | 'failedAttempts' | 'gaveUp'>>;
  /** Where the deliveries of a run stand: how many are pending, delivered, failed. */
  deliveriesOfRun(runId: string, sql?: Sql): Promise<{ pending: number; delivered: number; failed: number }>;
  /** Executions of a workspace (the caller needs automation.manage), newest first. */
  executions(actor: Actor, workspaceId: string, query?: { limit?: number; cursor?: string; runId?: string }): Promise<Page<Execution>>;
}

/** What ingesting an event did: the stored event, whether it was already stored under its key, and the runs it started. */
export interface IngestResult {
  event: AutomationEvent;
  /** True when the workspace already had an event under this key (a retried delivery): nothing new was started. */
  duplicate: boolean;
  runIds: string[];
}

/**
 * Events, triggers, runs and `process` (docs/automation.md). Every method resolves the caller's workspace role from
 * server-held records: automation management (owner, admin) for events, triggers, runs and executions. A personal
 * token never adds a permission the role lacks.
 */
export interface AutomationService {
  /**
   * Validates and normalizes one event (kgate's shape or CloudEvents 1.0 JSON), stores it once per workspace and key,
   * and starts one queued run per enabled trigger it matches, all in `sql` (the idempotent commit of the request).
   * A key already stored with the same event answers it with `duplicate: true` and starts nothing; with another
   * event, `idempotency_key_reused`. An event over MAX_EVENT_DATA_BYTES is `payload_too_large`; nothing is stored.
   */
  ingest(actor: Actor, raw: Readonly<Record<string, unknown>>, idempotencyKey: string, sql?: Sql): Promise<IngestResult>;
  listTriggers(actor: Actor, workspaceId: string): Promise<Trigger[]>;
  createTrigger(actor: Actor, input: TriggerCreate, sql?: Sql): Promise<Trigger>;
  /** `expectedVersion` other than the stored version: `conflict`, nothing changed. */
  updateTrigger(actor: Actor, triggerId: string, patch: TriggerPatch, sql?: Sql): Promise<Trigger>;
  /** Its runs stay, with the trigger as it was when they fired. */
  deleteTrigger(actor: Actor, triggerId: string, sql?: Sql): Promise<void>;
  listRuns(actor: Actor, workspaceId: string, query?: { limit?: number; cursor?: string; triggerId?: string; state?: RunState }): Promise<Page<Run>>;
  getRun(actor: Actor, runId: string): Promise<Run>;
  /**
   * Moves automation on: starts runs of due schedule triggers, steps queued and waiting runs, executes approved
   * automation proposals (as the person who approved them, whose write access is checked again), and delivers due
   * webhooks. `account`: only what that account's workspaces hold where it has automation management (POST /process);
   * `all`: everything (the maintenance loop). Safe to run concurrently: work is claimed under leases.
   */
  process(scope: { accountId: string } | 'all'): Promise<ProcessSummary>;
}
