/**
 * A started gateway that also serves the workspace's file pages (src/surfaces/web/file-pages.ts) and hands the
 * files service to the operations, whether or not the composition root wires them yet: the real HTTP handler over
 * the real services, with the file pages in front of it on the same origin (so that a note page's images load
 * from them with the same session). Once wired, the gateway's own routes answer the same requests the same way.
 */
import { Hono } from 'hono';
import { getRequestListener } from '@hono/node-server';
import { httpDependenciesOf } from '../../src/app/gateway.ts';
import { createServices } from '../../src/app/services.ts';
import { createFilesService, type FilesService } from '../../src/domains/files/index.ts';
import { systemClock } from '../../src/kernel/clock.ts';
import { createLogger } from '../../src/logger.ts';
import { createHttpApp } from '../../src/surfaces/gateway/http-app.ts';
import type { HttpEnv } from '../../src/surfaces/http/context.ts';
import { listen } from '../../src/surfaces/http/listen.ts';
import type { NodeHandler } from '../../src/surfaces/http/node-exchange.ts';
import { createPipeline } from '../../src/surfaces/invocation/pipeline.ts';
import type { OperationServices } from '../../src/surfaces/operations/operation.ts';
import { filePages } from '../../src/surfaces/web/file-pages.ts';
import { openTestDatabase } from './database.ts';
import type { TestGateway } from './gateway.ts';

/** A gateway with its files service. */
export interface FilesWebGateway extends TestGateway {
  files: FilesService;
}

/** Starts the gateway with the file pages over a fresh test database. */
export async function startFilesWebGateway(): Promise<FilesWebGateway> {
  const { db } = await openTestDatabase();
  const base = { url: '' };
  const services = createServices(db, systemClock, { publicBase: () => base.url });
  const files = createFilesService(db, services.vaults, { idempotency: services.idempotency });
  const router: { handler?: NodeHandler } = {};
  const server = await listen((req, res) => router.handler!(req, res), { host: '127.0.0.1', port: 0 });
  base.url = server.url;
  const deps = httpDependenciesOf(services, db, { logger: createLogger('silent'), baseUrl: server.url });
  // Why the cast: `files` is the member the composition root adds to the operation services (file-operations.ts reads it so).
  (deps.services as OperationServices & { files?: FilesService }).files = files;
  const pipeline = createPipeline(deps);
  const app = new Hono<HttpEnv>();
  app.route('/', filePages({ baseUrl: () => server.url, sessions: services.sessions, tokens: services.tokens, pipeline, files }));
  app.route('/', createHttpApp(deps, pipeline));
  const listener = getRequestListener(app.fetch);
  router.handler = async (req, res) => {
    await listener(req, res);
  };
  return {
    url: server.url,
    baseUrl: server.url,
    services,
    metricsUrl: undefined,
    logs: [],
    db,
    files,
    async stop() {
      await server.close(1000);
      await db.close();
    },
  };
}
