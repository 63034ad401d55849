import { Hono } from 'hono';
import type { HttpEnv } from '../http/context.ts';
import { problemResponse } from '../http/problem.ts';

/** Result of a readiness probe. */
export interface ReadinessReport {
  database: 'ok' | 'unreachable';
  migrations: { atHead: boolean; pending: string[] };
}

/** Checks that the process can serve: the database answers and its schema is at the migrations' head. */
export type ReadinessCheck = () => Promise<ReadinessReport>;

/**
 * `GET /healthz`: the process is up (no I/O, for liveness probes). `GET /readyz`: the database is reachable and
 * migrated (for readiness probes and load balancers); 503 with a problem document otherwise.
 */
export function healthRoutes(readiness: ReadinessCheck, version: string): Hono<HttpEnv> {
  const routes = new Hono<HttpEnv>();
  routes.get('/healthz', (c) => c.json({ status: 'ok', version }));
  routes.get('/readyz', async (c) => {
    const report = await readiness();
    if (report.database === 'ok' && report.migrations.atHead) return c.json({ status: 'ready', ...report });
    const detail =
      report.database !== 'ok' ? 'The database is unreachable.' : 'Database migrations are not at head.';
    return problemResponse(c, 'unavailable', detail, { checks: report });
  });
  return routes;
}
