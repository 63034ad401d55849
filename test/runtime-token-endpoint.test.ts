import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/db/port.ts';
import { createRuntimeCredentialsService, JWT_BEARER_ASSERTION_TYPE, type RuntimeCredentialsService } from '../src/domains/runtime/credentials/index.ts';
import { sha256Hex } from '../src/kernel/hashing.ts';
import { createLogger } from '../src/logger.ts';
import type { HttpEnv } from '../src/surfaces/http/context.ts';
import { listen, type RunningServer } from '../src/surfaces/http/listen.ts';
import { requestLog } from '../src/surfaces/http/request-log.ts';
import { RUNTIME_TOKEN_PATH, runtimeTokenRoute } from '../src/surfaces/product/token-endpoint.ts';
import { openTestDatabase } from './support/database.ts';
import { signAssertion, testKeyPair, type TestKeyPair } from './support/runtime-assertions.ts';
import { credentialTablesSnapshot, insertRuntimeChain } from './support/runtime-records.ts';

/**
 * POST /api/product/v1/oauth/token over HTTP, on a real server with the request log the gateway uses: OAuth JSON
 * answers, no caching, bounded bodies, and no secret in any log line.
 */
describe('the Product Runtime token endpoint', () => {
  let db: Database;
  let server: RunningServer;
  let service: RuntimeCredentialsService;
  let endpoint: string;
  let principalId: string;
  let secret: string;
  let rsa: TestKeyPair;
  let ec: TestKeyPair;
  const logs: string[] = [];
  const shown: string[] = [];

  beforeAll(async () => {
    ({ db } = await openTestDatabase());
    service = createRuntimeCredentialsService(db, { tokenEndpointUrl: () => endpoint });
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const app = new Hono<HttpEnv>();
    app.use('*', requestLog(createLogger('info', sink)));
    app.route('/', runtimeTokenRoute(service));
    const handler = getRequestListener(app.fetch);
    server = await listen(async (req, res) => handler(req, res), { host: '127.0.0.1', port: 0 });
    endpoint = `${server.url}${RUNTIME_TOKEN_PATH}`;

    const chain = await insertRuntimeChain(db);
    ({ id: principalId } = await service.createPrincipal(chain.adminAccountId, chain.installationId, { name: 'sync', scopes: ['media.read', 'notes.publish'] }));
    ({ secret } = await service.addClientSecret(chain.adminAccountId, principalId));
    [rsa, ec] = await Promise.all([testKeyPair('RS256'), testKeyPair('ES256')]);
    await service.addPublicKey(chain.adminAccountId, principalId, { jwk: rsa.publicJwk, keyId: 'rsa' });
    await service.addPublicKey(chain.adminAccountId, principalId, { jwk: ec.publicJwk, keyId: 'ec' });
    shown.push(secret);
  });
  afterAll(async () => {
    await server.close(1000);
    await db.close();
  });

  const post = (body: string, headers: Record<string, string> = {}, url = endpoint) =>
    fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers } });
  const basic = (id: string, value: string) => `Basic ${Buffer.from(`${id}:${value}`).toString('base64')}`;
  const now = () => Math.floor(Date.now() / 1000);

  async function expectToken(response: Response, scope = 'media.read notes.publish') {
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { access_token: string };
    expect(body).toEqual({ access_token: expect.stringMatching(/^kgrp_/), token_type: 'Bearer', expires_in: 900, scope });
    shown.push(body.access_token);
    await expect(service.authenticate(body.access_token)).resolves.toMatchObject({ principalId });
  }

  async function expectError(response: Response, status: number, error: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toEqual({ error, error_description: expect.any(String) });
    return response;
  }

  it('issues a token to each client authentication method', async () => {
    await expectToken(await post('grant_type=client_credentials', { authorization: basic(principalId, secret) }));
    await expectToken(await post(new URLSearchParams({ grant_type: 'client_credentials', client_id: principalId, client_secret: secret, scope: 'media.read' }).toString()), 'media.read');
    for (const [key, kid] of [[rsa, 'rsa'], [ec, 'ec']] as const) {
      const assertion = await signAssertion(key, { clientId: principalId, audience: endpoint, now: now(), kid });
      shown.push(assertion);
      await expectToken(await post(new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: assertion }).toString()));
    }
  });

  it('answers refusals as RFC 6749 JSON, with the Basic challenge only when Basic was used, issuing nothing', async () => {
    const before = await credentialTablesSnapshot(db);
    const wrong = `kgcs_${'B'.repeat(43)}`;
    const basicFailure = await expectError(await post('grant_type=client_credentials', { authorization: basic(principalId, wrong) }), 401, 'invalid_client');
    expect(basicFailure.headers.get('www-authenticate')).toBe('Basic realm="kgate"');
    const postFailure = await expectError(await post(`grant_type=client_credentials&client_id=${principalId}&client_secret=${wrong}`), 401, 'invalid_client');
    expect(postFailure.headers.get('www-authenticate')).toBeNull();
    await expectError(await post(`grant_type=client_credentials&client_id=${principalId}&client_secret=${secret}`, { authorization: basic(principalId, secret) }), 400, 'invalid_request');
    await expectError(await post(`grant_type=refresh_token&client_id=${principalId}&client_secret=${secret}`), 400, 'unsupported_grant_type');
    await expectError(await post(`grant_type=client_credentials&client_id=${principalId}&client_secret=${secret}&scope=media.write`), 400, 'invalid_scope');
    const replayed = await signAssertion(ec, { clientId: principalId, audience: endpoint, now: now(), jti: 'http-once' });
    const assertionBody = new URLSearchParams({ grant_type: 'client_credentials', client_assertion_type: JWT_BEARER_ASSERTION_TYPE, client_assertion: replayed }).toString();
    await expectToken(await post(assertionBody));
    const afterFirst = await credentialTablesSnapshot(db);
    await expectError(await post(assertionBody), 400, 'invalid_grant');
    expect(await credentialTablesSnapshot(db)).toBe(afterFirst);
    // Personal, OAuth and session credentials are not client credentials.
    await expectError(await post('grant_type=client_credentials', { authorization: `Bearer kgp_${'A'.repeat(36)}` }), 401, 'invalid_client');
    expect(afterFirst).not.toBe(before);
  });

  it('refuses bodies that are not a bounded form, and parameters in the URL', async () => {
    const before = await credentialTablesSnapshot(db);
    const form = `grant_type=client_credentials&client_id=${principalId}&client_secret=${secret}`;
    await expectError(await post(form, { 'content-type': 'application/json' }), 400, 'invalid_request');
    await expectError(await post(`${form}&padding=${'x'.repeat(17 * 1024)}`), 413, 'invalid_request');
    await expectError(await post('grant_type=client_credentials', { authorization: basic(principalId, secret) }, `${endpoint}?client_secret=${secret}`), 400, 'invalid_request');
    const get = await fetch(endpoint);
    await expectError(get, 405, 'invalid_request');
    expect(get.headers.get('allow')).toBe('POST');
    expect(await credentialTablesSnapshot(db)).toBe(before);
    expect(await db.query('SELECT 1 FROM runtime_access_tokens WHERE token_hash = $1', [sha256Hex(secret)])).toEqual([]);
  });

  it('writes one request line per call, and never a token, secret or assertion', () => {
    const lines = logs.map((line) => JSON.parse(line) as { path?: string; status?: number; msg?: string });
    const tokenLines = lines.filter((line) => line.path === RUNTIME_TOKEN_PATH);
    expect(tokenLines.length).toBeGreaterThan(10);
    expect(tokenLines.map((line) => line.status)).toEqual(expect.arrayContaining([200, 400, 401, 405, 413]));
    const everything = logs.join('\n');
    expect(shown.length).toBeGreaterThan(5);
    for (const value of shown) expect(everything).not.toContain(value);
    expect(everything).not.toMatch(/kgrp_|kgcs_/);
  });
});
