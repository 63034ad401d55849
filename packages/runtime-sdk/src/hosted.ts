/**
 * The hosted adapter (spec 1.8): the Product Runtime V1 wire of docs/runtime.md. It gets an access token with the
 * client credentials grant, declares the contract version on every call, sends an Idempotency-Key with every apply
 * (the same key across that call's retries), retries only what the server asks to retry, and returns the server's
 * envelopes as they are. It throws only RuntimeTransportError (no answer at all) and, at creation, a TypeError for
 * options it cannot work with.
 */
import { randomUUID, type JsonWebKey, type KeyObject } from 'node:crypto';
import { RUNTIME_CONTRACT_VERSION, isRuntimeEnvelope, type ErrorEnvelope, type RuntimeEnvelope } from './envelope.js';
import type { GenerationStreamEvent } from './education-data.js';
import { RuntimeTransportError } from './errors.js';
import { errorEnvelope, problem, unavailableEnvelope } from './make-envelope.js';
import { assertionKey, type AssertionAlgorithm } from './hosted/client-assertion.js';
import { TokenSource, type ClientAuthentication } from './hosted/token-source.js';
import { ndjsonValues } from './hosted/ndjson.js';
import { streamEventOf } from './hosted/stream-events.js';
import { exchange, sleepFor, type HttpAnswer, type TransportSettings } from './hosted/transport.js';
import type { RuntimeScope } from './runtime-data.js';
import type { CallOptions, ProductRuntime, StreamCallOptions, VaultRef } from './runtime.js';

/** Client authentication at the token endpoint: a client secret (`kgcs_…`), or a registered private key. */
export type HostedCredentials =
  | { clientSecret: string }
  | {
      /** The private key whose public half is registered for the principal. */
      privateKey: KeyObject | JsonWebKey;
      /** Picks the key when the principal has several active ones. */
      keyId?: string;
      alg: AssertionAlgorithm;
    };

/** Options of createHostedRuntime. */
export interface HostedRuntimeOptions {
  /** The kgate server, e.g. `https://kgate.example.com`. HTTPS, or HTTP to a loopback address only. */
  baseUrl: string;
  /** The service principal's id. */
  clientId: string;
  credentials: HostedCredentials;
  /** Ask the token for fewer scopes than the principal has; default: all of them. */
  scopes?: RuntimeScope[];
  /** Default: the global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Retries after the first attempt, for 429, 503 and failures before a response. Default 3, at most 10. */
  retries?: number;
  /** Timeout of each attempt. Default 30,000 ms. */
  timeoutMs?: number;
  /**
   * Timeout of each attempt of a metered (model-backed) call, a stream included from its first byte to its end.
   * Default 300,000 ms: longer than the server's own model deadline, because a call the SDK abandons cancels the
   * model request and is charged as a billable failure when the model had accepted it.
   */
  meteredTimeoutMs?: number;
  /** Answers larger than this are not read (RuntimeTransportError `response_too_large`). Default 16 MiB. */
  maxResponseBytes?: number;
  /** Backoff: first step (default 250 ms, doubling), largest step (default 8 s), longest Retry-After waited for (default 30 s). */
  backoff?: { baseDelayMs?: number; maxDelayMs?: number; maxRetryAfterMs?: number };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const NDJSON = 'application/x-ndjson';

/** Whether an answer is the NDJSON stream asked for (a refusal before the stream is a JSON envelope). */
function isNdjson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase() === NDJSON;
}

function numberOption(name: string, value: number | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) throw new TypeError(`${name} is a number from ${min} to ${max}.`);
  return value;
}

function serverBase(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new TypeError('baseUrl is not a URL.');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) {
    throw new TypeError('baseUrl must use HTTPS (plain HTTP only to a loopback address): credentials travel on it.');
  }
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') throw new TypeError('baseUrl takes no query, fragment or user info.');
  return url.href.replace(/\/+$/, '');
}

function authentication(credentials: HostedCredentials): ClientAuthentication {
  if ('clientSecret' in credentials) {
    if (typeof credentials.clientSecret !== 'string' || credentials.clientSecret === '') throw new TypeError('credentials.clientSecret is empty.');
    return { kind: 'client_secret_post', clientSecret: credentials.clientSecret };
  }
  if (!['RS256', 'PS256', 'ES256', 'EdDSA'].includes(credentials.alg)) throw new TypeError('credentials.alg is RS256, PS256, ES256 or EdDSA.');
  return {
    kind: 'private_key_jwt',
    key: assertionKey(credentials.privateKey, credentials.alg),
    alg: credentials.alg,
    ...(credentials.keyId !== undefined ? { keyId: credentials.keyId } : {}),
  };
}

