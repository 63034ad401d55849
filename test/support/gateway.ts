import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { startGateway, type Gateway } from '../../src/main.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import { openTestDatabase } from './database.ts';

/** A real gateway on a free port over a fresh test database, with its log lines captured. */
export interface TestGateway extends Gateway {
  logs: string[];
  db: Awaited<ReturnType<typeof openTestDatabase>>['db'];
}

/** Starts the gateway as `kgate serve` would, but in-process, on port 0, with a test database. */
export async function startTestGateway(options: { clock?: Clock } = {}): Promise<TestGateway> {
  const { db } = await openTestDatabase();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const config = loadConfig({ PORT: '0', KGATE_SHUTDOWN_GRACE_MS: '2000' });
  const gateway = await startGateway(
    config,
    { db, fresh: false, close: () => db.close() },
    { logger: createLogger('info', sink), ...(options.clock ? { clock: options.clock } : {}) },
  );
  return { ...gateway, logs, db };
}
