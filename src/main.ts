/**
 * Composition root: config -> database -> services -> surfaces -> listen. The only module (besides tests) that
 * picks a database adapter and wires domains together.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { publicBaseUrl, type Config } from './config.ts';
import { acquireDataDirLock, type DataDirLock } from './db/data-dir-lock.ts';
import { migrate, migrationStatus } from './db/migrate.ts';
import { openPglite } from './db/pglite.ts';
import type { Database } from './db/port.ts';
import { openPostgres } from './db/postgres.ts';
import { createAccountsService, type AccountsService } from './domains/accounts/index.ts';
import { createGraphService, type GraphService } from './domains/graph/index.ts';
import { createIdempotencyService, type IdempotencyService } from './domains/idempotency/index.ts';
import { createNotesService, type NotesService } from './domains/notes/index.ts';
import { createProvenanceService, type ProvenanceService } from './domains/provenance/index.ts';
import { createSearchService, type SearchService } from './domains/search/index.ts';
import { createSessionsService, type SessionsService } from './domains/sessions/index.ts';
import { createOAuthService, type ClientMetadataFetch, type OAuthCredentialRow, type OAuthService } from './domains/oauth/index.ts';
import { createGuardedFetch } from './net/guarded-fetch.ts';
import { createUsageService, type UsageService } from './domains/usage/index.ts';
import { createOnboardingService, type OnboardingService } from './domains/onboarding/index.ts';
import {
  createCredentialCache,
  createTokensService,
  type CredentialCache,
  type TokenCredentialRow,
  type TokensService,
} from './domains/tokens/index.ts';
import { createVaultsService, type VaultsService } from './domains/vaults/index.ts';
import { createWorkspacesService, type WorkspacesService } from './domains/workspaces/index.ts';
import { systemClock, type Clock } from './kernel/clock.ts';
import { KgateError } from './kernel/errors.ts';
import { createLogger, type Logger } from './logger.ts';
import { createHttpHandler, type HttpDependencies } from './surfaces/http/app.ts';
import type { ReadinessReport } from './surfaces/http/health-routes.ts';
import { listen, type RunningServer } from './surfaces/http/listen.ts';
import type { NodeHandler } from './surfaces/http/node-exchange.ts';

/** The version of this build, from package.json. */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

/** Every domain service, wired. */
export interface Services {
  accounts: AccountsService;
  workspaces: WorkspacesService;
  vaults: VaultsService;
  notes: NotesService;
  tokens: TokensService;
  onboarding: OnboardingService;
  idempotency: IdempotencyService;
  usage: UsageService;
  provenance: ProvenanceService;
  search: SearchService;
  graph: GraphService;
  sessions: SessionsService;
  oauth: OAuthService;
  /**
   * Resolved credentials in memory (personal access tokens, OAuth access tokens); enabled only by a gateway that
   * listens for credential notifications.
   */
  credentialCaches: readonly CredentialCache[];
}

/** An open database, migrated, with the lock that guards an embedded data directory. */
export interface OpenedDatabase {
  db: Database;
  /** True when this call created a new embedded database (an empty data directory). */
  fresh: boolean;
  close(): Promise<void>;
}

/** Where PGlite keeps its files inside KGATE_DATA_DIR (the lock file sits beside it). */
export function pgliteDirOf(dataDir: string): string {
  return join(dataDir, 'pglite');
}

/**
 * Opens the configured database and applies pending migrations. For the embedded database the data directory is
 * locked first: a second process gets a DataDirLockedError and never opens the files.
 */
