import { createRequire } from 'node:module';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLASSROOM_COURSES_SCOPE, CLASSROOM_COURSEWORK_SCOPE, CLASSROOM_ROSTERS_SCOPE, DRIVE_FILE_SCOPE } from '../src/domains/education/index.ts';
import {
  callConnections,
  connect,
  connectionsChain,
  connectionTables,
  consentAndReturn,
  plainTokens,
  startConnectionsGateway,
  type ConnectionsGateway,
} from './support/education-connections.ts';
import { expectRuntimeProblem, usageOf } from './support/runtime-checks.ts';
import { callRuntime } from './support/runtime-gateway.ts';

// Spec 4.7, docs/education.md "Delegated provider connections": a product starts a Google connection for its
// installation's customer, Google redirects to kgate's callback, which stores the grant sealed and sends the browser
// to a return target the product registered; status and disconnect. Refusals store nothing.

interface Started {
  authorizationUrl: string;
  expiresAt: string;
  scopes: string[];
}
interface ConnectionView {
  id: string;
  provider: string;
  status: string;
  services: { drive: boolean; classroom: boolean };
  scopes: string[];
  connectedAt: string | null;
  lastError: string | null;
}

const ALL_SCOPES = [DRIVE_FILE_SCOPE, CLASSROOM_COURSES_SCOPE, CLASSROOM_ROSTERS_SCOPE, CLASSROOM_COURSEWORK_SCOPE];

let gateway: ConnectionsGateway;

beforeAll(async () => {
  gateway = await startConnectionsGateway();
});

afterAll(async () => {
  await gateway?.stop();
});

async function start(token: string, json: Record<string, unknown>) {
  return callConnections<Started>(gateway, token, 'POST', '/google/authorizations', { json });
}

