/**
 * Runs one scenario over HTTP: scripts the fake model with the scenario's canned answers (offline), sends the request
 * as a product does (bearer token, `X-Service-Runtime-Version: 1`, a fresh `Idempotency-Key`), times the answer (first
 * byte and total), reads its envelope (JSON, or the `done` event of an NDJSON stream) and runs every check over it.
 */
import { randomUUID } from 'node:crypto';
import type { TokenUsage } from '../../src/domains/models/index.ts';
import type { FakeBehavior, ModelFake } from '../../test/fakes/model/index.ts';
import { FAKE_IMAGE_BYTES } from '../../test/fakes/model/index.ts';
import { runChecks, type CheckResult, type EvalEnvelope, type EvalTiming } from './checks/index.ts';
import { EVAL_ENDPOINTS } from './endpoints.ts';
import type { Scenario } from './scenario.ts';
import type { EvalTarget } from './target.ts';
import { replyText } from './validate.ts';

/** The most a scenario's answer may take before the run gives up on it (a live model drafting a long answer). */
export const SCENARIO_TIMEOUT_MS = 300_000;
/** The largest answer body read (an image as base64 is the largest). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** One scenario's outcome. */
export interface ScenarioRun {
  id: string;
  workflow: Scenario['workflow'];
  title: string;
  endpoint: Scenario['endpoint'];
  httpStatus: number;
  /** The answer's media type: application/x-ndjson when a stream was asked for and admitted. */
  contentType: string;
  envelopeStatus: EvalEnvelope['status'] | 'unreadable';
  timing: EvalTiming;
  checks: CheckResult[];
  /** True when no check failed. */
  passed: boolean;
  /** The receipt's cost, when there was one. */
  costMicrodollars: number | undefined;
  usage: { inputTokens: number; outputTokens: number; images: number } | undefined;
  /** Model requests the fake saw (offline only). */
  modelRequests?: number;
}

/** The fake's behaviours for the scenario's canned answers. */
export function behavioursOf(scenario: Scenario): FakeBehavior[] {
  return scenario.model.replies.map((reply): FakeBehavior => {
    if ('image' in reply) return { kind: 'image', bytes: FAKE_IMAGE_BYTES[reply.image], ...(reply.usage ? { usage: reply.usage } : {}) };
    return { kind: 'reply', text: replyText(reply)!, usage: reply.usage };
  });
}

/** The chat tokens the canned answers report: what the receipt must carry offline. */
export function scriptedUsageOf(scenario: Scenario): TokenUsage {
  return scenario.model.replies.reduce(
    (sum, reply) => ('image' in reply ? sum : { inputTokens: sum.inputTokens + reply.usage.inputTokens, outputTokens: sum.outputTokens + reply.usage.outputTokens }),
    { inputTokens: 0, outputTokens: 0 },
  );
}

function unreadable(status: number, message: string): EvalEnvelope {
  return { version: 1, kind: 'unreadable', status: 'error', data: null, receipts: [], problems: [{ code: 'unreadable_answer', message }], requestId: '' };
}

function kindOf(event: Record<string, unknown>): unknown {
  return event.type ?? event.event ?? event.kind;
}

/**
 * The envelope of a body: JSON, or for an NDJSON stream (spec 6.3: `ready`, `delta`..., `done`) the envelope its
 * `done` (or `error`) event carries, whole under `envelope` or as the event's own status, data, receipts and problems
 * (the request id then from that event or `ready`); else an error envelope saying why not.
 */