/** One runtime call: where, what, and whether it applies a change (then it carries an Idempotency-Key). */
interface RuntimeCall {
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  scopeId?: string;
  applies?: boolean;
  /** A model-backed call: carries an Idempotency-Key, and each attempt has the metered timeout. */
  metered?: boolean;
  /**
   * The route names no resource (no id in its path or query): a 404 `not_found` can then only mean that the server
   * has no such route, which is an unavailable capability, not a failure.
   */
  namesNoResource?: boolean;
}

/** Creates the hosted adapter. Nothing is sent until the first call. */
export function createHostedRuntime(options: HostedRuntimeOptions): ProductRuntime {
  const base = serverBase(options.baseUrl);
  if (typeof options.clientId !== 'string' || options.clientId === '') throw new TypeError('clientId is empty.');
  const fetchFunction = options.fetch ?? globalThis.fetch;
  if (typeof fetchFunction !== 'function') throw new TypeError('No fetch: pass options.fetch or use Node.js 20.19 or later.');
  const settings: TransportSettings = {
    fetch: fetchFunction,
    retries: Math.floor(numberOption('retries', options.retries, 3, 0, 10)),
    timeoutMs: numberOption('timeoutMs', options.timeoutMs, 30_000, 1, 600_000),
    maxResponseBytes: numberOption('maxResponseBytes', options.maxResponseBytes, 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    baseDelayMs: numberOption('backoff.baseDelayMs', options.backoff?.baseDelayMs, 250, 0, 60_000),
    maxDelayMs: numberOption('backoff.maxDelayMs', options.backoff?.maxDelayMs, 8_000, 0, 600_000),
    maxRetryAfterMs: numberOption('backoff.maxRetryAfterMs', options.backoff?.maxRetryAfterMs, 30_000, 0, 3_600_000),
    sleep: sleepFor,
    random: Math.random,
  };
  const meteredSettings: TransportSettings = { ...settings, timeoutMs: numberOption('meteredTimeoutMs', options.meteredTimeoutMs, 300_000, 1, 3_600_000) };
  const tokenUrl = `${base}/api/product/v1/oauth/token`;
  const tokens = new TokenSource(settings, tokenUrl, options.clientId, authentication(options.credentials), options.scopes);

  function envelopeOf<K extends string, D>(kind: K, spec: RuntimeCall, answer: HttpAnswer): RuntimeEnvelope<K, D> {
    const requestId = answer.headers.get('x-request-id') || randomUUID();
    const operation = spec.operation;
    // A route the server does not have: the capability is not available there. Never fabricated data.
    const notOffered = () => unavailableEnvelope(kind, problem('not_available', `This server does not offer ${operation}.`, { reason: 'not_offered', httpStatus: answer.status }), requestId);
    if (isRuntimeEnvelope(answer.json)) {
      const envelope = answer.json as RuntimeEnvelope<K, D>;
      if (envelope.status !== 'error') return envelope;
      if (spec.namesNoResource && answer.status === 404 && envelope.problems[0]?.code === 'not_found') return notOffered();
      return { ...envelope, httpStatus: answer.status };
    }
    if (answer.status === 404 || answer.status === 405 || answer.status === 501) return notOffered();
    const contentType = answer.headers.get('content-type') ?? '';
    return errorEnvelope(
      problem('unexpected_response', `The server answered ${operation} with HTTP ${answer.status} and no V1 envelope.`, { httpStatus: answer.status, contentType }),
      answer.status,
      requestId,
    );
  }

  /**
   * Sends a call with a token (a new one once if the server answers 401), retried by the transport's rules: the
   * server's answer, or the token endpoint's refusal as an error envelope. `stream`: asks for NDJSON, and an NDJSON
   * answer comes back unread.
   */
  async function send(spec: RuntimeCall, callOptions: CallOptions | undefined, idempotencyKey: string | undefined, stream = false): Promise<HttpAnswer | ErrorEnvelope> {
    const url = new URL(`${base}${spec.path}`);
    for (const [name, value] of Object.entries(spec.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const body = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    for (let refreshed = false; ; refreshed = true) {
      const token = await tokens.token();
      if (typeof token !== 'string') return token;
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        'x-service-runtime-version': String(RUNTIME_CONTRACT_VERSION),
        accept: stream ? `${NDJSON}, application/json` : 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
        ...(spec.scopeId !== undefined ? { 'x-service-context-scope': spec.scopeId } : {}),
      };
      const answer = await exchange(
        spec.metered ? meteredSettings : settings,
        () => ({ url: url.href, method: spec.method, headers, ...(body !== undefined ? { body } : {}) }),
        callOptions?.signal,
        stream ? isNdjson : undefined,
      ).catch((error: unknown) => {
        throw error instanceof RuntimeTransportError ? error.withKey(idempotencyKey) : error;
      });
      if (answer.status === 401 && !refreshed) {
        tokens.drop(token);
        continue;
      }
      return answer;
    }
  }

  async function call<K extends string, D>(kind: K, spec: RuntimeCall, callOptions?: CallOptions): Promise<RuntimeEnvelope<K, D>> {
    // One key per call, reused by its retries and by its re-send after a token refresh: the server replays, never
    // applies twice nor calls the model twice.
    const idempotencyKey = spec.applies || spec.metered ? (callOptions?.idempotencyKey ?? randomUUID()) : undefined;
    const answer = await send(spec, callOptions, idempotencyKey);
    return 'version' in answer ? answer : envelopeOf<K, D>(kind, spec, answer);
  }

  /**
   * A metered call answered as a stream of events (spec 6.3): `ready`, `delta`s, then `done` with the envelope. An
   * answer that is not a stream (a refusal before the stream started, `unavailable`, a replay answered as JSON) is one
   * `done` event. Nothing is sent until the iteration starts; stopping it early (or the signal) closes the connection.
   */
  async function* streamCall<K extends string, D>(kind: K, spec: RuntimeCall, callOptions?: StreamCallOptions): AsyncGenerator<GenerationStreamEvent<K, D>, void, undefined> {
    const idempotencyKey = callOptions?.idempotencyKey ?? randomUUID();
    const maxLineBytes = numberOption('maxLineBytes', callOptions?.maxLineBytes, 1024 * 1024, 1024, settings.maxResponseBytes);
    const answer = await send(spec, callOptions, idempotencyKey, true);
    if ('version' in answer) {
      yield { type: 'done', envelope: answer };
      return;
    }
    if (!answer.stream) {
      yield { type: 'done', envelope: envelopeOf<K, D>(kind, spec, answer) };
      return;
    }
    const { body, timeout, attempts, path } = answer.stream;
    const interrupted = (why: string) => new RuntimeTransportError('stream_interrupted', `The stream of ${path} ${why}.`, { attempts, path, idempotencyKey });
    try {
      for await (const value of ndjsonValues({ body, maxLineBytes, path, attempts, signal: callOptions?.signal, timeout })) {
        const event = streamEventOf<K, D>(value);
        if (!event) throw interrupted('sent a line that is not one of its events');
        yield event;
        // What follows `done` is not read: returning cancels the rest.
        if (event.type === 'done') return;
      }
    } catch (error) {
      throw error instanceof RuntimeTransportError ? error.withKey(idempotencyKey) : error;
    }
    throw interrupted('ended without its done event');
  }

  const id = encodeURIComponent;
  const vaultPath = (ref: VaultRef, rest: string) => `/workspaces/${id(ref.workspaceId)}/vaults/${id(ref.vaultId)}${rest}`;
  const scope = (ref: VaultRef) => (ref.scopeId !== undefined ? { scopeId: ref.scopeId } : {});
  const v1 = '/api/product/v1';
  const education = `${v1}/intelligence/education`;
  /**
   * A metered education call: POST, keyed, answered as the server's envelope. Its path names no resource, so a 404
   * `not_found` means a server without the route, unless the request names one (a rubric to revise).
   */
  const metered = <K extends string, D>(kind: K, operation: string, path: string, input: object, o?: CallOptions) =>
    call<K, D>(kind, { operation, method: 'POST', path: `${education}/${path}`, body: input, metered: true, namesNoResource: !('rubricId' in input) }, o);

  return {
    adapter: 'hosted',
    getRuntimeContext: (o) => call('service.runtime-context', { operation: 'getRuntimeContext', method: 'GET', path: `${v1}/context` }, o),
    getCapabilities: (o) => call('service.runtime-capabilities', { operation: 'getCapabilities', method: 'GET', path: `${v1}/capabilities` }, o),
    getWorkspace: (workspaceId, o) => call('service.workspace', { operation: 'getWorkspace', method: 'GET', path: `${v1}/workspaces/${id(workspaceId)}` }, o),
    getDomainComposition: (o) => call('service.domain-composition', { operation: 'getDomainComposition', method: 'GET', path: `${v1}/domain-composition` }, o),
    listNotes: (p, o) =>
      call('service.note-list', { operation: 'listNotes', method: 'GET', path: vaultPath(p, '/notes'), query: { prefix: p.prefix, cursor: p.cursor, limit: p.limit }, ...scope(p) }, o),
    readNote: (p, o) => call('service.note', { operation: 'readNote', method: 'GET', path: vaultPath(p, '/notes/content'), query: { path: p.path }, ...scope(p) }, o),
    publishNote: (p, o) => {
      const dryRun = p.dryRun ?? true;
      const body = { path: p.path, content: p.content, ...(p.expectedHash !== undefined ? { expectedHash: p.expectedHash } : {}), dryRun };
      return call('service.note-transaction', { operation: 'publishNote', method: 'POST', path: vaultPath(p, '/notes/publish'), body, applies: !dryRun, ...scope(p) }, o);
    },
    previewTransaction: (p, o) =>
      call('service.note-transaction', { operation: 'previewTransaction', method: 'POST', path: vaultPath(p, '/notes/transactions'), body: { actions: p.actions, dryRun: true }, ...scope(p) }, o),
    applyTransaction: (p, o) =>
      call(
        'service.note-transaction',
        { operation: 'applyTransaction', method: 'POST', path: vaultPath(p, '/notes/transactions'), body: { actions: p.actions, dryRun: false }, applies: true, ...scope(p) },
        o,
      ),
    listTrash: (p, o) => call('service.trash-list', { operation: 'listTrash', method: 'GET', path: vaultPath(p, '/notes/trash'), query: { cursor: p.cursor, limit: p.limit }, ...scope(p) }, o),
    bindHostedVault: (p, o) =>
      call('service.hosted-vault', { operation: 'bindHostedVault', method: 'POST', path: `${v1}/workspaces/${id(p.workspaceId)}/vaults/${id(p.vaultId)}/bind`, body: {} }, o),
    listAvailableScopes: (p, o) => call('service.scope-list', { operation: 'listAvailableScopes', method: 'GET', path: `${v1}/scopes`, query: { workspaceId: p?.workspaceId } }, o),
    getScopeContext: (s, o) => call('service.scope-context', { operation: 'getScopeContext', method: 'GET', path: `${v1}/scopes/${id(s)}/context` }, o),
    getEffectiveScopePolicy: (s, o) => call('service.scope-policy', { operation: 'getEffectiveScopePolicy', method: 'GET', path: `${v1}/scopes/${id(s)}/policy` }, o),
    getScopeIntelligence: (s, o) => call('service.scope-intelligence', { operation: 'getScopeIntelligence', method: 'GET', path: `${v1}/scopes/${id(s)}/intelligence` }, o),
    getScopeMemory: (s, p, o) =>
      call('service.scope-memory', { operation: 'getScopeMemory', method: 'GET', path: `${v1}/scopes/${id(s)}/memory`, query: { cursor: p?.cursor, limit: p?.limit } }, o),
    createSharedMemoryCandidate: (s, input, o) =>
      call(
        'service.memory-candidate',
        { operation: 'createSharedMemoryCandidate', method: 'POST', path: `${v1}/scopes/${id(s)}/memory/candidates`, body: input, applies: true },
        o,
      ),
    projectEducation: (input, o) =>
      call('service.education-projection', { operation: 'projectEducation', method: 'POST', path: `${v1}/intelligence/education/projection`, body: input, namesNoResource: true }, o),
    generateEducationContent: (input, o) => metered('service.education-generation', 'generateEducationContent', 'generate', input, o),
    streamEducationContent: (input, o) =>
      streamCall('service.education-generation', { operation: 'streamEducationContent', method: 'POST', path: `${education}/generate`, body: input, metered: true, namesNoResource: true }, o),
    reviewPractice: (input, o) => metered('service.education-practice-review', 'reviewPractice', 'practice-review', input, o),
    draftAssessment: (input, o) => metered('service.education-assessment-draft', 'draftAssessment', 'assessment-draft', input, o),
    reviewQuality: (input, o) => metered('service.education-quality-review', 'reviewQuality', 'quality-review', input, o),
    draftRubric: (input, o) => metered('service.education-rubric-draft', 'draftRubric', 'rubric-draft', input, o),
    listRubrics: (p, o) =>
      call('service.education-rubrics', { operation: 'listRubrics', method: 'GET', path: `${education}/rubrics`, query: { cursor: p?.cursor, limit: p?.limit }, namesNoResource: true }, o),
    getRubric: (rubricId, o) => call('service.education-rubric', { operation: 'getRubric', method: 'GET', path: `${education}/rubrics/${id(rubricId)}` }, o),
    generateImage: (input, o) => metered('service.education-image', 'generateImage', 'generate-image', input, o),
    studentGuidance: (input, o) => metered('service.education-student-guidance', 'studentGuidance', 'student-guidance', input, o),
  };
}
