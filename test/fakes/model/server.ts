/**
 * A local fake of an OpenAI-compatible model server on 127.0.0.1 (port 0), for the model client's tests, the
 * gateway's education tests and the demo. It speaks the part of the OpenAI API kgate uses, as the real service
 * does: `POST /v1/chat/completions` (a JSON answer with `usage`, or with `stream: true` Server-Sent Events of
 * `chat.completion.chunk`s, a last chunk with empty `choices` and `usage` when `stream_options.include_usage`, then
 * `data: [DONE]`), `POST /v1/images/generations` (`b64_json`), Bearer keys (401 on a wrong one), OpenAI's error
 * bodies `{ error: { message, type, param, code } }`, `Retry-After` on 429 and an `x-request-id` on every answer.
 * Each request's behaviour can be scripted: reply, fail, stall, disconnect, image. Every request is recorded, with
 * whether the client went away before the answer ended. Plain node:http, no test framework: the demo starts it too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Tokens as a behaviour states them (the fake writes them in the API's own names). */
export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** What the fake does with one chat or image request. */
export type FakeBehavior =
  /** A complete answer; streamed in `chunks` pieces (default: one per word, at most 8) `chunkDelayMs` apart. */
  | { kind: 'reply'; text: string; usage?: FakeUsage; chunks?: number; chunkDelayMs?: number; finishReason?: string }
  /** An error answer with OpenAI's error body, before any output. */
  | { kind: 'fail'; status: number; message?: string; retryAfterSeconds?: number }
  /**
   * Accepted, then nothing until the client aborts or the fake closes. Without `afterChunks` not even the headers
   * are sent; with it, the headers and (when streaming) that many chunks.
   */
  | { kind: 'stall'; afterChunks?: number }
  /** The headers and `afterChunks` chunks (a JSON answer: half its body when afterChunks > 0), then the socket destroyed. */
  | { kind: 'disconnect'; afterChunks: number }
  /** The images endpoint's answer: these bytes as `b64_json` (with `usage` when given). */
  | { kind: 'image'; bytes: Uint8Array; usage?: FakeUsage }
  /** A 200 answer with exactly this body (not what the API promises: for the client's output checks). */
  | { kind: 'raw'; body: string; contentType?: string };

/** One request as the fake received it. */
export interface FakeRequest {
  method: string;
  /** The path, e.g. `/v1/chat/completions`. */
  path: string;
  /** The parsed JSON body, or null when it was not JSON. */
  body: Record<string, unknown> | null;
  /** Whether the request asked for a stream (`stream: true`). */
  stream: boolean;
  /** Whether the Bearer key was the fake's. */
  authorized: boolean;
  /** The behaviour it got (`unauthorized` and `invalid` for refusals before any behaviour). */
  behavior: FakeBehavior['kind'] | 'unauthorized' | 'invalid' | 'not_found';
  /** The answer's status, once the headers were sent. */
  status: number | undefined;
  /** The `x-request-id` the fake answered with. */
  requestId: string;
  /** True when the client closed the connection before the answer ended (not when the fake destroyed it). */
  aborted: boolean;
  /** True once the exchange is over (answered, aborted or destroyed). */
  finished: boolean;
}

/** A started fake model server. */
export interface ModelFake {
  /** The base URL to configure, ending in `/v1`. */
  baseUrl: string;
  apiKey: string;
  chatModel: string;
  imageModel: string;
  /** Every request received, in order. */
  requests: FakeRequest[];
  /** Decides the behaviour of each chat/image request after the script is used up; default: a fixed reply. */
  respond(handler: (request: FakeRequest) => FakeBehavior): void;
  /** Queues behaviours for the next chat/image requests, before the handler. */
  script(...behaviours: FakeBehavior[]): void;
  /** Resolves once no request is open any more (an abort the client made has been seen by the fake). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** The reply of a request nothing was scripted for. */
export const FAKE_DEFAULT_REPLY = 'This is the fake model answering.';
const MAX_BODY = 1024 * 1024;

/** Smallest byte strings with each format's signature: what the default image answer returns. */
export const FAKE_IMAGE_BYTES = {
  png: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]),
  jpeg: Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46, 0x49, 0x46, 0, 1]),
  webp: Uint8Array.from([0x52, 0x49, 0x46, 0x46, 0x04, 0, 0, 0, 0x57, 0x45, 0x42, 0x50, 0x56, 0x50, 0x38, 0x20]),
} as const;

