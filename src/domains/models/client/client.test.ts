/**
 * The OpenAI-compatible client against the fake model server, over real HTTP: answers, streams, each failure class
 * with what it says about acceptance, retries only while certainly not accepted, bounds, the address guard, and the
 * key kept out of everything it returns.
 */
import type { LookupAddress } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../../net/guarded-fetch.ts';
import { FAKE_IMAGE_BYTES, startModelFake, type ModelFake } from '../../../../test/fakes/model/server.ts';
import { KgateError } from '../../../kernel/errors.ts';
import { ModelError, type ChatStreamEvent, type ModelPort } from '../contract.ts';
import { createOpenAiCompatibleModel } from './model.ts';
import type { ModelClientSettings } from './settings.ts';

let fake: ModelFake;
beforeEach(async () => {
  fake = await startModelFake();
});
afterEach(async () => {
  await fake.close();
});

function settingsOf(overrides: Partial<ModelClientSettings> = {}): ModelClientSettings {
  return {
    baseUrl: fake.baseUrl,
    apiKey: fake.apiKey,
    chatModel: fake.chatModel,
    imageModel: fake.imageModel,
    prices: { inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 40_000 },
    timeoutMs: 2_000,
    connectTimeoutMs: 1_000,
    allowPrivateAddresses: true,
    isPublicAddress,
    limits: { backoffBaseMs: 5 },
    ...overrides,
  };
}

function modelOf(overrides: Partial<ModelClientSettings> = {}): ModelPort {
  return createOpenAiCompatibleModel(settingsOf(overrides));
}

const ASK = { messages: [{ role: 'system' as const, content: 'Be brief.' }, { role: 'user' as const, content: 'Say hello' }], maxOutputTokens: 50 };

