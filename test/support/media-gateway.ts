/**
 * A started gateway that serves private media over a media store of the test's choosing (the database by default, a
 * directory, or the fake S3 server), with the Product Runtime helpers to upload and download as a product does. It
 * is the real HTTP handler over the real services; only the media service is the test's, so that every store can
 * be tested through the same routes.
 */
import { randomUUID } from 'node:crypto';
import { httpDependenciesOf } from '../../src/app/gateway.ts';
import { createServices } from '../../src/app/services.ts';
import type { Database } from '../../src/db/port.ts';
import { createMediaService, databaseMediaStore, type MediaService, type MediaStore } from '../../src/domains/media/index.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { createHttpHandler } from '../../src/surfaces/gateway/http-app.ts';
import { listen } from '../../src/surfaces/http/listen.ts';
import type { NodeHandler } from '../../src/surfaces/http/node-exchange.ts';
import { EDUCATION_MEDIA_OPERATIONS } from '../../src/surfaces/operations/education-media-operations.ts';
import { OPERATIONS } from '../../src/surfaces/operations/table.ts';
import { openTestDatabase } from './database.ts';
import type { TestGateway } from './gateway.ts';
import { createRuntimeChain, runtimeToken, type Envelope, type RuntimeChainSetup } from './runtime-gateway.ts';

/** The upload route and the download route's prefix. */
export const AUDIO_PATH = '/api/product/v1/intelligence/education/media/audio';
export const MEDIA_PATH = '/api/product/v1/intelligence/education/media';

/** A gateway with its media service. */
export interface MediaGateway extends TestGateway {
  media: MediaService;
}

/** Starts the gateway over a fresh test database; `store` makes the media store (default: the database). */
export async function startMediaGateway(options: { store?: (db: Database) => MediaStore } = {}): Promise<MediaGateway> {
  const { db } = await openTestDatabase();
  const base = { url: '' };
  const services = createServices(db, systemClock, { publicBase: () => base.url });
  const media = createMediaService({ db, store: (options.store ?? databaseMediaStore)(db), clock: systemClock });
  // The table with the media operations, whether or not the lead has wired them into it yet.
  const operations = EDUCATION_MEDIA_OPERATIONS.every((op) => OPERATIONS.includes(op)) ? OPERATIONS : [...OPERATIONS, ...EDUCATION_MEDIA_OPERATIONS];
  const router: { handler?: NodeHandler } = {};
  const server = await listen((req, res) => router.handler!(req, res), { host: '127.0.0.1', port: 0 });
  base.url = server.url;
  const deps = httpDependenciesOf(services, db, { logger: createLogger('silent'), baseUrl: server.url, operations });
  deps.services.media = media;
  router.handler = createHttpHandler(deps);
  return {
    url: server.url,
    baseUrl: server.url,
    services,
    metricsUrl: undefined,
    logs: [],
    db,
    media,
    async stop() {
      await server.close(1000);
      await db.close();
    },
  };
}

/** A chain whose principal holds both media scopes, and its token. */
export async function mediaChain(gateway: MediaGateway, label: string): Promise<{ chain: RuntimeChainSetup; token: string }> {
  const chain = await createRuntimeChain(gateway, label, { scopes: ['media.write', 'media.read'] });
  return { chain, token: await runtimeToken(gateway, chain) };
}

/** Another customer's installation of the same product (same organization), with a principal holding both media scopes. */
export async function otherInstallation(gateway: MediaGateway, chain: RuntimeChainSetup): Promise<string> {
  const { runtimeAdmin, runtimeCredentials, onboarding } = gateway.services;
  const customer = await onboarding.bootstrapOwner({ email: `other-${randomUUID().slice(0, 8)}@example.test` });
  const installation = await runtimeAdmin.install(customer.accountId, chain.product.slug);
  const principal = await runtimeCredentials.createPrincipal(chain.orgAdmin.accountId, installation.id, { name: 'other backend', scopes: ['media.write', 'media.read'] });
  const secret = await runtimeCredentials.addClientSecret(chain.orgAdmin.accountId, principal.id);
  return runtimeToken(gateway, { principalId: principal.id, clientSecret: secret.secret });
}

/** What an upload answered. */
export interface UploadAnswer {
  status: number;
  headers: Headers;
  body: Envelope;
}

/** An upload's headers; `null` leaves one out. */
export interface UploadOptions {
  reference?: string | null;
  duration?: string | null;
  contentType?: string | null;
  key?: string | null;
  headers?: Record<string, string>;
}

/** Uploads bytes as a product does: the raw body, the facts in headers, a fresh Idempotency-Key unless told. */
export async function upload(gateway: Pick<TestGateway, 'url'>, token: string | null, bytes: Uint8Array, options: UploadOptions = {}): Promise<UploadAnswer> {
  const wanted: Record<string, string | null> = {
    'X-Service-Runtime-Version': '1',
    Authorization: token === null ? null : `Bearer ${token}`,
    'Content-Type': options.contentType === undefined ? 'audio/webm' : options.contentType,
    'X-Service-Media-Reference': options.reference === undefined ? 'recording-1' : options.reference,
    'X-Service-Media-Duration': options.duration === undefined ? '1.5' : options.duration,
    'Idempotency-Key': options.key === undefined ? randomUUID() : options.key,
    ...options.headers,
  };
  const headers = Object.fromEntries(Object.entries(wanted).filter((entry): entry is [string, string] => entry[1] !== null));
  const response = await fetch(`${gateway.url}${AUDIO_PATH}`, { method: 'POST', headers, body: bytes });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Envelope };
}

/** What a download answered: the bytes, or the envelope of a refusal. */
export interface DownloadAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  /** The envelope, when the answer is JSON. */
  body?: Envelope;
}

/** Downloads a media object, with extra headers (Range, If-Range). */
export async function download(gateway: Pick<TestGateway, 'url'>, token: string | null, mediaId: string, headers: Record<string, string> = {}): Promise<DownloadAnswer> {
  const response = await fetch(`${gateway.url}${MEDIA_PATH}/${mediaId}`, {
    headers: { 'X-Service-Runtime-Version': '1', ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...headers },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = response.headers.get('content-type')?.startsWith('application/json');
  return { status: response.status, headers: response.headers, bytes, ...(json ? { body: JSON.parse(bytes.toString('utf8')) as Envelope } : {}) };
}

/** What private media holds, for "nothing changed" checks: rows, stored bytes, and what the organization has used. */
export async function mediaState(gateway: Pick<MediaGateway, 'db' | 'media'>, organizationId: string): Promise<{ objects: number; blobs: number; used: number }> {
  const [objects] = await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM media_objects WHERE organization_id = $1', [organizationId]);
  const [blobs] = await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM media_blobs WHERE key LIKE $1', [`${organizationId}/%`]);
  return { objects: objects!.n, blobs: blobs!.n, used: await gateway.media.usedBytes(organizationId) };
}
