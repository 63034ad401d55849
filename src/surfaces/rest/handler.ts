import type { Context, Handler } from 'hono';
import type { Reservation } from '../../domains/usage/index.ts';
import type { HttpEnv } from '../http/context.ts';
import type { Pipeline } from '../invocation/pipeline.ts';
import { REST_SURFACE } from '../invocation/surface.ts';
import { bindInput, ifNoneMatchHits, prefersMarkdown } from './bind.ts';
import type { RestRoute } from './routes.ts';

function setUsageHeaders(c: Context<HttpEnv>, reservation: Reservation): void {
  // draft-ietf-httpapi-ratelimit-headers (the widely deployed three-field form) for the minute window, plus the month.
  c.header('RateLimit-Limit', String(reservation.minute.limit));
  c.header('RateLimit-Remaining', String(reservation.minute.remaining));
  c.header('RateLimit-Reset', String(reservation.minute.resetSeconds));
  c.header('X-Monthly-Limit', String(reservation.month.limit));
  c.header('X-Monthly-Remaining', String(reservation.month.remaining));
}

/**
 * The handler of one REST route: the HTTP wire around the invocation pipeline. It authenticates the request for the
 * REST surface, hands the pipeline a reader of the route's input (query, body, headers; read only once the call is
 * admitted) and the Idempotency-Key header, and renders the outcome: allowance headers, Idempotent-Replayed, JSON or
 * a note representation; errors are thrown with their codes for the app's one problem-document mapping.
 */
export function restHandler(route: RestRoute, pipeline: Pipeline): Handler<HttpEnv> {
  return async (c) => {
    const principal = await pipeline.authenticate(REST_SURFACE, c.req.header('authorization'));
    c.set('principal', principal);
    const invocation = await pipeline.invoke({
      surface: REST_SURFACE,
      principal,
      operation: route.operation,
      readInput: () => bindInput(c, route),
      idempotencyKey: { value: c.req.header('idempotency-key'), required: false },
    });
    if (invocation.reservation) setUsageHeaders(c, invocation.reservation);
    if (invocation.replayed) c.header('Idempotent-Replayed', 'true');
    if (!invocation.ok) throw invocation.error;
    if (route.binding.representation === 'note') return renderNote(c, invocation.output as { revision: string; content: string });
    return json(c, invocation.output);
  };
}

// The JSON of frozen outputs (presented once, shared by the calls that hit a cache), serialized once.
const frozenJson = new WeakMap<object, string>();

/** Answers `value` as JSON, exactly as `c.json` does, serializing a frozen value only the first time. */
function json(c: Context<HttpEnv>, value: Record<string, unknown>): Response {
  if (!Object.isFrozen(value)) return c.json(value, 200);
  let text = frozenJson.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    frozenJson.set(value, text);
  }
  return c.body(text, 200, { 'Content-Type': 'application/json' });
}

function renderNote(c: Context<HttpEnv>, note: { revision: string; content: string }): Response {
  const etag = `"${note.revision}"`;
  c.header('ETag', etag);
  c.header('Vary', 'Accept');
  if (ifNoneMatchHits(c.req.header('if-none-match'), note.revision)) return c.body(null, 304);
  if (prefersMarkdown(c.req.header('accept'))) {
    return c.body(note.content, 200, { 'Content-Type': 'text/markdown; charset=utf-8' });
  }
  return json(c, note);
}