export function envelopeOf(status: number, body: string, stream: boolean): EvalEnvelope {
  try {
    if (!stream) return JSON.parse(body) as EvalEnvelope;
    const events = body
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // A stream refused before it starts answers one plain JSON envelope.
    if (events.length === 1 && 'version' in events[0]! && 'status' in events[0] && 'data' in events[0]) return events[0] as unknown as EvalEnvelope;
    const done = events.findLast((event) => kindOf(event) === 'done' || kindOf(event) === 'error');
    if (!done) return unreadable(status, 'the stream ended without a done event');
    const inner = (done.envelope ?? done) as Record<string, unknown>;
    if (typeof inner.status !== 'string' || !('data' in inner)) return unreadable(status, 'the done event carries no envelope');
    const ready = events.find((event) => kindOf(event) === 'ready');
    const requestId = inner.requestId ?? done.requestId ?? ready?.requestId;
    return {
      version: typeof inner.version === 'number' ? inner.version : 1,
      kind: typeof inner.kind === 'string' && inner.kind !== 'done' ? inner.kind : 'stream',
      status: inner.status as EvalEnvelope['status'],
      data: inner.data,
      receipts: Array.isArray(inner.receipts) ? (inner.receipts as EvalEnvelope['receipts']) : [],
      problems: Array.isArray(inner.problems) ? (inner.problems as EvalEnvelope['problems']) : [],
      requestId: typeof requestId === 'string' ? requestId : '',
    };
  } catch {
    return unreadable(status, 'the answer is not JSON');
  }
}

/** Sends the scenario's request and times the answer. */
async function send(target: EvalTarget, scenario: Scenario): Promise<{ status: number; contentType: string; body: string; timing: EvalTiming }> {
  const started = performance.now();
  const response = await fetch(`${target.url}${EVAL_ENDPOINTS[scenario.endpoint].path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${target.token}`,
      'X-Service-Runtime-Version': '1',
      'Content-Type': 'application/json',
      'Idempotency-Key': randomUUID(),
      Accept: scenario.stream ? 'application/x-ndjson' : 'application/json',
    },
    body: JSON.stringify(scenario.request),
    signal: AbortSignal.timeout(SCENARIO_TIMEOUT_MS),
  });
  let firstByte: number | undefined;
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      firstByte ??= performance.now();
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) throw new Error(`the answer of ${scenario.id} is larger than ${MAX_BODY_BYTES} bytes`);
      chunks.push(chunk);
    }
  }
  const ended = performance.now();
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: Buffer.concat(chunks).toString('utf8'),
    timing: { firstByteMs: (firstByte ?? ended) - started, totalMs: ended - started },
  };
}

/** Runs one scenario against the target; with `fake`, scripts its canned answers first (offline). */
export async function runScenario(target: EvalTarget, scenario: Scenario, fake?: ModelFake): Promise<ScenarioRun> {
  const before = fake?.requests.length ?? 0;
  if (fake) {
    // A queue of this scenario's own, not the fake's script: answers a refused request never used must not leak
    // into the next scenario. A model call past the canned answers fails loudly.
    const queue = behavioursOf(scenario);
    fake.respond(() => queue.shift() ?? { kind: 'fail', status: 500, message: 'The scenario has no canned answer left.' });
  }
  const answer = await send(target, scenario);
  const envelope = envelopeOf(answer.status, answer.body, answer.contentType.startsWith('application/x-ndjson'));
  const checks = runChecks(scenario, scenario.request, envelope, {
    httpStatus: answer.status,
    timing: answer.timing,
    prices: target.prices,
    ...(fake ? { scriptedUsage: scriptedUsageOf(scenario) } : {}),
    ...(target.expectedModel ? { expectedModel: target.expectedModel } : {}),
  });
  const receipt = envelope.receipts.find((r) => r.kind === 'service.product-intelligence-usage');
  return {
    id: scenario.id,
    workflow: scenario.workflow,
    title: scenario.title,
    endpoint: scenario.endpoint,
    httpStatus: answer.status,
    contentType: answer.contentType,
    envelopeStatus: envelope.kind === 'unreadable' ? 'unreadable' : envelope.status,
    timing: answer.timing,
    checks,
    passed: checks.every((check) => check.status !== 'fail'),
    costMicrodollars: typeof receipt?.costMicrodollars === 'number' ? receipt.costMicrodollars : undefined,
    usage: receipt?.usage as ScenarioRun['usage'],
    ...(fake ? { modelRequests: fake.requests.length - before } : {}),
  };
}
