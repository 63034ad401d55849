// The streamed generation of the hosted adapter on the wire (a scripted server stands in for the gateway; the
// repository's test/runtime-sdk-hosted.test.ts runs it against the real one): NDJSON asked for with a key, events
// handed out as their lines arrive, a refusal before the stream as one `done` event, a 503 before the stream retried
// with the same key, an abort or an early stop closing the connection, and streams that break their contract.
import type { ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RuntimeTransportError, createHostedRuntime, createLocalRuntime, type GenerationStreamEvent, type HostedRuntimeOptions } from '../src/index.js';
import { json, startScriptedServer, type Reply, type ScriptedServer, type Seen } from './scripted-server.js';

let server: ScriptedServer;
beforeEach(async () => {
  server = await startScriptedServer();
});
afterEach(() => server.close());

function runtime(options: Partial<HostedRuntimeOptions> = {}) {
  return createHostedRuntime({ baseUrl: server.baseUrl, clientId: 'principal-1', credentials: { clientSecret: 'kgcs_secret' }, backoff: { baseDelayMs: 0 }, ...options });
}

const GENERATE = '/api/product/v1/intelligence/education/generate';
const KIND = 'service.education-generation';
const draft = { status: 'proposed', intent: 'weekly-plan', locale: 'en', format: 'markdown', text: 'Hello there', citations: { standards: [], sources: [] }, review: 'Review it.' };
const doneEnvelope = { version: 1, kind: KIND, status: 'ok', data: draft, receipts: [{ kind: 'service.product-intelligence-usage', replayed: false }], problems: [], requestId: 'req-1' };
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

/** A stream whose lines are written one at a time, each once the test calls `next()`; `end()` ends it. */
function heldStream() {
  let response: ServerResponse | undefined;
  let opened: () => void = () => {};
  const open = new Promise<void>((resolve) => {
    opened = resolve;
  });
  const reply: Reply = (_request, res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson', 'x-request-id': 'req-1' });
    res.flushHeaders();
    response = res;
    opened();
  };
  return {
    reply,
    open,
    write: (text: string) => response!.write(text),
    end: () => response!.end(),
  };
}

