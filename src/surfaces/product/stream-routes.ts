/**
 * The NDJSON wire of a generating route (ProductBinding.stream `ndjson`; spec 6.3; docs/education.md, "Streaming").
 * With `Accept: application/x-ndjson` the call runs with a GenerationSink: every refusal before the operation calls
 * `ready` (authentication, scope, the operation allowance, validation, the budget, a replayed failure) is still a
 * plain V1 envelope with its HTTP status; once `ready` is called the answer is `200 application/x-ndjson`, one JSON
 * object a line:
 *
 *   {"type":"ready","requestId":"...",...facts}   once, when the call is admitted and reserved
 *   {"type":"delta","text":"..."}                   each piece of the draft, in order
 *   {"type":"done","envelope":{...V1 envelope}}     once, last: the whole outcome (ok with data, or error), with receipts
 *
 * Without the Accept header the route answers JSON exactly as every other product route (handler.ts).
 * A client that goes away (its connection closes, or the body stream is cancelled) aborts the model request; a slow
 * reader slows the model's stream (a bounded queue: the operation waits for room) instead of kgate buffering it.
 */
import type { Context, Handler } from 'hono';
import { RUNTIME_VERSION } from '../../domains/runtime/index.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Invocation } from '../invocation/pipeline.ts';
import type { GenerationSink, RuntimeCallContext } from '../operations/operation.ts';
import { PROBLEM_KIND, RUNTIME_VERSION_HEADER, type EnvelopeV1 } from './envelope.ts';
import {
  invokeProductCall,
  outcomeReceipts,
  prepareProductCall,
  sendOutcome,
  type ProductHandlerDependencies,
} from './handler.ts';
import type { ProductRoute } from './routes.ts';

/** The media type of the stream. */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';

/** How many events may wait for a slow client before the producer waits too. */
export const STREAM_QUEUE_EVENTS = 32;

/** One event of the stream (see the module comment). */
export type StreamEvent =
  | { type: 'ready'; requestId: string; [fact: string]: unknown }
  | { type: 'delta'; text: string }
  | { type: 'done'; envelope: EnvelopeV1 };

/** True when the caller asks for the NDJSON stream (a media range of the Accept header names it). */
export function wantsNdjson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.split(',').some((range) => {
    const [type, ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    // `q=0` means "not this one" (RFC 9110 12.4.2).
    return type === NDJSON_MEDIA_TYPE && !params.some((param) => /^q=0(?:\.0{0,3})?$/.test(param));
  });
}

/**
 * A bounded queue of NDJSON lines as a web stream (exported for its test): `write` enqueues one event and, when the queue is full, resolves
 * only once the client has read enough (or has gone away, when writing no longer matters).
 */
export class NdjsonChannel {
  readonly body: ReadableStream<Uint8Array>;
  readonly cancelled = new AbortController();
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private waiting: Array<() => void> = [];
  private closed = false;
  private readonly encoder = new TextEncoder();

  constructor() {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => this.wake(),
        cancel: () => {
          this.closed = true;
          this.cancelled.abort(new Error('the client cancelled the stream'));
          this.wake();
        },
      },
      new CountQueuingStrategy({ highWaterMark: STREAM_QUEUE_EVENTS }),
    );
  }

  /** Enqueues one event; the promise waits while the queue is full. */
  write(event: StreamEvent): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.controller.enqueue(this.encoder.encode(`${JSON.stringify(event)}\n`));
    if ((this.controller.desiredSize ?? 1) > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Ends the stream after what is queued. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.controller.close();
    this.wake();
  }

  /** Lets every waiting writer go on (the client read, or went away). */
  wake(): void {
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }
}

/** The `done` event's envelope of an outcome, as sendOutcome would have answered it. */
function doneEnvelope(c: Context<HttpEnv>, route: ProductRoute, invocation: Invocation, call: RuntimeCallContext): EnvelopeV1 {
  const receipts = outcomeReceipts(c, invocation, call);
  const requestId = c.get('requestId') ?? '';
  if (invocation.ok) return { version: RUNTIME_VERSION, kind: route.binding.kind, status: 'ok', data: invocation.output, receipts, problems: [], requestId };
  const { error } = invocation;
  const problem = { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) };
  const unavailable = error.code === 'unavailable';
  return {
    version: RUNTIME_VERSION,
    kind: unavailable ? route.binding.kind : PROBLEM_KIND,
    status: unavailable ? 'unavailable' : 'error',
    data: null,
    receipts,
    problems: [problem],
    requestId,
  };
}

/** The envelope of a failure kgate did not expect, once the stream has started (the details are in the log). */
function internalEnvelope(c: Context<HttpEnv>): EnvelopeV1 {
  return {
    version: RUNTIME_VERSION,
    kind: PROBLEM_KIND,
    status: 'error',
    data: null,
    receipts: [],
    problems: [{ code: 'internal', message: 'An unexpected error occurred; the request id identifies it in the logs.' }],
    requestId: c.get('requestId') ?? '',
  };
}

/**
 * The handler of a route with `stream: 'ndjson'`: the NDJSON wire when asked for (see the module comment), else the
 * generic JSON handler's steps (handler.ts). Registered in place of productHandler for such routes.
 */
export function productStreamHandler(route: ProductRoute, deps: ProductHandlerDependencies): Handler<HttpEnv> {
  return async (c) => {
    const prepared = await prepareProductCall(c, route, deps);
    // Without the Accept header: the generic handler's steps, answered as JSON.
    if (!wantsNdjson(c.req.header('accept'))) return sendOutcome(c, route, await invokeProductCall(c, route, deps, prepared), prepared.call);
    const channel = new NdjsonChannel();
    const { call } = prepared;
    // The model request stops when the connection closes early or the body stream is cancelled, whichever is first.
    call.signal = call.signal ? AbortSignal.any([call.signal, channel.cancelled.signal]) : channel.cancelled.signal;
    let replayed = false;
    let markReady: () => void = () => {};
    const ready = new Promise<'ready'>((resolve) => {
      markReady = () => resolve('ready');
    });
    let started = false;
    const sink: GenerationSink = {
      ready(facts) {
        if (started) return;
        started = true;
        replayed = facts.replayed === true;
        void channel.write({ ...facts, type: 'ready', requestId: c.get('requestId') ?? '' });
        markReady();
      },
      // The channel's promise: the operation awaits it, for backpressure.
      delta(text) {
        if (!started || text === '') return;
        return channel.write({ type: 'delta', text });
      },
    };
    call.stream = sink;
    const invocation = invokeProductCall(c, route, deps, prepared);
    const first = await Promise.race([ready, invocation]);
    // Refused or answered before the stream started: the plain envelope, with its HTTP status.
    if (first !== 'ready') return sendOutcome(c, route, first, call);
    invocation.then(
      (outcome) => {
        void channel.write({ type: 'done', envelope: doneEnvelope(c, route, outcome, call) });
        channel.close();
      },
      (error: unknown) => {
        const err = error instanceof Error ? error : new Error(String(error));
        // Logged without the request: it may hold tokens or note content.
        c.get('log')?.().error({ err: { name: err.name, message: err.message, stack: err.stack } }, 'unhandled error in a stream');
        void channel.write({ type: 'done', envelope: internalEnvelope(c) });
        channel.close();
      },
    );
    const headers: Record<string, string> = {
      'Content-Type': NDJSON_MEDIA_TYPE,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      [RUNTIME_VERSION_HEADER]: String(RUNTIME_VERSION),
    };
    if (replayed) headers['Idempotent-Replayed'] = 'true';
    return c.body(channel.body, 200, headers);
  };
}
