import { randomUUID } from 'node:crypto';
import { request as httpRequest, type Agent } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOwner, type Owner } from './fixtures.ts';
import { startTestGateway, type TestGateway } from './gateway.ts';
import { restClient, snapshotOf, type ApiResponse, type RestClient } from './rest-client.ts';

/** A well-formed personal access token that no account holds (its checksum is wrong). */
export const WRONG_TOKEN = 'kgp_000000000000000000000000000000000000';
/** The note every stranger's mapping holds, so that "not found" cannot mean "no such path". */
export const STRANGER_NOTE = 'shared/secret.md';

/** An owner with a REST client that speaks with the owner's token. */
export interface Caller {
  owner: Owner;
  api: RestClient;
  mappingId: string;
}

/**
 * The gateway of one test file and the callers every endpoint is checked against: an owner moved to the free plan,
 * a suspended owner, a stranger whose mapping holds STRANGER_NOTE, and a prober (developer plan) who asks for it.
 */
export interface NotesSuite {
  gateway: TestGateway;
  free: Caller;
  suspended: Caller;
  stranger: Caller;
  prober: Caller;
  /** A client that sends exactly the credential given per request (`token: null` sends none). */
  client: RestClient;
}

/** A new owner on the developer plan, with a client. */
export async function newCaller(gateway: TestGateway, label: string): Promise<Caller> {
  const owner = await createOwner(gateway.services, label);
  return { owner, api: restClient(gateway, owner.token), mappingId: owner.mapping.id };
}

/** Starts the gateway of a test file in `beforeAll` and stops it in `afterAll`. */
export function useNotesSuite(): NotesSuite {
  const suite = {} as NotesSuite;
  beforeAll(async () => {
    const gateway = await startTestGateway();
    const [free, suspended, stranger, prober] = await Promise.all(
      ['free', 'suspended', 'stranger', 'prober'].map((label) => newCaller(gateway, label)),
    );
    await seedNote(stranger!, STRANGER_NOTE, '# Secret\nOnly the stranger may see this.\n');
    await gateway.services.accounts.setPlan(free!.owner.accountId, 'free');
    await gateway.services.accounts.setStatus(suspended!.owner.accountId, 'suspended');
    Object.assign(suite, { gateway, free, suspended, stranger, prober, client: restClient(gateway, WRONG_TOKEN) });
  });
  afterAll(() => suite.gateway?.stop());
  return suite;
}

/** A fresh idempotency key. */
export const newKey = (): string => randomUUID();