/** Waits until the server saw the client close the connection (no timing asserted: the test's timeout bounds it). */
async function closedByClient(request: Seen): Promise<void> {
  while (!request.aborted) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('streamEducationContent', () => {
  it('asks for NDJSON with a key, and hands out each event as its line arrives', async () => {
    const held = heldStream();
    server.replies.push(held.reply);
    const events = runtime().streamEducationContent({ intent: 'weekly-plan' }, { idempotencyKey: 'stream-key-1' })[Symbol.asyncIterator]();
    const first = events.next();
    await held.open;
    held.write(line({ type: 'ready', requestId: 'req-1', kind: KIND, replayed: false }));
    expect((await first).value).toEqual({ type: 'ready', requestId: 'req-1', kind: KIND, replayed: false });
    // A line split across writes is one event.
    held.write('{"type":"delta","te');
    const second = events.next();
    held.write('xt":"Hello "}\n');
    expect((await second).value).toEqual({ type: 'delta', text: 'Hello ' });
    held.write(line({ type: 'delta', text: 'there' }) + line({ type: 'done', envelope: doneEnvelope }));
    expect((await events.next()).value).toEqual({ type: 'delta', text: 'there' });
    expect((await events.next()).value).toEqual({ type: 'done', envelope: doneEnvelope });
    expect((await events.next()).done).toBe(true);
    held.end();

    const [request] = server.apiCalls();
    expect(request).toMatchObject({ method: 'POST', path: GENERATE });
    expect(request!.headers).toMatchObject({ accept: 'application/x-ndjson, application/json', 'idempotency-key': 'stream-key-1', 'x-service-runtime-version': '1' });
    expect(JSON.parse(request!.body)).toEqual({ intent: 'weekly-plan' });
  });

  it('answers a refusal before the stream as one done event, and retries a 503 before it with the same key', async () => {
    server.replies.push(json(429, { version: 1, kind: 'service.problem', status: 'error', data: null, receipts: [], problems: [{ code: 'intelligence_budget_exhausted', message: 'x' }], requestId: 'r' }));
    const refused: unknown[] = [];
    for await (const event of runtime().streamEducationContent({})) refused.push(event);
    expect(refused).toEqual([{ type: 'done', envelope: expect.objectContaining({ status: 'error', httpStatus: 429, problems: [expect.objectContaining({ code: 'intelligence_budget_exhausted' })] }) }]);
    expect(server.apiCalls()).toHaveLength(1);

    const held = heldStream();
    server.replies.push(json(503, { version: 1, kind: 'service.problem', status: 'error', data: null, receipts: [], problems: [{ code: 'model_unavailable', message: 'x' }], requestId: 'r' }), held.reply);
    const collected: GenerationStreamEvent<string, unknown>[] = [];
    const reading = (async () => {
      for await (const event of runtime().streamEducationContent({})) collected.push(event);
    })();
    await held.open;
    held.write(line({ type: 'ready', requestId: 'req-1' }) + line({ type: 'done', envelope: doneEnvelope }));
    held.end();
    await reading;
    expect(collected.map((e) => e.type)).toEqual(['ready', 'done']);
    const [, retried, again] = server.apiCalls();
    expect(retried!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(again!.headers['idempotency-key']).toBe(retried!.headers['idempotency-key']);
  });

  it('aborting the signal mid-stream closes the connection and throws aborted, naming the key', async () => {
    const held = heldStream();
    server.replies.push(held.reply);
    const controller = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of runtime().streamEducationContent({}, { signal: controller.signal, idempotencyKey: 'abort-key' })) {
        seen.push(event.type);
        if (event.type === 'delta') controller.abort();
      }
    })().catch((error: unknown) => error);
    await held.open;
    held.write(line({ type: 'ready', requestId: 'req-1' }) + line({ type: 'delta', text: 'Once upon' }));
    const failure = await reading;
    expect(failure).toBeInstanceOf(RuntimeTransportError);
    expect(failure).toMatchObject({ reason: 'aborted', idempotencyKey: 'abort-key', path: GENERATE });
    expect(seen).toEqual(['ready', 'delta']);
    await closedByClient(server.apiCalls()[0]!);
  });

  it('breaking out of the loop closes the connection', async () => {
    const held = heldStream();
    server.replies.push(held.reply);
    const reading = (async () => {
      for await (const event of runtime().streamEducationContent({})) if (event.type === 'ready') break;
    })();
    await held.open;
    held.write(line({ type: 'ready', requestId: 'req-1' }));
    await reading;
    await closedByClient(server.apiCalls()[0]!);
  });

  it('a stream without its done event, with a foreign line, or with a line over the bound is refused', async () => {
    const cases: Array<[string, string, number | undefined]> = [
      [line({ type: 'ready', requestId: 'r' }) + line({ type: 'delta', text: 'x' }), 'stream_interrupted', undefined],
      [line({ type: 'ready', requestId: 'r' }) + line({ type: 'chunk', text: 'x' }), 'stream_interrupted', undefined],
      [line({ type: 'done', envelope: { status: 'ok' } }), 'stream_interrupted', undefined],
      [line({ type: 'delta', text: 'x'.repeat(2048) }), 'response_too_large', 1024],
    ];
    for (const [body, reason, maxLineBytes] of cases) {
      server.replies.push((_request, res) => {
        res.writeHead(200, { 'content-type': 'application/x-ndjson' });
        res.end(body);
      });
      const failure = await (async () => {
        for await (const event of runtime().streamEducationContent({}, maxLineBytes ? { maxLineBytes } : {})) void event;
      })().catch((error: unknown) => error);
      expect(failure, body.slice(0, 80)).toMatchObject({ name: 'RuntimeTransportError', reason, idempotencyKey: expect.any(String) });
    }
  });

  it('the JSON variant and the local adapter', async () => {
    server.replies.push(json(200, doneEnvelope));
    expect(await runtime().generateEducationContent({ intent: 'activity' })).toEqual(doneEnvelope);
    expect(server.apiCalls()[0]!.headers).toMatchObject({ accept: 'application/json', 'idempotency-key': expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const local = createLocalRuntime({ root: '/nonexistent-kgate-root' });
    expect(await local.generateEducationContent({})).toMatchObject({ status: 'unavailable', problems: [{ details: { reason: 'hosted_only' } }] });
    const events: unknown[] = [];
    for await (const event of local.streamEducationContent({})) events.push(event);
    expect(events).toEqual([{ type: 'done', envelope: expect.objectContaining({ status: 'unavailable' }) }]);
  });
});
