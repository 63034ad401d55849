import { publicBaseUrl, type Config } from '../config.ts';
import { createMailer, type Mailer } from '../net/mail.ts';
import { modelOf } from './model.ts';
import type { Database } from '../db/port.ts';
import type { ClientMetadataFetch } from '../domains/oauth/index.ts';
import type { Clock } from '../kernel/clock.ts';
import { createLogger, type Logger } from '../logger.ts';
import { createMetrics, type Metrics } from '../metrics.ts';
import { createHttpHandler, prepareHttpHandler, type HttpDependencies } from '../surfaces/gateway/http-app.ts';
import { metricsHandler } from '../surfaces/gateway/metrics-route.ts';
import type { AnyOperation } from '../surfaces/operations/operation.ts';
import { OPERATIONS } from '../surfaces/operations/table.ts';
import { runtimeCatalogueOf } from '../surfaces/product/routes.ts';
import { listen, type RunningServer } from '../surfaces/http/listen.ts';
import type { NodeHandler } from '../surfaces/http/node-exchange.ts';
import { readinessOf, type OpenedDatabase } from './database.ts';
import { instrumentDatabase } from './instrumented-database.ts';
import { searchSnapshotDirOf, searchSnapshotFiles } from './search-snapshots.ts';
import { startMaintenance } from './maintenance.ts';
import { startAutomationLoop } from './automation-loop.ts';
import type { WebhookTransport } from '../domains/automation/index.ts';
import { providerWiring } from './providers.ts';
import { createServices, type Services } from './services.ts';
import { VERSION } from './version.ts';

/** A cache that forgets what a notification names, and must be off while notifications may be missed. */
interface NotifiedCache {
  forget(payload: string): void;
  setEnabled(enabled: boolean): void;
}

/**
 * Keeps caches true to the database: changes made by any process arrive as notifications on `channel` and make the
 * caches forget what they name; while notifications may be missed, the caches are off. `what` names the
 * notifications in the log.
 */
async function listenForChanges(db: Database, channel: string, what: string, caches: readonly NotifiedCache[], logger: Logger): Promise<() => Promise<void>> {
  const stop = await db.listen(
    channel,
    (payload) => caches.forEach((cache) => cache.forget(payload)),
    (listening) => {
      caches.forEach((cache) => cache.setEnabled(listening));
      if (listening) logger.info({ channel }, `${what} notifications restored; caching again`);
      else logger.warn({ channel }, `${what} notifications lost; every request reads from the database until they return`);
    },
  );
  caches.forEach((cache) => cache.setEnabled(true));
  return stop;
}

/**
 * Listens for credential changes (migration 0003) and for changes of vaults, mappings and roles (migration 0007),
 * each on its own channel; resolves once both listen, and returns a function that stops both.
 */
async function listenForCacheNotices(db: Database, services: Services, logger: Logger): Promise<() => Promise<void>> {
  const credentials = services.credentialCaches.map((cache) => ({
    forget: (accountId: string) => cache.forgetAccount(accountId),
    setEnabled: (enabled: boolean) => cache.setEnabled(enabled),
  }));
  const stopCredentials = await listenForChanges(db, 'kgate_credentials', 'credential', credentials, logger);
  try {
    const authority = services.authorityCache;
    const stopVaults = await listenForChanges(
      db,
      'kgate_vaults',
      'vault',
      [{ forget: (payload) => authority.forgetNotice(payload), setEnabled: (enabled) => authority.setEnabled(enabled) }],
      logger,
    );
    return async () => {
      await stopVaults();
      await stopCredentials();
    };
  } catch (error) {
    await stopCredentials();
    throw error;
  }
}

/**
 * Brings notes stored by an older Markdown parser (or before it existed) up to date, after the server is up: search
 * and the link graph see such notes with empty text and no links until then. Stops between batches on shutdown.
 */
async function reindexInBackground(services: Services, logger: Logger, shouldStop: () => boolean): Promise<void> {
  try {
    const count = await services.notes.reindexStale(shouldStop);
    if (count > 0) logger.info({ notes: count }, 're-derived the Markdown model of notes stored by an older version');
  } catch (error) {
    logger.warn({ err: error }, 're-deriving the Markdown model of older notes failed; it is retried at the next start');
  }
}

