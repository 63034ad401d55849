import { z } from 'zod';
import { KgateError } from '../../../kernel/errors.ts';
import { sha256Hex } from '../../../kernel/hashing.ts';
import { EventInputSchema, EventTypeSchema, MAX_EVENT_DATA_BYTES, MAX_EVENT_DEPTH, type EventInput } from '../contract.ts';

/**
 * Normalizing an arriving event into the automation contract (docs/automation.md, "Events"). Two shapes arrive:
 * kgate's own (EventInputSchema) and CloudEvents 1.0 structured JSON, which workflow tools and cloud event buses
 * already speak. Both become the same record; what does not fit either is refused with the field that is wrong.
 */

/** An event as it will be stored, before it has an id. */
export interface NormalizedEvent {
  workspaceId: string;
  type: string;
  source: string;
  subject: string | null;
  /** When it happened at the producer; null: when it arrived. */
  occurredAt: Date | null;
  data: Record<string, unknown>;
  /** The byte length of `data` serialized. */
  sizeBytes: number;
}

// CloudEvents 1.0 structured mode, JSON format: the attributes we read. `id` is the producer's own and is checked but
// not kept (the Idempotency-Key header is the delivery's identity), so it is not part of the fingerprint either.
// Extension attributes (lower-case letters and digits, at most 20, scalar values) are accepted and not kept.
const CloudEventSchema = z.looseObject({
  workspaceId: z.uuid(),
  specversion: z.literal('1.0'),
  id: z.string().min(1).max(200),
  source: z.string().min(1).max(200),
  type: EventTypeSchema,
  time: z.iso.datetime({ offset: true }).optional(),
  subject: z.string().max(500).optional(),
  datacontenttype: z.string().regex(/^application\/(?:[\w.+-]+\+)?json\b/i, 'only JSON data is accepted').optional(),
  dataschema: z.url().max(2000).optional(),
  data: z.record(z.string(), z.unknown()),
});

/** Validates and normalizes one raw event; `invalid_request` names the field, `payload_too_large` the bound. */
export function normalizeEvent(raw: Readonly<Record<string, unknown>>): NormalizedEvent {
  const cloud = 'specversion' in raw;
  if (cloud) checkExtensions(raw);
  const parsed = cloud ? CloudEventSchema.safeParse(raw) : EventInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || (cloud ? '(CloudEvent)' : '(event)');
    throw new KgateError('invalid_request', `The event is not valid${cloud ? ' CloudEvents 1.0 JSON' : ''}: ${field}: ${issue.message}.`, { field });
  }
  const event: EventInput = cloud
    ? fromCloudEvent(parsed.data as z.infer<typeof CloudEventSchema>)
    : (parsed.data);
  const depth = depthOf(event.data, 0);
  if (depth > MAX_EVENT_DEPTH) {
    throw new KgateError('invalid_request', `The event's data is nested ${depth} levels deep; at most ${MAX_EVENT_DEPTH} are accepted.`, { field: 'data', limit: MAX_EVENT_DEPTH });
  }
  const sizeBytes = Buffer.byteLength(JSON.stringify(event.data), 'utf8');
  if (sizeBytes > MAX_EVENT_DATA_BYTES) {
    throw new KgateError('payload_too_large', `The event's data is ${sizeBytes} bytes; at most ${MAX_EVENT_DATA_BYTES} are accepted. Nothing was stored.`, {
      field: 'data',
      limit: MAX_EVENT_DATA_BYTES,
    });
  }
  return {
    workspaceId: event.workspaceId,
    type: event.type,
    source: event.source,
    subject: event.subject ?? null,
    occurredAt: event.occurredAt ? new Date(event.occurredAt) : null,
    data: event.data,
    sizeBytes,
  };
}

const CLOUD_ATTRIBUTES = new Set(['workspaceId', 'specversion', 'id', 'source', 'type', 'time', 'subject', 'datacontenttype', 'dataschema', 'data']);

// CloudEvents 1.0 extension attributes: names of lower-case letters and digits, values scalar. `data_base64` (binary
// data) is not one, so it is refused with its name.
function checkExtensions(raw: Readonly<Record<string, unknown>>): void {
  for (const [name, value] of Object.entries(raw)) {
    if (CLOUD_ATTRIBUTES.has(name)) continue;
    const scalar = typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
    if (!/^[a-z0-9]{1,20}$/.test(name) || !scalar || (typeof value === 'string' && value.length > 1000)) {
      throw new KgateError('invalid_request', `The event is not valid CloudEvents 1.0 JSON: ${name}: not an attribute kgate reads, nor an extension attribute (lower-case letters and digits, a short scalar value).`, { field: name });
    }
  }
}

function fromCloudEvent(e: z.infer<typeof CloudEventSchema>): EventInput {
  return {
    workspaceId: e.workspaceId,
    type: e.type,
    source: e.source,
    ...(e.subject !== undefined ? { subject: e.subject } : {}),
    ...(e.time ? { occurredAt: e.time } : {}),
    data: e.data,
  };
}

// Iterative, so that a hostile depth cannot exhaust the stack before it is measured.
function depthOf(value: unknown, start: number): number {
  let deepest = start;
  const stack: Array<[unknown, number]> = [[value, start + 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_EVENT_DEPTH) return deepest;
    for (const child of Object.values(item as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The fingerprint of an event under its key: what the producer said (workspace, type, source, subject, time, data),
 * not when it arrived, so that a retried delivery of the same event matches and a different event does not.
 */
export function eventFingerprint(event: NormalizedEvent): string {
  return sha256Hex(
    JSON.stringify([event.workspaceId, event.type, event.source, event.subject, event.occurredAt?.toISOString() ?? null, canonical(event.data)]),
  );
}

// Key order does not change what an event says.
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value as Record<string, unknown>).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]));
  }
  return value;
}