async function failureOf(run: () => Promise<unknown>): Promise<ModelError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('the OpenAI-compatible model client', () => {
  it('answers a chat completion with the usage the API reports, asking for JSON when told', async () => {
    fake.script({ kind: 'reply', text: '{"greeting":"hello"}', usage: { inputTokens: 12, outputTokens: 4 } });
    const model = modelOf();
    const completion = await model.chat({ ...ASK, json: true, temperature: 0.2 });
    expect(completion).toEqual({ text: '{"greeting":"hello"}', usage: { inputTokens: 12, outputTokens: 4 }, model: 'fake-chat-1', finishReason: 'stop', providerRequestId: fake.requests[0]!.requestId });
    expect(fake.requests[0]!.body).toEqual({ model: 'fake-chat-1', messages: ASK.messages, max_tokens: 50, temperature: 0.2, response_format: { type: 'json_object' } });
    // Configured for a reasoning model, the same bound goes as max_completion_tokens (streams too), never both.
    fake.script({ kind: 'reply', text: 'hi' }, { kind: 'reply', text: 'hi' });
    const reasoning = modelOf({ outputLimitField: 'max_completion_tokens' });
    await reasoning.chat(ASK);
    await collect(reasoning.chatStream(ASK));
    for (const sent of fake.requests.slice(1, 3)) {
      expect(sent.body).toMatchObject({ max_completion_tokens: 50 });
      expect(sent.body).not.toHaveProperty('max_tokens');
    }
    expect(model.identity).toEqual({ provider: `openai-compatible (${new URL(fake.baseUrl).host})`, chatModel: 'fake-chat-1', imageModel: 'fake-image-1' });
    expect(model.prices).toEqual({ inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 40_000 });
  });

  it('streams deltas and ends with the completion and the usage of the last chunk; nothing is sent before the first next()', async () => {
    fake.script({ kind: 'reply', text: 'one two three four', usage: { inputTokens: 9, outputTokens: 4 }, chunks: 4 });
    const stream = modelOf().chatStream(ASK);
    expect(fake.requests).toHaveLength(0);
    const events = await collect(stream);
    const deltas = events.filter((event) => event.kind === 'delta');
    expect(deltas.length).toBe(4);
    expect(deltas.map((event) => event.text).join('')).toBe('one two three four');
    expect(events.at(-1)).toEqual({ kind: 'done', completion: { text: 'one two three four', usage: { inputTokens: 9, outputTokens: 4 }, model: 'fake-chat-1', finishReason: 'stop', providerRequestId: fake.requests[0]!.requestId } });
    expect(fake.requests[0]!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('retries a 429 (honouring Retry-After) and a 503, then succeeds', async () => {
    fake.script({ kind: 'fail', status: 429, retryAfterSeconds: 0 }, { kind: 'fail', status: 503 }, { kind: 'reply', text: 'at last' });
    const completion = await modelOf().chat(ASK);
    expect(completion.text).toBe('at last');
    expect(fake.requests.map((request) => request.behavior)).toEqual(['fail', 'fail', 'reply']);
  });

  it('gives up after two retries, and does not retry a Retry-After beyond its bound', async () => {
    fake.respond(() => ({ kind: 'fail', status: 503 }));
    const exhausted = await failureOf(() => modelOf().chat(ASK));
    expect([exhausted.code, exhausted.accepted, exhausted.details?.status]).toEqual(['model_unavailable', 'no', 503]);
    expect(fake.requests).toHaveLength(3);
    fake.requests.length = 0;
    fake.script({ kind: 'fail', status: 429, retryAfterSeconds: 3600 });
    const later = await failureOf(() => modelOf().chat(ASK));
    expect([later.code, later.accepted]).toEqual(['model_unavailable', 'no']);
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry other error answers: model_unavailable, not accepted, one request each', async () => {
    for (const status of [400, 404, 500]) {
      fake.requests.length = 0;
      fake.script({ kind: 'fail', status, message: `broken ${status}` });
      const error = await failureOf(() => modelOf().chat(ASK));
      expect([error.code, error.accepted]).toEqual(['model_unavailable', 'no']);
      expect(error.message).toContain(`HTTP ${status}`);
      expect(fake.requests).toHaveLength(1);
    }
  });

  it("takes a proxy's 502 and 504 for ambiguous (billable), and does not retry them", async () => {
    for (const [status, code] of [[502, 'model_interrupted'], [504, 'model_timeout']] as const) {
      fake.requests.length = 0;
      fake.script({ kind: 'fail', status, message: `gateway ${status}` });
      const error = await failureOf(() => modelOf().chat(ASK));
      expect([error.code, error.accepted]).toEqual([code, 'unknown']);
      expect(fake.requests).toHaveLength(1);
    }
  });

  it('a wrong key is model_unavailable, and the key appears in no message, detail or identity', async () => {
    const wrong = 'sk-wrong-but-secret-0123456789abcdef';
    const model = modelOf({ apiKey: wrong });
    const refused = await failureOf(() => model.chat(ASK));
    expect([refused.code, refused.accepted, refused.details?.status]).toEqual(['model_unavailable', 'no', 401]);
    expect(fake.requests).toHaveLength(1);
    // A provider that echoes the key in its error message: it is cut out.
    fake.script({ kind: 'fail', status: 400, message: `Bad request for key ${fake.apiKey} and sk-other-secret-key-9876` });
    const echoed = await failureOf(() => modelOf().chat(ASK));
    for (const error of [refused, echoed]) {
      const everything = `${error.message} ${JSON.stringify(error.details)} ${JSON.stringify(model.identity)}`;
      expect(everything).not.toContain(wrong);
      expect(everything).not.toContain(fake.apiKey);
      expect(everything).not.toContain('sk-other-secret-key');
    }
  });

  it('a refused connection is model_unavailable, not accepted', async () => {
    const port = new URL(fake.baseUrl).port;
    await fake.close();
    fake = await startModelFake();
    const error = await failureOf(() => modelOf({ baseUrl: `http://127.0.0.1:${port}/v1` }).chat(ASK));
    expect([error.code, error.accepted]).toEqual(['model_unavailable', 'no']);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('a stalled model is model_timeout (acceptance unknown) within the configured time, not retried, and aborted upstream', async () => {
    fake.script({ kind: 'stall' });
    const error = await failureOf(() => modelOf({ timeoutMs: 300 }).chat(ASK));
    expect([error.code, error.accepted]).toEqual(['model_timeout', 'unknown']);
    await fake.idle();
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.aborted).toBe(true);
    fake.script({ kind: 'stall', afterChunks: 2 });
    const stream = await failureOf(() => collect(modelOf({ timeoutMs: 300 }).chatStream(ASK)));
    expect([stream.code, stream.accepted]).toEqual(['model_timeout', 'unknown']);
  });

  it('a connection lost mid-stream is model_interrupted, accepted, after the deltas already given', async () => {
    fake.script({ kind: 'disconnect', afterChunks: 3 });
    const events: ChatStreamEvent[] = [];
    const error = await failureOf(async () => {
      for await (const event of modelOf().chatStream(ASK)) events.push(event);
    });
    expect([error.code, error.accepted]).toEqual(['model_interrupted', 'yes']);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.kind === 'delta')).toBe(true);
    fake.script({ kind: 'disconnect', afterChunks: 1 });
    const json = await failureOf(() => modelOf().chat(ASK));
    expect([json.code, json.accepted]).toEqual(['model_interrupted', 'yes']);
    expect(fake.requests).toHaveLength(2);
  });

  it('a consumer that stops reading aborts the upstream request', async () => {
    fake.script({ kind: 'reply', text: 'a long answer in many small pieces', chunks: 8, chunkDelayMs: 50 });
    for await (const event of modelOf().chatStream(ASK)) {
      expect(event.kind).toBe('delta');
      break;
    }
    await fake.idle();
    expect(fake.requests[0]).toMatchObject({ aborted: true, finished: true });
  });

  it("the caller's signal after sending is model_interrupted, accepted; before sending, not accepted", async () => {
    // The first chunk only names the role; the second carries text.
    fake.script({ kind: 'stall', afterChunks: 2 });
    const controller = new AbortController();
    const error = await failureOf(async () => {
      for await (const event of modelOf().chatStream({ ...ASK, signal: controller.signal })) {
        expect(event.kind).toBe('delta');
        controller.abort();
      }
    });
    expect([error.code, error.accepted]).toEqual(['model_interrupted', 'yes']);
    await fake.idle();
    expect(fake.requests[0]!.aborted).toBe(true);
    const early = await failureOf(() => modelOf().chat({ ...ASK, signal: AbortSignal.abort() }));
    expect([early.code, early.accepted]).toEqual(['model_interrupted', 'no']);
    expect(fake.requests).toHaveLength(1);
  });

  it('a 200 answer that is not what the API promises is model_output_invalid, accepted, with the usage when reported', async () => {
    const cases: Array<[() => void, string, boolean]> = [
      [() => fake.script({ kind: 'raw', body: 'not json at all' }), 'not JSON', false],
      [() => fake.script({ kind: 'raw', body: JSON.stringify({ model: 'm', choices: [{ message: { content: 'x' }, finish_reason: 'stop' }] }) }), 'no token usage', false],
      [() => fake.script({ kind: 'raw', body: JSON.stringify({ model: 'm', choices: [], usage: { prompt_tokens: 3, completion_tokens: 1 } }) }), 'not a chat completion', true],
    ];
    for (const [arrange, reason, withUsage] of cases) {
      arrange();
      const error = await failureOf(() => modelOf().chat(ASK));
      expect([error.code, error.accepted]).toEqual(['model_output_invalid', 'yes']);
      expect(error.message).toContain(reason);
      expect(error.usage).toEqual(withUsage ? { inputTokens: 3, outputTokens: 1 } : undefined);
    }
    fake.script({ kind: 'raw', body: '{"choices":[]}', contentType: 'application/json' });
    const notStream = await failureOf(() => collect(modelOf().chatStream(ASK)));
    expect([notStream.code, notStream.accepted]).toEqual(['model_output_invalid', 'yes']);
    expect(fake.requests).toHaveLength(4);
  });

  it('refuses an answer longer than its bound, as JSON or as a stream', async () => {
    const long = 'word '.repeat(2_000);
    fake.script({ kind: 'reply', text: long });
    const json = await failureOf(() => modelOf({ limits: { maxJsonBytes: 1_000 } }).chat(ASK));
    expect([json.code, json.accepted]).toEqual(['model_output_invalid', 'yes']);
    fake.script({ kind: 'reply', text: long, chunks: 1 });
    const line = await failureOf(() => collect(modelOf({ limits: { maxStreamLineBytes: 1_000 } }).chatStream(ASK)));
    expect([line.code, line.accepted]).toEqual(['model_output_invalid', 'yes']);
    fake.script({ kind: 'reply', text: long, chunks: 40 });
    const total = await failureOf(() => collect(modelOf({ limits: { maxStreamBytes: 2_000 } }).chatStream(ASK)));
    expect([total.code, total.accepted]).toEqual(['model_output_invalid', 'yes']);
  });

  it('generates an image of the format asked for, checked by its signature', async () => {
    const image = await modelOf().image({ prompt: 'a diagram of the water cycle', size: '1024x1024', format: 'webp' });
    expect(image).toEqual({ bytes: FAKE_IMAGE_BYTES.webp, format: 'webp', model: 'fake-image-1', providerRequestId: fake.requests[0]!.requestId });
    expect(fake.requests[0]!.body).toEqual({ model: 'fake-image-1', prompt: 'a diagram of the water cycle', n: 1, size: '1024x1024', output_format: 'webp', response_format: 'b64_json' });
  });

  it('refuses an image of the wrong type or no image at all; without an image model the call is unavailable', async () => {
    const cases: Array<[Uint8Array, string]> = [
      [FAKE_IMAGE_BYTES.jpeg, 'the image is jpeg, not the png asked for'],
      [new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'), 'not PNG, JPEG or WebP'],
    ];
    for (const [bytes, reason] of cases) {
      fake.script({ kind: 'image', bytes });
      const error = await failureOf(() => modelOf().image({ prompt: 'x', size: '1024x1024', format: 'png' }));
      expect([error.code, error.accepted]).toEqual(['model_output_invalid', 'yes']);
      expect(error.message).toContain(reason);
    }
    fake.script({ kind: 'raw', body: JSON.stringify({ data: [{ url: 'https://example.com/x.png' }] }) });
    expect((await failureOf(() => modelOf().image({ prompt: 'x', size: '1024x1024', format: 'png' }))).code).toBe('model_output_invalid');
    expect(fake.requests).toHaveLength(3);
    const unavailable = await modelOf({ imageModel: null })
      .image({ prompt: 'x', size: '1024x1024', format: 'png' })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(unavailable).toBeInstanceOf(KgateError);
    expect((unavailable as KgateError).code).toBe('unavailable');
    expect(fake.requests).toHaveLength(3);
  });

  it('refuses a private or loopback address unless allowed, before any request', async () => {
    const port = new URL(fake.baseUrl).port;
    const literal = await failureOf(() => modelOf({ allowPrivateAddresses: false }).chat(ASK));
    expect([literal.code, literal.accepted]).toEqual(['model_unavailable', 'no']);
    // A public-looking name that resolves to a loopback address.
    const lookup = ((_host: string, _options: unknown, callback: (error: Error | null, addresses: LookupAddress[]) => void) => callback(null, [{ address: '127.0.0.1', family: 4 }])) as unknown as NonNullable<ModelClientSettings['lookup']>;
    const named = await failureOf(() => modelOf({ allowPrivateAddresses: false, baseUrl: `http://models.example.com:${port}/v1`, lookup }).chat(ASK));
    expect([named.code, named.accepted]).toEqual(['model_unavailable', 'no']);
    expect(named.message).toContain('non-public');
    expect(fake.requests).toHaveLength(0);
    const allowed = await modelOf({ allowPrivateAddresses: true, baseUrl: `http://models.example.com:${port}/v1`, lookup }).chat(ASK);
    expect(allowed.text.length).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
  });
});