/** The KGATE_MODEL_* settings that point a gateway at this fake (prices: 1 and 2 microdollars a token, 40,000 an image). */
export function modelEnvOf(fake: Pick<ModelFake, 'baseUrl' | 'apiKey' | 'chatModel' | 'imageModel'>, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    KGATE_MODEL_BASE_URL: fake.baseUrl,
    KGATE_MODEL_API_KEY: fake.apiKey,
    KGATE_MODEL_CHAT: fake.chatModel,
    KGATE_MODEL_IMAGE: fake.imageModel,
    KGATE_MODEL_PRICE_INPUT: '1',
    KGATE_MODEL_PRICE_OUTPUT: '2',
    KGATE_MODEL_PRICE_IMAGE: '40000',
    KGATE_MODEL_TIMEOUT_MS: '5000',
    KGATE_MODEL_CONNECT_TIMEOUT_MS: '2000',
    KGATE_MODEL_ALLOW_PRIVATE: '1',
    ...overrides,
  };
}

function words(text: string): number {
  return text.split(/\s+/).filter((word) => word !== '').length;
}

function promptWords(body: Record<string, unknown> | null): number {
  if (body === null) return 0;
  if (typeof body.prompt === 'string') return words(body.prompt);
  const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
  return messages.reduce<number>((sum, message) => {
    const content = (message as { content?: unknown } | null)?.content;
    return sum + (typeof content === 'string' ? words(content) : 0);
  }, 0);
}

function errorType(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 403) return { type: 'invalid_request_error', code: 'unsupported_country_region_territory' };
  if (status === 404) return { type: 'invalid_request_error', code: 'model_not_found' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}

/** Splits a reply into pieces that join back to it exactly: `count` equal slices, or by words (at most 8 pieces). */
function pieces(text: string, count: number | undefined): string[] {
  if (text === '') return [''];
  const n = Math.max(1, Math.min(count ?? 8, text.length));
  const byWords = text.split(/(?<=\s)/);
  if (count === undefined && byWords.length <= n) return byWords;
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY ? null : Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
  });
}

