/**
 * A started gateway serving delegated provider connections, wired as the composition root will wire them (the lead
 * adds the service to the operation services, the operations to the table and the callback route before the
 * Product Runtime): the real services over a test database, the connections service against the fake Google (the
 * Drive fake's OAuth server and API, and the Classroom fake), the connection operations added to kgate's table, and
 * the callback route mounted before everything else. Plus a product chain whose product registered return targets.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { expect } from 'vitest';
import { httpDependenciesOf } from '../../src/app/gateway.ts';
import { createProviderHttp } from '../../src/app/provider-http.ts';
import { createServices } from '../../src/app/services.ts';
import { createEducationConnectionsService, type EducationConnectionsService } from '../../src/domains/education/index.ts';
import { createTokenSealer, type TokenSealer } from '../../src/domains/providers/index.ts';
import type { RuntimeScope } from '../../src/domains/runtime/index.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { createHttpApp } from '../../src/surfaces/gateway/http-app.ts';
import { listen } from '../../src/surfaces/http/listen.ts';
import type { NodeHandler } from '../../src/surfaces/http/node-exchange.ts';
import { OPERATIONS } from '../../src/surfaces/operations/table.ts';
import { GOOGLE_CONNECTION_CALLBACK_PATH, googleConnectionCallback } from '../../src/surfaces/product/connection-callback.ts';
import { startClassroomFake, type ClassroomFake, type ClassroomFakeOptions } from '../fakes/classroom/index.ts';
import { startDriveFake, type DriveFake } from '../fakes/drive/index.ts';
import { openTestDatabase } from './database.ts';
import type { TestGateway } from './gateway.ts';
import { callRuntime, createRuntimeChain, runtimeToken, type RuntimeAnswer, type RuntimeChainSetup } from './runtime-gateway.ts';

/** The connections' own clock: the wall clock moved forward on demand (token expiry, wall-time bounds). */
export interface SteppedClock extends Clock {
  advance(ms: number): void;
}

/** A gateway with delegated connections, and the fakes of Google behind it. */
export interface ConnectionsGateway extends TestGateway {
  connections: EducationConnectionsService;
  /** Google: the OAuth server (consent, token, revocation) and Drive. */
  google: DriveFake;
  /** Google Classroom, taking the tokens of the OAuth server above. */
  classroom: ClassroomFake;
  clock: SteppedClock;
  /** The sealer of the connections' tokens (tests open envelopes to look for the plain tokens elsewhere). */
  sealer: TokenSealer;
  /** The callback URL registered with Google. */
  callbackUrl: string;
}

/** Options of {@link startConnectionsGateway}. */
export interface ConnectionsGatewayOptions {
  /** Settings of the Classroom fake (its tokens are always the OAuth fake's). */
  classroom?: Omit<ClassroomFakeOptions, 'checkToken'>;
}

/** The wall clock, moved forward by `advance`. */
export function steppedClock(): SteppedClock {
  let offset = 0;
  return { now: () => new Date(Date.now() + offset), advance: (ms) => void (offset += ms) };
}

/** Starts the gateway with its connections service over a fresh test database. */
export async function startConnectionsGateway(options: ConnectionsGatewayOptions = {}): Promise<ConnectionsGateway> {
  const { db } = await openTestDatabase();
  // Registered with Google once the gateway's address is known (the fake reads the list on every consent).
  const redirectUris: string[] = [];
  const google = await startDriveFake({ redirectUris, maxPageSize: 3 });
  const classroom = await startClassroomFake({ maxPageSize: 2, ...options.classroom, checkToken: (token) => google.checkToken(token) });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const logger = createLogger('info', sink);
  // The handler is made once the address is known: the callback URL registered with Google is built from it.
  const handler: { serve?: NodeHandler } = {};
  const server = await listen((req, res) => handler.serve!(req, res), { host: '127.0.0.1', port: 0 });
  const base = server.url;
  const callbackUrl = `${base}${GOOGLE_CONNECTION_CALLBACK_PATH}`;
  redirectUris.push(callbackUrl);
  const clock = steppedClock();
  const services = createServices(db, undefined, { publicBase: () => base });
  const sealer = createTokenSealer([{ id: 'test1', key: randomBytes(32) }]);
  const connections = createEducationConnectionsService({
    db,
    clock,
    http: createProviderHttp({ allowPrivateAddresses: true, allowInsecureHttp: true }),
    sealer,
    google: {
      clientId: google.clientId,
      clientSecret: google.clientSecret,
      urls: google.urls,
      classroomApi: classroom.origin,
    },
    callbackUrl: () => callbackUrl,
    sleep: () => Promise.resolve(),
  });
  const operations = OPERATIONS;
  const deps = httpDependenciesOf(services, db, { logger, baseUrl: base, operations });
  const app = new Hono();
  // This test's connections service (fake Google, no waits) answers the callback: mounted before the app's own.
  app.route('/', googleConnectionCallback({ educationConnections: connections }));
  app.route('/', createHttpApp({ ...deps, services: { ...deps.services, educationConnections: connections } }));
  handler.serve = getRequestListener(app.fetch);
  return {
    url: base,
    baseUrl: base,
    services,
    metricsUrl: undefined,
    logs,
    db,
    connections,
    google,
    classroom,
    clock,
    sealer,
    callbackUrl,
    async stop() {
      await server.close(2000);
      await classroom.close();
      await google.close();
      await db.close();
    },
  };
}

