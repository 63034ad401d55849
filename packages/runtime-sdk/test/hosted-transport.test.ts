// The hosted adapter's wire behaviour that a healthy gateway cannot be made to show on demand: retries of 429 and 503
// with one Idempotency-Key, a token refreshed once on 401, network failures, oversized answers, routes a server does
// not have, and private_key_jwt assertions for each algorithm. A scripted HTTP server on a free port stands in for
// the gateway here; test/runtime-sdk-hosted.test.ts in the repository runs the packed SDK against the real one.
import { generateKeyPairSync, verify, constants, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RuntimeTransportError, createHostedRuntime, type HostedRuntimeOptions } from '../src/index.js';

interface Seen {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Reply = (request: Seen, response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let seen: Seen[];
let replies: Reply[];
let tokenReplies: Reply[];
let tokensIssued: number;

const envelope = (kind: string, data: unknown) => ({ version: 1, kind, status: 'ok', data, receipts: [], problems: [], requestId: 'r1' });
const problemEnvelope = (code: string) => ({ version: 1, kind: 'service.problem', status: 'error', data: null, receipts: [], problems: [{ code, message: code }], requestId: 'r2' });
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (_request, response) => {
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req-1', ...headers });
  response.end(JSON.stringify(body));
};
const issueToken: Reply = (_request, response) => {
  tokensIssued += 1;
  json(200, { access_token: `kgrp_token${tokensIssued}`, token_type: 'Bearer', expires_in: 900, scope: 'notes.publish' })(_request, response);
};

beforeEach(async () => {
  seen = [];
  replies = [];
  tokenReplies = [];
  tokensIssued = 0;
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method!, path: request.url!, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(entry);
      const isToken = entry.path === '/api/product/v1/oauth/token';
      const reply = (isToken ? tokenReplies : replies).shift() ?? (isToken ? issueToken : json(500, { unexpected: true }));
      reply(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function runtime(options: Partial<HostedRuntimeOptions> = {}) {
  return createHostedRuntime({ baseUrl, clientId: 'principal-1', credentials: { clientSecret: 'kgcs_secret' }, backoff: { baseDelayMs: 0 }, ...options });
}
const apiCalls = () => seen.filter((s) => s.path !== '/api/product/v1/oauth/token');
const VAULT = { workspaceId: 'w1', vaultId: 'v1' };

describe('the hosted adapter on the wire', () => {
  it('gets a token with client_secret_post, keeps it, and declares the contract version on every call', async () => {
    replies.push(json(200, envelope('service.runtime-context', { adapter: 'hosted' })), json(200, envelope('service.runtime-capabilities', {})));
    const rt = runtime({ scopes: ['notes.publish'] });
    const context = await rt.getRuntimeContext();
    expect(context).toEqual(envelope('service.runtime-context', { adapter: 'hosted' }));
    await rt.getCapabilities();

    const token = seen.filter((s) => s.path === '/api/product/v1/oauth/token');
    expect(token).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(token[0]!.body))).toEqual({
      grant_type: 'client_credentials',
      client_id: 'principal-1',
      client_secret: 'kgcs_secret',
      scope: 'notes.publish',
    });
    expect(token[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    for (const call of apiCalls()) {
      expect(call.headers.authorization).toBe('Bearer kgrp_token1');
      expect(call.headers['x-service-runtime-version']).toBe('1');
      expect(call.headers['idempotency-key']).toBeUndefined();
    }
    expect(apiCalls().map((c) => c.path)).toEqual(['/api/product/v1/context', '/api/product/v1/capabilities']);
  });

  it('sends vault routes, queries and the context scope header as docs/runtime.md names them', async () => {
    const rt = runtime();
    for (let i = 0; i < 3; i += 1) replies.push(json(200, envelope('service.x', {})));
    await rt.listNotes({ ...VAULT, prefix: 'Projects/', limit: 10, scopeId: 's1' });
    await rt.readNote({ ...VAULT, path: 'Projects/a b.md' });
    await rt.listTrash({ ...VAULT, cursor: 'c1' });
    const calls = apiCalls();
    expect(calls.map((c) => c.path)).toEqual([
      '/workspaces/w1/vaults/v1/notes?prefix=Projects%2F&limit=10',
      '/workspaces/w1/vaults/v1/notes/content?path=Projects%2Fa+b.md',
      '/workspaces/w1/vaults/v1/notes/trash?cursor=c1',
    ]);
    expect(calls[0]!.headers['x-service-context-scope']).toBe('s1');
    expect(calls[1]!.headers['x-service-context-scope']).toBeUndefined();
  });

  it('previews without a key, and applies with one key reused across its retries of 503 and 429', async () => {
    const rt = runtime();
    replies.push(
      json(200, envelope('service.note-transaction', { dryRun: true })),
      json(503, problemEnvelope('provider_unavailable')),
      json(429, problemEnvelope('rate_limited'), { 'retry-after': '0' }),
      json(200, envelope('service.note-transaction', { dryRun: false })),
      json(200, envelope('service.note-transaction', { dryRun: false })),
    );
    await rt.publishNote({ ...VAULT, path: 'a.md', content: 'x' });
    const applied = await rt.publishNote({ ...VAULT, path: 'a.md', content: 'x', dryRun: false });
    expect(applied.status).toBe('ok');
    await rt.applyTransaction({ ...VAULT, actions: [{ type: 'delete-note', path: 'a.md' }] });

    const calls = apiCalls();
    expect(calls).toHaveLength(5);
    expect(JSON.parse(calls[0]!.body)).toEqual({ path: 'a.md', content: 'x', dryRun: true });
    expect(calls[0]!.headers['idempotency-key']).toBeUndefined();
    const keys = calls.slice(1, 4).map((c) => c.headers['idempotency-key']);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[4]!.headers['idempotency-key']).not.toBe(keys[0]);
    expect(JSON.parse(calls[4]!.body)).toEqual({ actions: [{ type: 'delete-note', path: 'a.md' }], dryRun: false });
  });

  it('uses the caller’s idempotency key when given one', async () => {
    replies.push(json(200, envelope('service.note-transaction', {})));
    await runtime().applyTransaction({ ...VAULT, actions: [] }, { idempotencyKey: 'my-key-1' });
    expect(apiCalls()[0]!.headers['idempotency-key']).toBe('my-key-1');
  });

  it('stops retrying when the retries are spent, and returns the last answer', async () => {
    for (let i = 0; i < 3; i += 1) replies.push(json(503, problemEnvelope('provider_unavailable')));
    const answer = await runtime({ retries: 2 }).getCapabilities();
    expect(answer).toMatchObject({ status: 'error', httpStatus: 503, problems: [{ code: 'provider_unavailable' }] });
    expect(apiCalls()).toHaveLength(3);
  });

  it('does not retry an exhausted monthly allowance, nor a Retry-After longer than it waits', async () => {
    replies.push(json(429, problemEnvelope('runtime_operations_exhausted')), json(429, problemEnvelope('rate_limited'), { 'retry-after': '120' }));
    const rt = runtime();
    expect(await rt.getCapabilities()).toMatchObject({ status: 'error', httpStatus: 429, problems: [{ code: 'runtime_operations_exhausted' }] });
    expect(await rt.getCapabilities()).toMatchObject({ status: 'error', problems: [{ code: 'rate_limited' }] });
    expect(apiCalls()).toHaveLength(2);
  });

  it('refreshes the token once on 401, and returns a second 401 as it is', async () => {
    replies.push(json(401, problemEnvelope('unauthenticated')), json(200, envelope('service.runtime-context', {})));
    const rt = runtime();
    expect((await rt.getRuntimeContext()).status).toBe('ok');
    expect(apiCalls().map((c) => c.headers.authorization)).toEqual(['Bearer kgrp_token1', 'Bearer kgrp_token2']);

    replies.push(json(401, problemEnvelope('principal_revoked')), json(401, problemEnvelope('principal_revoked')));
    expect(await rt.getRuntimeContext()).toMatchObject({ status: 'error', httpStatus: 401, problems: [{ code: 'principal_revoked' }] });
    expect(tokensIssued).toBe(3);
  });

  it('answers a token endpoint refusal as an error envelope and calls nothing else', async () => {
    tokenReplies.push(json(401, { error: 'invalid_client', error_description: 'Unknown client or wrong secret.' }));
    const answer = await runtime().getRuntimeContext();
    expect(answer).toMatchObject({ status: 'error', kind: 'service.problem', httpStatus: 401, problems: [{ code: 'invalid_client', message: 'Unknown client or wrong secret.' }] });
    expect(apiCalls()).toHaveLength(0);
  });

  it('answers a route the server does not have as unavailable, and a foreign answer as an error', async () => {
    replies.push(
      json(404, { error: 'Not Found' }),
      json(404, problemEnvelope('not_found')),
      json(500, { oops: true }),
      json(404, problemEnvelope('vault_not_granted')),
      json(404, problemEnvelope('not_found')),
    );
    const rt = runtime();
    const unavailable = {
      status: 'unavailable',
      kind: 'service.education-projection',
      data: null,
      problems: [{ code: 'not_available', details: { reason: 'not_offered', httpStatus: 404 } }],
      requestId: 'req-1',
    };
    // A foreign 404, and the runtime's own not_found for a route that names no resource.
    expect(await rt.projectEducation({ entities: [] })).toMatchObject(unavailable);
    expect(await rt.projectEducation({ entities: [] })).toMatchObject(unavailable);
    expect(await rt.getCapabilities()).toMatchObject({ status: 'error', httpStatus: 500, problems: [{ code: 'unexpected_response' }] });
    expect(await rt.listNotes(VAULT)).toMatchObject({ status: 'error', httpStatus: 404, problems: [{ code: 'vault_not_granted' }] });
    // A note that is not there stays an error.
    expect(await rt.readNote({ ...VAULT, path: 'gone.md' })).toMatchObject({ status: 'error', httpStatus: 404, problems: [{ code: 'not_found' }] });
  });

  it('throws RuntimeTransportError when no answer comes after the retries, or the answer is too large', async () => {
    const hangUp: Reply = (_request, response) => response.socket?.destroy();
    replies.push(hangUp, hangUp);
    const failure = await runtime({ retries: 1 })
      .getCapabilities()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(RuntimeTransportError);
    expect(failure).toMatchObject({ reason: 'network', attempts: 2, path: '/api/product/v1/capabilities' });

    replies.push(json(200, envelope('service.note', { content: 'x'.repeat(4096) })));
    const large = await runtime({ maxResponseBytes: 1024 })
      .readNote({ ...VAULT, path: 'a.md' })
      .catch((error: unknown) => error);
    expect(large).toMatchObject({ name: 'RuntimeTransportError', reason: 'response_too_large' });
  });

  it('refuses a plain-HTTP server that is not on this machine, and a key that does not fit the algorithm', () => {
    expect(() => createHostedRuntime({ baseUrl: 'http://kgate.example.com', clientId: 'p', credentials: { clientSecret: 's' } })).toThrow(TypeError);
    const { privateKey } = generateKeyPairSync('ed25519');
    expect(() => createHostedRuntime({ baseUrl, clientId: 'p', credentials: { privateKey, alg: 'ES256' } })).toThrow(TypeError);
  });
});

describe('private_key_jwt client assertions', () => {
  const keys: Record<string, () => { privateKey: KeyObject; publicKey: KeyObject }> = {
    RS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
    PS256: () => generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ES256: () => generateKeyPairSync('ec', { namedCurve: 'P-256' }),
    EdDSA: () => generateKeyPairSync('ed25519'),
  };

  it.each(['RS256', 'PS256', 'ES256', 'EdDSA'] as const)('signs an RFC 7523 assertion with %s, a new jti for every attempt', async (alg) => {
    const { privateKey, publicKey } = keys[alg]!();
    tokenReplies.push(json(503, { error: 'temporarily_unavailable' }), issueToken);
    replies.push(json(200, envelope('service.runtime-context', {})));
    const jwk = privateKey.export({ format: 'jwk' });
    await runtime({ credentials: { privateKey: alg === 'EdDSA' ? jwk : privateKey, alg, keyId: 'k1' } }).getRuntimeContext();

    const requests = seen.filter((s) => s.path === '/api/product/v1/oauth/token').map((s) => new URLSearchParams(s.body));
    expect(requests).toHaveLength(2);
    const jtis = requests.map((form) => {
      expect(form.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      expect(form.get('client_secret')).toBeNull();
      const [header, payload, signature] = form.get('client_assertion')!.split('.');
      expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg, typ: 'JWT', kid: 'k1' });
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      expect(claims).toMatchObject({ iss: 'principal-1', sub: 'principal-1', aud: `${baseUrl}/api/product/v1/oauth/token` });
      expect(claims.exp - claims.iat).toBe(60);
      const data = Buffer.from(`${header}.${payload}`);
      const sig = Buffer.from(signature!, 'base64url');
      const valid =
        alg === 'EdDSA'
          ? verify(null, data, publicKey, sig)
          : alg === 'ES256'
            ? verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, sig)
            : alg === 'PS256'
              ? verify('sha256', data, { key: publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST }, sig)
              : verify('sha256', data, publicKey, sig);
      expect(valid).toBe(true);
      return claims.jti as string;
    });
    expect(new Set(jtis).size).toBe(2);
  });
});