/** Starts the fake; `apiKey` defaults to a fixed test key. */
export async function startModelFake(options: { apiKey?: string } = {}): Promise<ModelFake> {
  const apiKey = options.apiKey ?? 'sk-fake-model-key-0123456789';
  const chatModel = 'fake-chat-1';
  const imageModel = 'fake-image-1';
  const requests: FakeRequest[] = [];
  const queue: FakeBehavior[] = [];
  let handler: (request: FakeRequest) => FakeBehavior = () => ({ kind: 'reply', text: FAKE_DEFAULT_REPLY });
  let counter = 0;
  const open = new Set<{ res: ServerResponse; timers: Set<NodeJS.Timeout> }>();
  let idleWaiters: Array<() => void> = [];
  let closing = false;

  function settle(): void {
    if (open.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counter += 1;
    const requestId = `req_fake${counter.toString(16).padStart(8, '0')}`;
    const record: FakeRequest = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0] ?? '/',
      body: null,
      stream: false,
      authorized: req.headers.authorization === `Bearer ${apiKey}`,
      behavior: 'invalid',
      status: undefined,
      requestId,
      aborted: false,
      finished: false,
    };
    requests.push(record);
    const exchange = { res, timers: new Set<NodeJS.Timeout>() };
    open.add(exchange);
    let destroyedByFake = false;
    res.on('close', () => {
      for (const timer of exchange.timers) clearTimeout(timer);
      if (!res.writableFinished && !destroyedByFake && !closing) record.aborted = true;
      record.finished = true;
      open.delete(exchange);
      settle();
    });
    res.setHeader('x-request-id', requestId);

    const raw = await readBody(req);
    let body: Record<string, unknown> | null = null;
    try {
      const parsed: unknown = raw === null ? null : JSON.parse(raw.toString('utf8'));
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = null;
    }
    record.body = body;
    record.stream = body?.stream === true;

    const json = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
      record.status = status;
      const text = JSON.stringify(payload);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
      res.end(text);
    };
    const fail = (status: number, message: string, headers: Record<string, string> = {}): void => {
      json(status, { error: { message, ...errorType(status), param: null } }, headers);
    };

    if (req.method !== 'POST' || (record.path !== '/v1/chat/completions' && record.path !== '/v1/images/generations')) {
      record.behavior = 'not_found';
      fail(404, `Invalid URL (${req.method ?? 'GET'} ${record.path})`);
      return;
    }
    if (!record.authorized) {
      record.behavior = 'unauthorized';
      // OpenAI shows the key's last four characters only; so does the fake.
      const sent = (req.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      fail(401, `Incorrect API key provided: ${sent.length > 4 ? `sk-...${sent.slice(-4)}` : 'none'}.`);
      return;
    }
    if (body === null) {
      fail(400, 'We could not parse the JSON body of your request.');
      return;
    }
    const behavior = queue.shift() ?? handler(record);
    record.behavior = behavior.kind;
    const isImage = record.path === '/v1/images/generations';

    const later = (ms: number, run: () => void): void => {
      const timer = setTimeout(() => {
        exchange.timers.delete(timer);
        run();
      }, ms);
      exchange.timers.add(timer);
    };
    const destroy = (): void => {
      destroyedByFake = true;
      res.socket?.destroy();
    };

    if (behavior.kind === 'fail') {
      const headers: Record<string, string> = behavior.retryAfterSeconds === undefined ? {} : { 'retry-after': String(behavior.retryAfterSeconds) };
      fail(behavior.status, behavior.message ?? `The fake failed with ${behavior.status}.`, headers);
      return;
    }
    if (behavior.kind === 'raw') {
      record.status = 200;
      res.writeHead(200, { 'content-type': behavior.contentType ?? 'application/json' });
      res.end(behavior.body);
      return;
    }
    if (isImage) {
      answerImage(behavior);
      return;
    }
    answerChat(behavior);

    function answerImage(b: FakeBehavior): void {
      if (b.kind === 'stall' || b.kind === 'disconnect') {
        if (b.afterChunks === undefined) return;
        record.status = 200;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        if (b.kind === 'disconnect') {
          res.write('{"created":1,"data":[{"b64_json":"iVBO');
          later(10, destroy);
        }
        return;
      }
      const format = body?.output_format;
      const bytes = b.kind === 'image' ? b.bytes : format === 'jpeg' ? FAKE_IMAGE_BYTES.jpeg : format === 'webp' ? FAKE_IMAGE_BYTES.webp : FAKE_IMAGE_BYTES.png;
      const usage = b.kind === 'image' ? b.usage : undefined;
      json(200, {
        created: Math.floor(Date.now() / 1000),
        data: [{ b64_json: Buffer.from(bytes).toString('base64') }],
        ...(usage === undefined
          ? {}
          : { usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens, input_tokens_details: { text_tokens: usage.inputTokens, image_tokens: 0 } } }),
      });
    }

    function answerChat(b: FakeBehavior): void {
      const model = typeof body?.model === 'string' ? body.model : chatModel;
      const id = `chatcmpl-fake${counter}`;
      const created = Math.floor(Date.now() / 1000);
      const reply = b.kind === 'reply' ? b : { kind: 'reply' as const, text: FAKE_DEFAULT_REPLY };
      const usageOf = (u: FakeUsage | undefined): Record<string, number> => {
        const inputTokens = u?.inputTokens ?? promptWords(body);
        const outputTokens = u?.outputTokens ?? words(reply.text);
        return { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
      };
      if (!record.stream) {
        if (b.kind === 'stall' || b.kind === 'disconnect') {
          if (b.afterChunks === undefined) return;
          record.status = 200;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.flushHeaders();
          if (b.kind === 'disconnect') {
            if (b.afterChunks > 0) res.write(`{"id":"${id}","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`);
            later(10, destroy);
          }
          return;
        }
        json(200, {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: reply.text, refusal: null }, logprobs: null, finish_reason: reply.finishReason ?? 'stop' }],
          usage: usageOf(reply.usage),
          system_fingerprint: 'fp_fake',
        });
        return;
      }
      const includeUsage = (body?.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      const chunk = (choices: unknown[], usage?: Record<string, number>): string =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...(includeUsage ? { usage: usage ?? null } : {}) })}\n\n`;
      const events: string[] = [chunk([{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }])];
      for (const piece of pieces(reply.text, reply.chunks)) events.push(chunk([{ index: 0, delta: { content: piece }, logprobs: null, finish_reason: null }]));
      events.push(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: reply.finishReason ?? 'stop' }]));
      if (includeUsage) events.push(chunk([], usageOf(reply.usage)));
      events.push('data: [DONE]\n\n');

      if ((b.kind === 'stall' || b.kind === 'disconnect') && b.afterChunks === undefined) return;
      record.status = 200;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.flushHeaders();
      const stopAt = b.kind === 'stall' || b.kind === 'disconnect' ? Math.min(b.afterChunks ?? 0, events.length - 1) : events.length;
      const delay = b.kind === 'reply' ? (b.chunkDelayMs ?? 0) : 0;
      let index = 0;
      const next = (): void => {
        if (res.destroyed) return;
        if (index >= stopAt) {
          if (b.kind === 'disconnect') later(10, destroy);
          else if (b.kind !== 'stall') res.end();
          return;
        }
        res.write(events[index]);
        index += 1;
        if (delay > 0) later(delay, next);
        else setImmediate(next);
      };
      next();
    }
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    chatModel,
    imageModel,
    requests,
    respond(next) {
      handler = next;
    },
    script(...behaviours) {
      queue.push(...behaviours);
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settle();
      });
    },
    async close() {
      closing = true;
      for (const { timers } of open) for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