/** The query of the return target the callback answered with. */
function returned(answer: Response): URL {
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

async function expectRefusalPage(answer: Response): Promise<void> {
  expect(answer.status).toBe(400);
  expect(answer.headers.get('location')).toBeNull();
  expect(answer.headers.get('content-type')).toContain('text/html');
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(await answer.text()).toContain('The connection was not completed');
}

describe('connecting Google', () => {
  it('starts with PKCE S256, a fresh state and the least-privilege scopes, and returns to the registered target connected', async () => {
    const chain = await connectionsChain(gateway, 'connect');
    const before = await usageOf(gateway, chain.organization.id);
    const started = await start(chain.token, { services: ['classroom', 'drive'], returnTo: 'https://planner.example.com/after/connect?tab=2', state: 'product-state-1' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    expect(started.body).toMatchObject({ kind: 'service.connection-authorization', status: 'ok' });
    expect(started.body.receipts).toHaveLength(1);
    expect(await usageOf(gateway, chain.organization.id)).toBe(before + 1);
    const url = new URL(started.body.data.authorizationUrl);
    expect(`${url.origin}${url.pathname}`).toBe(gateway.google.urls.authorize);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      client_id: gateway.google.clientId,
      redirect_uri: gateway.callbackUrl,
      response_type: 'code',
      code_challenge_method: 'S256',
      access_type: 'offline',
    });
    expect(url.searchParams.get('scope')!.split(' ').sort()).toEqual([...ALL_SCOPES].sort());
    expect(started.body.data.scopes.sort()).toEqual([...ALL_SCOPES].sort());
    expect(url.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The state is kept only as its hash.
    const [stored] = await gateway.db.query<{ state_hash: string; code_verifier_enc: string }>('SELECT state_hash, code_verifier_enc FROM education_connection_authorizations');
    expect(stored!.state_hash).not.toContain(url.searchParams.get('state'));
    expect(stored!.code_verifier_enc).toMatch(/^v1\.test1\./);

    const { callback, answer } = await consentAndReturn(gateway, started.body.data.authorizationUrl);
    const back = returned(answer);
    expect(`${back.origin}${back.pathname}`).toBe('https://planner.example.com/after/connect');
    expect(Object.fromEntries(back.searchParams)).toEqual({
      tab: '2',
      status: 'connected',
      connectionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      services: 'drive,classroom',
      state: 'product-state-1',
    });
    expect(answer.headers.get('x-service-runtime-version')).toBeNull();
    const connectionId = back.searchParams.get('connectionId')!;

    const status = await callConnections<ConnectionView>(gateway, chain.token, 'GET', `/${connectionId}`);
    expect(status.status).toBe(200);
    expect(status.body.data).toMatchObject({ id: connectionId, provider: 'google', status: 'active', services: { drive: true, classroom: true }, lastError: null });
    expect(status.body.data.scopes.sort()).toEqual([...ALL_SCOPES].sort());
    const list = await callConnections<{ connections: ConnectionView[] }>(gateway, chain.token, 'GET', '');
    expect(list.body.data.connections.map((c) => c.id)).toEqual([connectionId]);

    // Tokens are sealed at rest and appear in no answer and no log line; neither do the code and the state.
    const tokens = await plainTokens(gateway, connectionId);
    expect(tokens.refresh).toBeTruthy();
    const [row] = await gateway.db.query<{ access_token_enc: string; refresh_token_enc: string }>('SELECT access_token_enc, refresh_token_enc FROM education_connections WHERE id = $1', [connectionId]);
    expect(row!.access_token_enc).toMatch(/^v1\.test1\./);
    expect(row!.access_token_enc).not.toContain(tokens.access);
    // (The state is in the authorization URL by design; it goes to Google and back, never to a log or the return target.)
    const seen = [JSON.stringify(status.body), JSON.stringify(list.body), answer.headers.get('location')!, ...gateway.logs].join('\n');
    for (const secret of [tokens.access, tokens.refresh!, callback.searchParams.get('code')!, callback.searchParams.get('state')!]) {
      expect(seen).not.toContain(secret);
    }
    for (const secret of [tokens.access, tokens.refresh!, callback.searchParams.get('code')!]) expect(JSON.stringify(started.body)).not.toContain(secret);
    // The authorization was taken: nothing is left of it.
    expect(await gateway.db.query('SELECT 1 FROM education_connection_authorizations')).toEqual([]);
  });

  it('returns to a registered exact redirect URI, and records only the scopes Google granted', async () => {
    const chain = await connectionsChain(gateway, 'exact');
    gateway.google.consent = { grantOnly: [DRIVE_FILE_SCOPE] };
    try {
      const started = await start(chain.token, { services: ['drive', 'classroom'], returnTo: 'https://tutor.example.org/oauth/done' });
      const back = returned((await consentAndReturn(gateway, started.body.data.authorizationUrl)).answer);
      expect(`${back.origin}${back.pathname}`).toBe('https://tutor.example.org/oauth/done');
      expect(back.searchParams.get('services')).toBe('drive');
      expect(back.searchParams.has('state')).toBe(false);
      const status = await callConnections<ConnectionView>(gateway, chain.token, 'GET', `/${back.searchParams.get('connectionId')}`);
      expect(status.body.data).toMatchObject({ scopes: [DRIVE_FILE_SCOPE], services: { drive: true, classroom: false } });
    } finally {
      gateway.google.consent = {};
    }
  });

  it('asks Google only for what the services need', async () => {
    const chain = await connectionsChain(gateway, 'least');
    const drive = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/' });
    expect(new URL(drive.body.data.authorizationUrl).searchParams.get('scope')).toBe(DRIVE_FILE_SCOPE);
    const classroom = await start(chain.token, { services: ['classroom', 'classroom'], returnTo: 'https://planner.example.com/' });
    expect(new URL(classroom.body.data.authorizationUrl).searchParams.get('scope')!.split(' ')).toEqual([CLASSROOM_COURSES_SCOPE, CLASSROOM_ROSTERS_SCOPE, CLASSROOM_COURSEWORK_SCOPE]);
  });

  it('sends a declined consent back to the product as denied, storing no connection', async () => {
    const chain = await connectionsChain(gateway, 'denied');
    gateway.google.consent = { deny: true };
    try {
      const started = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/back', state: 's' });
      const back = returned((await consentAndReturn(gateway, started.body.data.authorizationUrl)).answer);
      expect(Object.fromEntries(back.searchParams)).toEqual({ status: 'denied', error: 'access_denied', state: 's' });
      expect((await callConnections<{ connections: unknown[] }>(gateway, chain.token, 'GET', '')).body.data.connections).toEqual([]);
    } finally {
      gateway.google.consent = {};
    }
  });

  it('reconnecting keeps the connection and gives it the new grant', async () => {
    const chain = await connectionsChain(gateway, 'reconnect');
    const first = await connect(gateway, chain, ['drive']);
    const disconnected = await callConnections<ConnectionView>(gateway, chain.token, 'POST', `/${first}/disconnect`);
    expect(disconnected.body.data.status).toBe('revoked');
    const second = await connect(gateway, chain, ['drive', 'classroom']);
    expect(second).toBe(first);
    const status = await callConnections<ConnectionView>(gateway, chain.token, 'GET', `/${first}`);
    expect(status.body.data).toMatchObject({ status: 'active', services: { drive: true, classroom: true }, lastError: null });
  });
});

describe('refused return targets and states', () => {
  it('refuses a return target the product did not register, storing nothing and consuming its unit only', async () => {
    const chain = await connectionsChain(gateway, 'target');
    const before = await connectionTables(gateway);
    const refusals = [
      () => start(chain.token, { services: ['drive'], returnTo: 'https://evil.example/steal' }),
      () => start(chain.token, { services: ['drive'], returnTo: 'https://tutor.example.org/oauth/done/extra' }),
      () => start(chain.token, { services: ['drive'], returnTo: 'http://planner.example.com/' }),
      () => start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com.evil.example/' }),
    ];
    for (const refusal of refusals) {
      const answer = await refusal();
      expect(expectRuntimeProblem(answer, 400, 'invalid_request').details).toEqual({ field: 'returnTo' });
    }
    const malformed = [
      () => start(chain.token, { services: [], returnTo: 'https://planner.example.com/' }),
      () => start(chain.token, { services: ['email'], returnTo: 'https://planner.example.com/' }),
      () => start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/', state: 'x'.repeat(513) }),
      () => start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/', scopes: ['https://www.googleapis.com/auth/drive'] }),
    ];
    for (const refusal of malformed) expectRuntimeProblem(await refusal(), 400, 'invalid_request');
    expect(await connectionTables(gateway)).toBe(before);
  });

  it('refuses at the callback a target the product stopped registering, with its own page and nothing stored', async () => {
    const chain = await connectionsChain(gateway, 'unregistered');
    const started = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/back' });
    await gateway.services.runtimeAdmin.updateProduct(chain.orgAdmin.accountId, chain.product.id, { returnOrigins: ['https://tutor.example.org/oauth/done'] });
    const { answer } = await consentAndReturn(gateway, started.body.data.authorizationUrl);
    await expectRefusalPage(answer);
    expect(await gateway.db.query('SELECT 1 FROM education_connections WHERE installation_id = $1', [chain.installation.id])).toEqual([]);
  });

  it('refuses at the callback an installation uninstalled since the authorization started, storing nothing', async () => {
    const chain = await connectionsChain(gateway, 'uninstalled');
    const started = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/back' });
    await gateway.services.runtimeAdmin.uninstall(chain.customer.accountId, chain.installation.id);
    const exchanges = gateway.google.requests.filter((r) => r.path === '/token').length;
    const { answer } = await consentAndReturn(gateway, started.body.data.authorizationUrl);
    await expectRefusalPage(answer);
    expect(gateway.google.requests.filter((r) => r.path === '/token').length).toBe(exchanges);
    expect(await gateway.db.query('SELECT 1 FROM education_connections WHERE installation_id = $1', [chain.installation.id])).toEqual([]);
  });

  it('answers a state once: a replay, a changed or missing state and an expired one get the refusal page', async () => {
    const chain = await connectionsChain(gateway, 'replay');
    const tokenRequests = () => gateway.google.requests.filter((r) => r.method === 'POST' && r.path === '/token').length;
    const started = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/' });
    const { callback, answer } = await consentAndReturn(gateway, started.body.data.authorizationUrl);
    expect(answer.status).toBe(303);
    const exchanges = tokenRequests();
    const afterFirst = await connectionTables(gateway);
    // The same redirect again (a replay): refused, no second exchange, nothing changed.
    await expectRefusalPage(await fetch(callback, { redirect: 'manual' }));
    expect(tokenRequests()).toBe(exchanges);
    expect(await connectionTables(gateway)).toBe(afterFirst);

    const other = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/' });
    const consent = await fetch(other.body.data.authorizationUrl, { redirect: 'manual' });
    const redirect = new URL(consent.headers.get('location')!);
    const pending = await connectionTables(gateway);
    const changed = new URL(redirect);
    changed.searchParams.set('state', `${redirect.searchParams.get('state')!.slice(0, -2)}AA`);
    await expectRefusalPage(await fetch(changed, { redirect: 'manual' }));
    const missing = new URL(redirect);
    missing.searchParams.delete('state');
    await expectRefusalPage(await fetch(missing, { redirect: 'manual' }));
    const long = new URL(redirect);
    long.searchParams.set('state', 'x'.repeat(201));
    await expectRefusalPage(await fetch(long, { redirect: 'manual' }));
    expect(tokenRequests()).toBe(exchanges);
    expect(await connectionTables(gateway)).toBe(pending);
    // The real state still works once: a wrong one did not consume it.
    expect((await fetch(redirect, { redirect: 'manual' })).status).toBe(303);

    const late = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/' });
    const lateConsent = await fetch(late.body.data.authorizationUrl, { redirect: 'manual' });
    gateway.clock.advance(10 * 60 * 1000 + 1000);
    try {
      const beforeLate = await gateway.db.query('SELECT * FROM education_connections ORDER BY id');
      await expectRefusalPage(await fetch(lateConsent.headers.get('location')!, { redirect: 'manual' }));
      expect(await gateway.db.query('SELECT * FROM education_connections ORDER BY id')).toEqual(beforeLate);
    } finally {
      gateway.clock.advance(-(10 * 60 * 1000 + 1000));
    }
  });

  it('sends a code that does not match its PKCE verifier back as an error, storing no connection', async () => {
    const chain = await connectionsChain(gateway, 'mismatch');
    const first = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/' });
    const second = await start(chain.token, { services: ['drive'], returnTo: 'https://planner.example.com/' });
    const codeOfFirst = new URL((await fetch(first.body.data.authorizationUrl, { redirect: 'manual' })).headers.get('location')!).searchParams.get('code')!;
    const redirectOfSecond = new URL((await fetch(second.body.data.authorizationUrl, { redirect: 'manual' })).headers.get('location')!);
    redirectOfSecond.searchParams.set('code', codeOfFirst);
    const back = returned(await fetch(redirectOfSecond, { redirect: 'manual' }));
    expect(Object.fromEntries(back.searchParams)).toEqual({ status: 'error', error: 'exchange_failed' });
    expect(await gateway.db.query('SELECT 1 FROM education_connections WHERE installation_id = $1', [chain.installation.id])).toEqual([]);
  });
});

describe('status, disconnect and authority', () => {
  it("does not show or change another installation's connection", async () => {
    const owner = await connectionsChain(gateway, 'owner');
    const other = await connectionsChain(gateway, 'other');
    const connectionId = await connect(gateway, owner, ['drive']);
    const before = await connectionTables(gateway);
    expectRuntimeProblem(await callConnections(gateway, other.token, 'GET', `/${connectionId}`), 404, 'not_found');
    expectRuntimeProblem(await callConnections(gateway, other.token, 'POST', `/${connectionId}/disconnect`), 404, 'not_found');
    expect((await callConnections<{ connections: unknown[] }>(gateway, other.token, 'GET', '')).body.data.connections).toEqual([]);
    expectRuntimeProblem(await callConnections(gateway, owner.token, 'GET', `/00000000-0000-4000-8000-000000000000`), 404, 'not_found');
    expect(await connectionTables(gateway)).toBe(before);
    expect(gateway.google.activeGrants()).toBeGreaterThan(0);
  });

  it('needs connections.manage for every lifecycle route: refused before anything is stored or counted', async () => {
    const owner = await connectionsChain(gateway, 'scoped-owner');
    const connectionId = await connect(gateway, owner, ['drive']);
    const executeOnly = await connectionsChain(gateway, 'execute-only', ['connections.execute']);
    const before = await connectionTables(gateway);
    const used = await usageOf(gateway, executeOnly.organization.id);
    const calls = [
      () => start(executeOnly.token, { services: ['drive'], returnTo: 'https://planner.example.com/' }),
      () => callConnections(gateway, executeOnly.token, 'GET', ''),
      () => callConnections(gateway, executeOnly.token, 'GET', `/${connectionId}`),
      () => callConnections(gateway, executeOnly.token, 'POST', `/${connectionId}/disconnect`),
    ];
    for (const call of calls) {
      const answer = await call();
      expect(expectRuntimeProblem(answer, 403, 'insufficient_scope').details).toEqual({ scope: 'connections.manage' });
      expect(answer.body.receipts).toEqual([]);
    }
    expect(await usageOf(gateway, executeOnly.organization.id)).toBe(used);
    expect(await connectionTables(gateway)).toBe(before);
  });

  it('disconnects: the grant is revoked at Google, the tokens dropped; again changes nothing', async () => {
    const chain = await connectionsChain(gateway, 'disconnect');
    const connectionId = await connect(gateway, chain, ['drive']);
    const grants = gateway.google.activeGrants();
    const revokes = () => gateway.google.requests.filter((r) => r.path === '/revoke').length;
    const before = revokes();
    const answer = await callConnections<ConnectionView>(gateway, chain.token, 'POST', `/${connectionId}/disconnect`);
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ id: connectionId, status: 'revoked', lastError: 'Disconnected by the product.' });
    expect(gateway.google.activeGrants()).toBe(grants - 1);
    expect(revokes()).toBe(before + 1);
    const [row] = await gateway.db.query<Record<string, unknown>>('SELECT access_token_enc, refresh_token_enc, access_expires_at FROM education_connections WHERE id = $1', [connectionId]);
    expect(row).toEqual({ access_token_enc: null, refresh_token_enc: null, access_expires_at: null });
    const again = await callConnections<ConnectionView>(gateway, chain.token, 'POST', `/${connectionId}/disconnect`);
    expect(again.body.data.status).toBe('revoked');
    expect(revokes()).toBe(before + 1);
  });
});