/**
 * Compiles the knowledge of notes stored before compilation existed (or compiled by older rules), after the server is
 * up: until then such notes have no knowledge records. Applied changes compile themselves meanwhile; each batch takes
 * the vault's lock as they do. Stops between batches on shutdown; what is left is compiled at the next start.
 */
async function compileKnowledgeInBackground(services: Services, db: Database, logger: Logger, shouldStop: () => boolean): Promise<void> {
  try {
    const { notes, records } = await services.knowledge.compileBacklog(db, shouldStop);
    if (notes > 0) logger.info({ notes, records }, 'compiled the knowledge of notes stored before it or by older rules');
  } catch (error) {
    logger.warn({ err: error }, 'compiling the knowledge of older notes failed; it is retried at the next start');
  }
}

/** A started gateway. */
export interface Gateway {
  /** The address the server is bound to (http://127.0.0.1:PORT). */
  url: string;
  /** The public base URL: KGATE_BASE_URL, or http://localhost:PORT. OAuth issuer and resource derive from it. */
  baseUrl: string;
  services: Services;
  /** Where `GET /metrics` is served (KGATE_METRICS_PORT); undefined when it is not. */
  metricsUrl: string | undefined;
  /** Graceful stop: in-flight requests finish (up to the grace period), then the database closes. */
  stop(): Promise<void>;
}

/** What the HTTP surface gets from the wired services (also used by tests that build the app themselves). */
export function httpDependenciesOf(
  services: Services,
  db: Database,
  options: { logger: Logger; baseUrl: string; operations?: readonly AnyOperation[]; metrics?: Metrics; trustedProxies?: number; mailer?: Mailer },
): HttpDependencies {
  return {
    trustedProxies: options.trustedProxies ?? 0,
    mailer: options.mailer,
    logger: options.logger,
    metrics: options.metrics,
    tokens: services.tokens,
    oauth: services.oauth,
    usage: services.usage,
    idempotency: services.idempotency,
    services: {
      notes: services.notes,
      provenance: services.provenance,
      search: services.search,
      graph: services.graph,
      vaults: services.vaults,
      files: services.files,
      knowledge: services.knowledge,
      scopes: services.scopes,
      views: services.views,
      proposals: services.proposals,
      synthesis: services.synthesis,
      traces: services.traces,
      links: { baseUrl: options.baseUrl },
      runtime: services.runtime,
      packs: services.packs,
      media: services.media,
      models: services.models,
      educationRubrics: services.educationRubrics,
      educationConnections: services.educationConnections,
      automation: services.automation,
      webhooks: services.webhooks,
      runtimeCatalogue: runtimeCatalogueOf(options.operations ?? OPERATIONS, { chat: services.models.available, image: Boolean(services.models.identity?.imageModel) }),
    },
    runtimeCredentials: services.runtimeCredentials,
    runtimeAdmin: services.runtimeAdmin,
    vaults: services.vaults,
    connections: services.connections,
    remoteMappings: services.remoteMappings,
    sync: services.sync,
    readiness: readinessOf(db),
    version: VERSION,
    baseUrl: options.baseUrl,
    accounts: services.accounts,
    sessions: services.sessions,
    workspaces: services.workspaces,
    membership: services.membership,
    ...(options.operations ? { operations: options.operations } : {}),
  };
}

/**
 * Makes what the gateway can make before its database is open (the MCP tool list), so that `startGateway` does not
 * wait for it: `kgate serve` calls it while the database opens.
 */
export function prepareGateway(options: Pick<GatewayOptions, 'operations'> = {}): void {
  prepareHttpHandler(options.operations);
}

/** Options of `startGateway` beyond the configuration. */
export interface GatewayOptions {
  logger?: Logger;
  clock?: Clock;
  /** Replaces the guarded fetch of client ID metadata documents (tests trust their own certificate with it). */
  fetchClientMetadata?: ClientMetadataFetch;
  /** Serves this operation table instead of kgate's (tests add probe operations to the real one). */
  operations?: readonly AnyOperation[];
  /** Replaces how webhooks leave (tests trust their local receiver's certificate with it). */
  webhookTransport?: WebhookTransport;
  /** Replaces the webhook retry schedule (ms to wait after each failed attempt; tests shorten it). */
  webhookRetrySchedule?: readonly number[];
}