/** A product chain whose product registered `returnOrigins`; the principal holds `scopes`. */
export async function connectionsChain(
  gateway: ConnectionsGateway,
  label: string,
  scopes: RuntimeScope[] = ['connections.manage', 'connections.execute'],
  returnOrigins: string[] = ['https://planner.example.com', 'https://tutor.example.org/oauth/done'],
): Promise<RuntimeChainSetup & { token: string }> {
  const chain = await createRuntimeChain(gateway, label, { scopes });
  await gateway.services.runtimeAdmin.updateProduct(chain.orgAdmin.accountId, chain.product.id, { returnOrigins });
  return { ...chain, token: await runtimeToken(gateway, chain) };
}

/** Follows an authorization URL as the customer's browser would: Google's consent, then kgate's callback. */
export async function consentAndReturn(gateway: ConnectionsGateway, authorizationUrl: string): Promise<{ callback: URL; answer: Response }> {
  const consent = await fetch(authorizationUrl, { redirect: 'manual' });
  expect(consent.status, await consent.clone().text()).toBe(302);
  const callback = new URL(consent.headers.get('location')!);
  expect(`${callback.origin}${callback.pathname}`).toBe(gateway.callbackUrl);
  const answer = await fetch(callback, { redirect: 'manual' });
  return { callback, answer };
}

/** Starts and completes a connection for `services`; answers the connection id. */
export async function connect(
  gateway: ConnectionsGateway,
  chain: { token: string },
  services: Array<'drive' | 'classroom'> = ['drive', 'classroom'],
): Promise<string> {
  const started = await callRuntime<{ authorizationUrl: string }>(gateway, chain.token, 'POST', '/api/product/v1/connections/google/authorizations', {
    json: { services, returnTo: 'https://planner.example.com/connected' },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const { answer } = await consentAndReturn(gateway, started.body.data.authorizationUrl);
  expect(answer.status).toBe(303);
  const back = new URL(answer.headers.get('location')!);
  expect(back.searchParams.get('status')).toBe('connected');
  return back.searchParams.get('connectionId')!;
}

/** Every row of the connection tables, for "nothing changed" assertions. */
export async function connectionTables(gateway: Pick<TestGateway, 'db'>): Promise<string> {
  const parts: unknown[] = [];
  for (const table of ['education_connections', 'education_connection_authorizations', 'education_provider_intents']) {
    parts.push(await gateway.db.query(`SELECT * FROM ${table} ORDER BY 1`));
  }
  return JSON.stringify(parts);
}

/** The runtime call of a route under /api/product/v1/connections. */
export function callConnections<D = Record<string, unknown>>(
  gateway: ConnectionsGateway,
  token: string | null,
  method: 'GET' | 'POST',
  path: string,
  options: { json?: unknown; headers?: Record<string, string | null> } = {},
): Promise<RuntimeAnswer<D>> {
  return callRuntime<D>(gateway, token, method, `/api/product/v1/connections${path}`, options);
}

/** The plain tokens of a connection, opened from its row (to prove they appear nowhere else). */
export async function plainTokens(gateway: ConnectionsGateway, connectionId: string): Promise<{ access: string; refresh: string | null }> {
  const [row] = await gateway.db.query<{ installation_id: string; customer_account_id: string; access_token_enc: string; refresh_token_enc: string | null }>(
    'SELECT installation_id, customer_account_id, access_token_enc, refresh_token_enc FROM education_connections WHERE id = $1',
    [connectionId],
  );
  const context = (field: string) => `education-connection:${connectionId}:${row!.installation_id}:${row!.customer_account_id}:${field}`;
  return {
    access: gateway.sealer.open(row!.access_token_enc, context('access')),
    refresh: row!.refresh_token_enc === null ? null : gateway.sealer.open(row!.refresh_token_enc, context('refresh')),
  };
}