describe('what the runtime publishes', () => {
  it('lists the connection routes in the OpenAPI document (not the callback) and reports the capabilities available', async () => {
    const document = (await (await fetch(`${gateway.url}/api/product/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const validation = await new Validator().validate(document);
    expect(validation.errors).toBeUndefined();
    // Every schema of the connection routes is valid JSON Schema 2020-12 (Ajv, as the validator itself runs it).
    const fromValidator = createRequire(createRequire(import.meta.url).resolve('@seriousme/openapi-schema-validator'));
    const Ajv2020 = (fromValidator('ajv/dist/2020') as { default: new (options: object) => { validateSchema(schema: unknown): boolean } }).default;
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    (fromValidator('ajv-formats') as { default: (ajv: unknown) => void }).default(ajv);
    type Op = { parameters?: Array<{ schema: unknown }>; requestBody?: { content: Record<string, { schema: unknown }> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
    const schemas = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/product/v1/connections'))
      .flatMap(([, item]) => Object.values(item as unknown as Record<string, Op>))
      .flatMap((op) => [
        ...(op.parameters ?? []).map((p) => p.schema),
        ...Object.values(op.requestBody?.content ?? {}).map((m) => m.schema),
        ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {}).map((m) => m.schema)),
      ]);
    expect(schemas.length).toBeGreaterThan(40);
    for (const schema of schemas) expect(ajv.validateSchema(schema), JSON.stringify(schema).slice(0, 200)).toBe(true);
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith('/api/product/v1/connections'))
      .flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`))
      .sort();
    expect(operations).toEqual([
      'GET /api/product/v1/connections listConnections',
      'GET /api/product/v1/connections/{connectionId} getConnection',
      'GET /api/product/v1/connections/{connectionId}/classroom/courses listClassroomCourses',
      'GET /api/product/v1/connections/{connectionId}/classroom/courses/{courseId}/assignments/{courseWorkId}/submissions listClassroomSubmissions',
      'GET /api/product/v1/connections/{connectionId}/classroom/courses/{courseId}/students listClassroomStudents',
      'POST /api/product/v1/connections/google/authorizations startGoogleConnection',
      'POST /api/product/v1/connections/{connectionId}/classroom/courses/{courseId}/assignments createClassroomAssignment',
      'POST /api/product/v1/connections/{connectionId}/disconnect disconnectConnection',
      'POST /api/product/v1/connections/{connectionId}/drive/files createDriveFile',
      'POST /api/product/v1/connections/{connectionId}/drive/files/{fileId} updateDriveFile',
      'POST /api/product/v1/connections/{connectionId}/drive/imports importDriveFolder',
    ]);
    const chain = await connectionsChain(gateway, 'catalogue');
    const capabilities = await callRuntime<{ capabilities: Array<{ id: string; availability: string }> }>(gateway, chain.token, 'GET', '/api/product/v1/capabilities');
    const connections = capabilities.body.data.capabilities.filter((c) => c.id.startsWith('connections.'));
    expect(connections).toEqual([
      expect.objectContaining({ id: 'connections.manage', availability: 'available' }),
      expect.objectContaining({ id: 'connections.drive', availability: 'available' }),
      expect.objectContaining({ id: 'connections.classroom', availability: 'available' }),
    ]);
  });
});