/** Starts the HTTP gateway over an opened database. */
export async function startGateway(config: Config, opened: OpenedDatabase, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // With PORT=0 and no KGATE_BASE_URL the public address is known only once the port is bound; everything that
  // publishes absolute URLs (OAuth metadata, the token audience) reads it through this holder.
  const base = { url: config.baseUrl ?? '' };
  // Metrics cost a few microseconds a request; a gateway that does not publish them does not keep them.
  const metrics = config.metrics ? createMetrics() : undefined;
  const db = metrics ? instrumentDatabase(opened.db, metrics) : opened.db;
  const services = createServices(db, options.clock, {
    publicBase: () => base.url,
    allowPrivateClientMetadata: config.oauth.allowPrivateClientMetadata,
    ...(options.fetchClientMetadata ? { fetchClientMetadata: options.fetchClientMetadata } : {}),
    noteCacheBytes: config.noteCacheBytes,
    vaultFileBytes: config.vaultFileBytes,
    providers: providerWiring(config.providers),
    media: config.media,
    webhooks: {
      allowPrivate: config.automation.allowPrivateWebhooks,
      ...(options.webhookTransport ? { transport: options.webhookTransport } : {}),
      ...(options.webhookRetrySchedule ? { retrySchedule: options.webhookRetrySchedule } : {}),
    },
    ...(config.model ? { model: { port: modelOf(config.model)!, timeoutMs: config.model.timeoutMs } } : {}),
    // The embedded database's data directory also keeps search indexes between runs (docs/search.md).
    ...(opened.dataDir !== undefined ? { searchSnapshots: searchSnapshotFiles(searchSnapshotDirOf(opened.dataDir)) } : {}),
  });
  if (metrics) {
    for (const [name, cache] of Object.entries(services.caches)) metrics.addCache(name, () => cache.counts());
    if (db.pool) metrics.addPool(() => db.pool!());
  }
  // Listen for changes before serving: a gateway that cannot must fail at start, not serve without them.
  const stopListening = await listenForCacheNotices(db, services, logger);
  const router: { handler?: NodeHandler } = {};
  let server: RunningServer;
  try {
    server = await listen(
      async (req, res) => {
        if (router.handler) return router.handler(req, res);
        res.writeHead(503, { 'Retry-After': '1' }).end();
      },
      { host: config.host, port: config.port, limits: config.http, logger },
    );
  } catch (error) {
    await stopListening();
    throw error;
  }
  let metricsServer: RunningServer | undefined;
  if (metrics && config.metrics) {
    try {
      metricsServer = await listen(metricsHandler(metrics), { host: config.metrics.host, port: config.metrics.port, logger });
    } catch (error) {
      await server.close(0);
      await stopListening();
      throw error;
    }
  }
  base.url ||= publicBaseUrl(config, server.url);
  router.handler = createHttpHandler(
    httpDependenciesOf(services, db, {
      logger,
      baseUrl: base.url,
      trustedProxies: config.trustedProxies,
      ...(config.mail ? { mailer: createMailer(config.mail) } : {}),
      ...(options.operations ? { operations: options.operations } : {}),
      ...(metrics ? { metrics } : {}),
    }),
  );
  const maintenance = startMaintenance(services, logger, db);
  const automationLoop = startAutomationLoop(services.automation, logger, config.automation.processIntervalMs);
  let stopRequested = false;
  // One background job at a time, so that requests compete with one: search and the graph's reindex first, then
  // knowledge (it parses each note itself, so it does not need the reindex, only a turn).
  const background = (async () => {
    await reindexInBackground(services, logger, () => stopRequested);
    if (!stopRequested) await compileKnowledgeInBackground(services, db, logger, () => stopRequested);
  })();
  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    baseUrl: base.url,
    services,
    metricsUrl: metricsServer ? `${metricsServer.url}/metrics` : undefined,
    stop() {
      stopping ??= (async () => {
        for (const timer of maintenance) clearInterval(timer);
        stopRequested = true;
        await server.close(config.shutdownGraceMs);
        await automationLoop.stop();
        await metricsServer?.close(0);
        await background;
        await stopListening();
        await services.usage.releaseLeases().catch((error: unknown) => logger.warn({ err: error }, 'returning usage leases failed'));
        await opened.close();
        logger.flush();
      })();
      return stopping;
    },
  };
}