export async function openDatabase(config: Config, command = 'kgate'): Promise<OpenedDatabase> {
  if (config.database.kind === 'postgres') {
    const db = await openPostgres({ connectionString: config.database.url, poolSize: config.database.poolSize }).catch(
      (error: Error) => {
        // pg's messages name host and port, never the password.
        throw new KgateError('unavailable', `Cannot connect to the PostgreSQL server of DATABASE_URL: ${error.message}`);
      },
    );
    try {
      await migrate(db);
    } catch (error) {
      await db.close();
      throw error;
    }
    return { db, fresh: false, close: () => db.close() };
  }
  const lock: DataDirLock = await acquireDataDirLock(config.database.dataDir, command);
  try {
    const dir = pgliteDirOf(config.database.dataDir);
    const fresh = !existsSync(join(dir, 'PG_VERSION'));
    const db = await openPglite({ dataDir: dir });
    await migrate(db);
    return {
      db,
      fresh,
      async close() {
        await db.close();
        await lock.release();
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Settings of the services that depend on where the gateway is reached. */
export interface ServiceOptions {
  /** The public base URL (e.g. https://kgate.example.com); a function because a port chosen at start is known late. */
  publicBase: () => string;
  /** Fetches OAuth client ID metadata documents; bounded and guarded against private addresses by default. */
  fetchClientMetadata?: ClientMetadataFetch;
  /** Development only: let client ID metadata documents live on loopback or private addresses. */
  allowPrivateClientMetadata?: boolean;
}

/** Wires every domain service over one database. */
export function createServices(
  db: Database,
  clock: Clock = systemClock,
  options: ServiceOptions = { publicBase: () => 'http://localhost:8787' },
): Services {
  const credentialCache = createCredentialCache<TokenCredentialRow>();
  const oauthCache = createCredentialCache<OAuthCredentialRow>();
  const credentialCaches = [credentialCache, oauthCache];
  const accounts = createAccountsService(db, {
    onAccessChanged: (accountId) => credentialCaches.forEach((cache) => cache.forgetAccount(accountId)),
  });
  const workspaces = createWorkspacesService(db);
  const vaults = createVaultsService(db, workspaces);
  const idempotency = createIdempotencyService(db);
  const notes = createNotesService(db, vaults, idempotency);
  const tokens = createTokensService(db, clock, credentialCache);
  const onboarding = createOnboardingService({ db, accounts, workspaces, vaults, tokens });
  const usage = createUsageService(db);
  const provenance = createProvenanceService(db, vaults);
  const search = createSearchService(db, vaults);
  const graph = createGraphService(db, vaults);
  const sessions = createSessionsService(db, clock, accounts);
  const oauth = createOAuthService(db, clock, {
    issuer: options.publicBase,
    resource: () => `${options.publicBase()}/api/mcp`,
    fetchClientMetadata:
      options.fetchClientMetadata ?? createGuardedFetch({ allowPrivateAddresses: options.allowPrivateClientMetadata ?? false }),
    cache: oauthCache,
  });
  return { accounts, workspaces, vaults, notes, tokens, onboarding, idempotency, usage, provenance, search, graph, sessions, oauth, credentialCaches };
}

/** The readiness probe over a database: reachable and at migration head. */
export function readinessOf(db: Database): () => Promise<ReadinessReport> {
  return async () => {
    try {
      await db.query('SELECT 1');
      const status = await migrationStatus(db);
      return { database: 'ok', migrations: { atHead: status.atHead, pending: status.pending } };
    } catch {
      return { database: 'unreachable', migrations: { atHead: false, pending: [] } };
    }
  };
}

// Expired idempotency keys and old minute counters are garbage; purging hourly keeps both tables small.
const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

// Units leased for a minute that has ended go back to the month counters within this interval.
const LEASE_SWEEP_INTERVAL_MS = 60 * 1000;

function startMaintenance(services: Services, logger: Logger): NodeJS.Timeout[] {
  const purge = setInterval(() => {
    Promise.all([
      services.idempotency.purgeExpired(),
      services.usage.purgeOldCounters(),
      services.sessions.purgeExpired(),
      services.oauth.purgeExpired(),
    ]).catch((error: unknown) =>
      logger.warn({ err: error }, 'maintenance failed'),
    );
  }, MAINTENANCE_INTERVAL_MS);
  const sweep = setInterval(() => {
    services.usage.releaseLeases({ expiredOnly: true }).catch((error: unknown) => logger.warn({ err: error }, 'returning usage leases failed'));
  }, LEASE_SWEEP_INTERVAL_MS);
  for (const timer of [purge, sweep]) timer.unref();
  return [purge, sweep];
}

/**
 * Keeps the credential cache true to the database: changes made by any process arrive as notifications (migration
 * 0003) and make the cache forget the account; while notifications may be missed, the cache is off.
 */
async function listenForCredentialChanges(
  db: Database,
  caches: readonly CredentialCache[],
  logger: Logger,
): Promise<() => Promise<void>> {
  const stop = await db.listen(
    'kgate_credentials',
    (accountId) => caches.forEach((cache) => cache.forgetAccount(accountId)),
    (listening) => {
      caches.forEach((cache) => cache.setEnabled(listening));
      if (listening) logger.info('credential notifications restored; caching credentials again');
      else logger.warn('credential notifications lost; every request reads credentials from the database until they return');
    },
  );
  caches.forEach((cache) => cache.setEnabled(true));
  return stop;
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

/** A started gateway. */
export interface Gateway {
  /** The address the server is bound to (http://127.0.0.1:PORT). */
  url: string;
  /** The public base URL: KGATE_BASE_URL, or http://localhost:PORT. OAuth issuer and resource derive from it. */
  baseUrl: string;
  services: Services;
  /** Graceful stop: in-flight requests finish (up to the grace period), then the database closes. */
  stop(): Promise<void>;
}

/** What the HTTP surface gets from the wired services (also used by tests that build the app themselves). */
export function httpDependenciesOf(services: Services, db: Database, options: { logger: Logger; baseUrl: string }): HttpDependencies {
  return {
    logger: options.logger,
    tokens: services.tokens,
    usage: services.usage,
    idempotency: services.idempotency,
    services: { notes: services.notes, provenance: services.provenance, search: services.search, graph: services.graph },
    vaults: services.vaults,
    readiness: readinessOf(db),
    version: VERSION,
    baseUrl: options.baseUrl,
    accounts: services.accounts,
    sessions: services.sessions,
    oauth: services.oauth,
  };
}

/** Options of `startGateway` beyond the configuration. */
export interface GatewayOptions {
  logger?: Logger;
  clock?: Clock;
  /** Replaces the guarded fetch of client ID metadata documents (tests trust their own certificate with it). */
  fetchClientMetadata?: ClientMetadataFetch;
}

/** Starts the HTTP gateway over an opened database. */
export async function startGateway(config: Config, opened: OpenedDatabase, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger(config.logLevel);
  // With PORT=0 and no KGATE_BASE_URL the public address is known only once the port is bound; everything that
  // publishes absolute URLs (OAuth metadata, the token audience) reads it through this holder.
  const base = { url: config.baseUrl ?? '' };
  const services = createServices(opened.db, options.clock, {
    publicBase: () => base.url,
    allowPrivateClientMetadata: config.oauth.allowPrivateClientMetadata,
    ...(options.fetchClientMetadata ? { fetchClientMetadata: options.fetchClientMetadata } : {}),
  });
  // Listen for credential changes before serving: a gateway that cannot must fail at start, not serve without them.
  const stopListening = await listenForCredentialChanges(opened.db, services.credentialCaches, logger);
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
  base.url ||= publicBaseUrl(config, server.url);
  router.handler = createHttpHandler(httpDependenciesOf(services, opened.db, { logger, baseUrl: base.url }));
  const maintenance = startMaintenance(services, logger);
  let stopRequested = false;
  const reindexing = reindexInBackground(services, logger, () => stopRequested);
  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    baseUrl: base.url,
    services,
    stop() {
      stopping ??= (async () => {
        for (const timer of maintenance) clearInterval(timer);
        stopRequested = true;
        await server.close(config.shutdownGraceMs);
        await reindexing;
        await stopListening();
        await services.usage.releaseLeases().catch((error: unknown) => logger.warn({ err: error }, 'returning usage leases failed'));
        await opened.close();
        logger.flush();
      })();
      return stopping;
    },
  };
}