/** Creates a note through the API (apply with a fresh key) and returns its content hash. */
export async function seedNote(caller: Caller, path: string, content: string): Promise<string> {
  const response = await caller.api.post<{ actions: { afterRevision: string }[] }>('/notes', {
    json: { mappingId: caller.mappingId, path, content, dryRun: false },
    headers: { 'idempotency-key': newKey() },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.actions[0]!.afterRevision;
}

/** Moves a note to the trash through the API and returns the trash id. */
export async function trashNote(caller: Caller, path: string, hash: string): Promise<string> {
  const [category, filename] = path.split('/');
  const response = await caller.api.delete<{ actions: { trashId: string }[] }>(`/notes/${category}/${filename}`, {
    query: { mappingId: caller.mappingId, dryRun: false },
    headers: { 'idempotency-key': newKey(), 'if-match': `"${hash}"` },
  });
  expect(response.status, response.text).toBe(200);
  return response.body.actions[0]!.trashId;
}

/** A provenance event as GET /api/dev/events shows it. */
export interface WireEvent {
  seq: number;
  kind: string;
  path: string | null;
  beforeRevision: string | null;
  afterRevision: string | null;
  trashId: string | null;
  idempotencyKey: string | null;
}

/** Every provenance event of the caller's mapping. */
export async function eventsOf(caller: Caller): Promise<WireEvent[]> {
  const response = await caller.api.get<{ events: WireEvent[]; truncated: boolean }>('/events', {
    query: { mappingId: caller.mappingId, limit: 1000 },
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.truncated).toBe(false);
  return response.body.events;
}

/** Asserts an RFC 9457 problem with our code, type URN and request id; returns the body. */
export function expectProblem(response: ApiResponse<unknown>, status: number, code: string): Record<string, unknown> {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const body = response.body as Record<string, unknown>;
  expect(body).toMatchObject({ status, code, type: `urn:kgate:problem:${code}` });
  expect(body.requestId).toBeTypeOf('string');
  expect(body.requestId).toBe(response.headers.get('x-request-id'));
  return body;
}

/** Sends a request that must be rejected with `status` and `code`, and asserts that no note, trash entry or event changed. */
export async function expectUnchanged(
  gateway: TestGateway,
  send: () => Promise<ApiResponse<unknown>>,
  status: number,
  code: string,
): Promise<ApiResponse> {
  const before = await snapshotOf(gateway);
  const response = await send();
  const body = expectProblem(response, status, code);
  expect(await snapshotOf(gateway)).toBe(before);
  return { ...response, body };
}

/** Asserts a 200 that carries the allowance headers of the minute window and the month. */
export function expectSuccess(response: ApiResponse<unknown>): void {
  expect(response.status, response.text).toBe(200);
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'x-monthly-limit', 'x-monthly-remaining']) {
    expect(response.headers.get(name), name).toMatch(/^\d+$/);
  }
  expect(Number(response.headers.get('ratelimit-remaining'))).toBeLessThan(Number(response.headers.get('ratelimit-limit')));
}

/** A problem body without its request id, to compare two rejections. */
export function withoutRequestId(body: Record<string, unknown>): Record<string, unknown> {
  const { requestId: _requestId, ...rest } = body;
  return rest;
}

/** A request sent with node:http, byte for byte as given. */
export interface RawRequest {
  method: string;
  /** Sent unchanged: fetch would resolve `..` and `%2E%2E` before sending, a hand-written client may not. */
  path: string;
  headers?: Record<string, string>;
  /** Body chunks; without a Content-Length header they go out chunked. */
  chunks?: readonly Uint8Array[];
  /** To control connection reuse (keep-alive). */
  agent?: Agent;
}

/** Sends a request with node:http and answers like the REST client; rejects on a socket error. */
export function rawRequest(gateway: TestGateway, request: RawRequest): Promise<ApiResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(gateway.url);
    const { method, path, headers = {}, chunks = [], agent } = request;
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers, ...(agent ? { agent } : {}) }, (res) => {
      const received: Buffer[] = [];
      res.on('data', (chunk: Buffer) => received.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(received).toString('utf8');
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        const body = (responseHeaders.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Record<string, unknown>) : {};
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body, text });
      });
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** Sends one endpoint's request with `token` (null: none) against `mappingId`. Applying requests use a fresh key. */
export type SendWith = (token: string | null, mappingId: string) => Promise<ApiResponse<unknown>>;

/**
 * The rejections every endpoint shares, each asserted to change nothing: no credential, a wrong credential, the
 * free plan, a suspended account, a non-UUID mapping id, and a stranger's mapping, which must answer exactly as an
 * unknown mapping does (a mapping id is never a credential).
 */
export function itRejectsUnauthorizedCallers(suite: NotesSuite, send: SendWith): void {
  it('answers 401 with a bare Bearer challenge when no credential is sent', async () => {
    const response = await expectUnchanged(suite.gateway, () => send(null, suite.prober.mappingId), 401, 'unauthenticated');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="kgate"');
  });

  it('answers 401 invalid_token for a wrong credential', async () => {
    const response = await expectUnchanged(suite.gateway, () => send(WRONG_TOKEN, suite.prober.mappingId), 401, 'unauthenticated');
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="kgate", error="invalid_token"');
  });

  it('answers 403 plan_required on the free plan, even for its own mapping', async () => {
    const { owner, mappingId } = suite.free;
    await expectUnchanged(suite.gateway, () => send(owner.token, mappingId), 403, 'plan_required');
  });

  it('answers 403 account_inactive for a suspended account', async () => {
    const { owner, mappingId } = suite.suspended;
    await expectUnchanged(suite.gateway, () => send(owner.token, mappingId), 403, 'account_inactive');
  });

  it('answers 400 invalid_request for a mapping id that is not a UUID', async () => {
    await expectUnchanged(suite.gateway, () => send(suite.prober.owner.token, 'not-a-uuid'), 400, 'invalid_request');
  });

  it("answers a stranger's mapping with 404 not_found, exactly like an unknown UUID", async () => {
    const token = suite.prober.owner.token;
    const foreign = await expectUnchanged(suite.gateway, () => send(token, suite.stranger.mappingId), 404, 'not_found');
    const unknown = await expectUnchanged(suite.gateway, () => send(token, randomUUID()), 404, 'not_found');
    expect(withoutRequestId(foreign.body)).toEqual(withoutRequestId(unknown.body));
  });
}
