/**
 * The fake model server's wire, as raw HTTP: what OpenAI's API sends (JSON completions with usage, SSE chunks with a
 * usage chunk and [DONE], error bodies, Retry-After, x-request-id), so that the client tested against it meets the
 * real service's shapes.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseModelConfig } from '../../../src/config-model.ts';
import { FAKE_IMAGE_BYTES, modelEnvOf, modelPortOf, startModelFake, type ModelFake } from './index.ts';

let fake: ModelFake;
beforeEach(async () => {
  fake = await startModelFake();
});
afterEach(async () => {
  await fake.close();
});

function post(path: string, body: unknown, key: string | null = fake.apiKey, signal?: AbortSignal): Promise<Response> {
  return fetch(`${fake.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }) },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
}

const chat = { model: 'fake-chat-1', messages: [{ role: 'user', content: 'one two three' }], max_tokens: 50 };

function dataLines(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

describe('the fake model server', () => {
  it('answers a chat completion as JSON with usage counted in words by default', async () => {
    fake.script({ kind: 'reply', text: 'four five' });
    const res = await post('/chat/completions', chat);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'fake-chat-1',
      choices: [{ index: 0, message: { role: 'assistant', content: 'four five' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/chat/completions', behavior: 'reply', aborted: false, stream: false, body: chat });
  });

  it('streams chunks, a usage chunk with empty choices when asked, then [DONE]', async () => {
    fake.script({ kind: 'reply', text: 'a streamed answer', usage: { inputTokens: 7, outputTokens: 3 }, chunks: 3 });
    const res = await post('/chat/completions', { ...chat, stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const lines = dataLines(await res.text());
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line) as { choices: Array<{ delta: { content?: string }; finish_reason: string | null }>; usage: unknown });
    const text = chunks.flatMap((c) => c.choices.map((choice) => choice.delta.content ?? '')).join('');
    expect(text).toBe('a streamed answer');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } });
  });

  it('sends no usage chunk when include_usage is not asked', async () => {
    const res = await post('/chat/completions', { ...chat, stream: true });
    const lines = dataLines(await res.text());
    expect(lines.some((line) => line.includes('"usage"'))).toBe(false);
  });

  it('refuses a wrong key with 401 and OpenAI error body, recording the request', async () => {
    const res = await post('/chat/completions', chat, 'sk-wrong-key-abcd');
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    expect(body.error.message).not.toContain('sk-wrong-key');
    expect(fake.requests[0]).toMatchObject({ authorized: false, behavior: 'unauthorized' });
  });

  it('fails on demand with Retry-After on 429', async () => {
    fake.script({ kind: 'fail', status: 429, retryAfterSeconds: 2 }, { kind: 'fail', status: 500 });
    const limited = await post('/chat/completions', chat);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
    const broken = await post('/chat/completions', chat);
    expect(broken.status).toBe(500);
    expect(((await broken.json()) as { error: { type: string } }).error.type).toBe('server_error');
  });

  it('holds a stalled stream open until the client aborts, and records the abort', async () => {
    fake.script({ kind: 'stall', afterChunks: 1 });
    const controller = new AbortController();
    const res = await post('/chat/completions', { ...chat, stream: true }, fake.apiKey, controller.signal);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('chat.completion.chunk');
    expect(fake.requests[0]?.finished).toBe(false);
    controller.abort();
    await reader.read().catch(() => undefined);
    await fake.idle();
    expect(fake.requests[0]).toMatchObject({ aborted: true, finished: true });
  });

  it('destroys the connection after N chunks on disconnect, which is not a client abort', async () => {
    fake.script({ kind: 'disconnect', afterChunks: 2 });
    const res = await post('/chat/completions', { ...chat, stream: true });
    await expect(res.text()).rejects.toThrow();
    await fake.idle();
    expect(fake.requests[0]).toMatchObject({ aborted: false, finished: true, behavior: 'disconnect' });
  });

  it('answers image generations with b64_json of the asked format, or the scripted bytes and usage', async () => {
    const res = await post('/images/generations', { model: 'fake-image-1', prompt: 'a cat', output_format: 'webp', response_format: 'b64_json' });
    const body = (await res.json()) as { data: Array<{ b64_json: string }>; usage?: unknown };
    expect(Buffer.from(body.data[0]!.b64_json, 'base64')).toEqual(Buffer.from(FAKE_IMAGE_BYTES.webp));
    expect(body.usage).toBeUndefined();
    fake.script({ kind: 'image', bytes: FAKE_IMAGE_BYTES.jpeg, usage: { inputTokens: 10, outputTokens: 100 } });
    const scripted = (await (await post('/images/generations', { prompt: 'x' })).json()) as { data: Array<{ b64_json: string }>; usage: unknown };
    expect(Buffer.from(scripted.data[0]!.b64_json, 'base64')).toEqual(Buffer.from(FAKE_IMAGE_BYTES.jpeg));
    expect(scripted.usage).toMatchObject({ input_tokens: 10, output_tokens: 100 });
  });

  it('answers 404 with an error body on an unknown path, and a handler decides when nothing is scripted', async () => {
    expect((await post('/embeddings', {})).status).toBe(404);
    fake.respond((request) => ({ kind: 'reply', text: `you sent ${String((request.body?.messages as unknown[]).length)}` }));
    const body = (await (await post('/chat/completions', chat)).json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe('you sent 1');
  });

  it('gives a model port built from those settings, as the gateway builds it', async () => {
    fake.script({ kind: 'reply', text: 'from the port', usage: { inputTokens: 2, outputTokens: 3 } });
    const port = modelPortOf(fake);
    expect(await port.chat({ messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 10 })).toMatchObject({ text: 'from the port', usage: { inputTokens: 2, outputTokens: 3 } });
    expect(port.prices).toEqual({ inputMicrodollarsPerToken: 1, outputMicrodollarsPerToken: 2, imageMicrodollars: 40_000 });
  });

  it('names its settings for a gateway', () => {
    expect(modelEnvOf(fake)).toMatchObject({ KGATE_MODEL_BASE_URL: fake.baseUrl, KGATE_MODEL_API_KEY: fake.apiKey, KGATE_MODEL_ALLOW_PRIVATE: '1' });
    expect(parseModelConfig(modelEnvOf(fake))).toMatchObject({ baseUrl: fake.baseUrl, apiKey: fake.apiKey, chatModel: 'fake-chat-1', imageModel: 'fake-image-1', allowPrivateAddresses: true });
  });
});
