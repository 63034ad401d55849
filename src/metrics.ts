import client from 'prom-client';

/** Hits and misses of an in-memory cache since it was made. */
export interface CacheCounts {
  hits: number;
  misses: number;
}

/** Connections of a database pool right now. */
export interface PoolCounts {
  total: number;
  idle: number;
  waiting: number;
}

/**
 * What one gateway process reports to an operator in the Prometheus text format (docs/operations.md lists each
 * metric and what to alert on). Each gateway has its own registry, so that two gateways in one process (tests)
 * never share counts.
 */
export interface Metrics {
  /** One answered HTTP request: `route` is the route's pattern (never the raw path, which would hold note names). */
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  /** One database statement or transaction, and whether it failed. */
  observeDatabase(kind: 'query' | 'transaction', seconds: number, failed: boolean): void;
  /** A call refused before it ran (plan, scope, rate or monthly limit), by surface and stable code. */
  countRefusal(surface: string, code: string): void;
  /** Reports a cache's counts at every scrape. */
  addCache(name: string, counts: () => CacheCounts): void;
  /** Reports a pool's connections at every scrape (server PostgreSQL). */
  addPool(counts: () => PoolCounts): void;
  /** The text a scrape returns, and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

// Latency buckets from 1 ms to 10 s: requests answered from memory sit at the bottom, applied writes near 100 ms.
const SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Makes the metrics of one gateway process, with Node's default process metrics (event-loop delay included). */
export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'kgate_', eventLoopMonitoringPrecision: 10 });
  const requests = new client.Histogram({
    name: 'kgate_http_request_duration_seconds',
    help: 'HTTP requests by route pattern, method and status, and how long they took',
    labelNames: ['route', 'method', 'status'],
    buckets: SECONDS,
    registers: [registry],
  });
  const database = new client.Histogram({
    name: 'kgate_db_duration_seconds',
    help: 'Database statements and transactions, and how long they took (waiting for a connection included)',
    labelNames: ['kind', 'outcome'],
    buckets: SECONDS,
    registers: [registry],
  });
  const refusals = new client.Counter({
    name: 'kgate_refusals_total',
    help: 'Calls refused before they ran: plan, scope, rate and monthly limits',
    labelNames: ['surface', 'code'],
    registers: [registry],
  });
  const caches = new Map<string, () => CacheCounts>();
  new client.Counter({
    name: 'kgate_cache_lookups_total',
    help: 'Lookups of in-memory caches, by cache and result (hit or miss)',
    labelNames: ['cache', 'result'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [name, counts] of caches) {
        const { hits, misses } = counts();
        this.inc({ cache: name, result: 'hit' }, hits);
        this.inc({ cache: name, result: 'miss' }, misses);
      }
    },
  });
  const pools: Array<() => PoolCounts> = [];
  new client.Gauge({
    name: 'kgate_db_pool_connections',
    help: 'Connections of the PostgreSQL pool: open, idle, and requests waiting for one',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const counts of pools) {
        const { total, idle, waiting } = counts();
        this.inc({ state: 'open' }, total);
        this.inc({ state: 'idle' }, idle);
        this.inc({ state: 'waiting' }, waiting);
      }
    },
  });
  return {
    observeRequest: (route, method, status, seconds) => requests.observe({ route, method, status: String(status) }, seconds),
    observeDatabase: (kind, seconds, failed) => database.observe({ kind, outcome: failed ? 'error' : 'ok' }, seconds),
    countRefusal: (surface, code) => refusals.inc({ surface, code }),
    addCache: (name, counts) => void caches.set(name, counts),
    addPool: (counts) => void pools.push(counts),
    async render() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
