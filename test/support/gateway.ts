import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway, type GatewayOptions } from '../../src/app/gateway.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { openTestDatabase } from './database.ts';

/** A real gateway on a free port over a fresh test database, with its log lines captured. */
export interface TestGateway extends Gateway {
  logs: string[];
  db: Awaited<ReturnType<typeof openTestDatabase>>['db'];
}

/** Options of `startTestGateway`. */
export interface TestGatewayOptions {
  clock?: Clock;
  /** Replaces the guarded fetch of OAuth client ID metadata documents (e.g. one that trusts a test certificate). */
  fetchClientMetadata?: GatewayOptions['fetchClientMetadata'];
  /** More environment for the configuration, e.g. KGATE_BASE_URL. */
  env?: Record<string, string>;
  /**
   * Serve over this (another gateway's) database instead of a fresh one: two processes sharing one database. The
   * gateway then leaves it open when it stops; its owner closes it.
   */
  database?: TestGateway['db'];
  /** Serve this operation table instead of kgate's (to add probe operations). */
  operations?: GatewayOptions['operations'];
  /** Deliver webhooks through this transport (e.g. one that trusts a local receiver's certificate). */
  webhookTransport?: GatewayOptions['webhookTransport'];
}

/** Starts the gateway as `kgate serve` would, but in-process, on port 0, with a test database. */
export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const db = options.database ?? (await openTestDatabase()).db;
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({ PORT: '0', KGATE_SHUTDOWN_GRACE_MS: '2000', ...options.env });
  const gateway = await startGateway(
    config,
    { db, fresh: false, close: options.database ? async () => {} : () => db.close() },
    {
      logger: createLogger('info', sink),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.fetchClientMetadata ? { fetchClientMetadata: options.fetchClientMetadata } : {}),
      ...(options.operations ? { operations: options.operations } : {}),
      ...(options.webhookTransport ? { webhookTransport: options.webhookTransport } : {}),
    },
  );
  return { ...gateway, logs, db };
}
