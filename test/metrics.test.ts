/**
 * The operator's metrics: `GET /metrics` on its own port (KGATE_METRICS_PORT), in the Prometheus text format, with
 * requests by route pattern, refusals, database time, cache lookups and Node's process metrics.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENGINE } from './support/database.ts';
import { createOwner, type Owner } from './support/fixtures.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';
import { mcpRequest } from './support/mcp-bearer-requests.ts';
import { restClient } from './support/rest-client.ts';

/** The value of one sample line (`name{labels} value`), or undefined when the scrape has no such line. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.lastIndexOf('}'));
    if (wanted.every((pair) => inside.split(',').includes(pair))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('GET /metrics', () => {
  let gateway: TestGateway;
  let owner: Owner;
  let scrape: string;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { KGATE_METRICS_PORT: '0' } });
    owner = await createOwner(gateway.services, 'metrics');
    const rest = restClient(gateway, owner.token);
    expect((await rest.get('/mappings')).status).toBe(200);
    expect((await rest.get('/mappings')).status).toBe(200);
    expect((await rest.get('/notes', { query: { mappingId: owner.mapping.id } })).status).toBe(200);
    expect((await rest.get('/no-such-thing-private-name')).status).toBe(404);
    expect((await rest.get('/mappings', { token: null })).status).toBe(401);
    const free = await createOwner(gateway.services, 'metrics-free');
    await gateway.services.accounts.setPlan(free.accountId, 'free');
    expect((await restClient(gateway, free.token).get('/mappings')).status).toBe(403);
    expect((await mcpRequest(gateway, owner.token, 'tools/call', { name: 'list_vaults', arguments: {} })).status).toBe(200);
    const response = await fetch(gateway.metricsUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    scrape = await response.text();
  });
  afterAll(() => gateway.stop());

  it('counts requests by route pattern, method and status, on both the REST and the MCP routes', () => {
    const count = (route: string, status: string) => sample(scrape, 'kgate_http_request_duration_seconds_count', { route, method: 'GET', status });
    expect(count('/api/dev/mappings', '200')).toBe(2);
    expect(count('/api/dev/notes', '200')).toBe(1);
    expect(count('/api/dev/mappings', '401')).toBe(1);
    expect(sample(scrape, 'kgate_http_request_duration_seconds_count', { route: '/api/mcp', method: 'POST', status: '200' })).toBe(1);
    // A path that matched no route is counted under one label, and never named: paths hold note and folder names.
    expect(count('(unmatched)', '404')).toBeGreaterThanOrEqual(1);
    expect(scrape).not.toContain('no-such-thing-private-name');
  });

  it('counts refusals before execution by surface and stable code', () => {
    expect(sample(scrape, 'kgate_refusals_total', { surface: 'rest', code: 'unauthenticated' })).toBe(1);
    expect(sample(scrape, 'kgate_refusals_total', { surface: 'rest', code: 'plan_required' })).toBe(1);
  });

  it('reports database time, cache lookups and the event-loop delay', () => {
    expect(sample(scrape, 'kgate_db_duration_seconds_count', { kind: 'query', outcome: 'ok' })).toBeGreaterThan(0);
    const hits = sample(scrape, 'kgate_cache_lookups_total', { cache: 'personal_access_tokens', result: 'hit' });
    const misses = sample(scrape, 'kgate_cache_lookups_total', { cache: 'personal_access_tokens', result: 'miss' });
    // The owner's token is read from the database once, then served from memory.
    expect(misses).toBeGreaterThanOrEqual(1);
    expect(hits).toBeGreaterThanOrEqual(3);
    expect(scrape).toMatch(/^kgate_nodejs_eventloop_lag_p99_seconds \d/m);
    if (TEST_ENGINE === 'postgres') expect(sample(scrape, 'kgate_db_pool_connections', { state: 'open' })).toBeGreaterThan(0);
  });

  it('never shows a token or its hash', () => {
    expect(scrape).not.toContain(owner.token);
    expect(scrape).not.toContain(owner.token.slice(4, 20));
    expect(scrape).not.toContain(createHash('sha256').update(owner.token).digest('hex').slice(0, 16));
  });

  it('serves only GET /metrics, and only on its own port', async () => {
    const base = gateway.metricsUrl!.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(gateway.metricsUrl!, { method: 'POST' })).status).toBe(405);
    const onApiPort = await fetch(`${gateway.url}/metrics`);
    expect(onApiPort.status).toBe(404);
    expect(await onApiPort.text()).not.toContain('kgate_http_request_duration_seconds');
  });
});

describe('a gateway without KGATE_METRICS_PORT', () => {
  it('serves no metrics anywhere', async () => {
    const gateway = await startTestGateway();
    try {
      expect(gateway.metricsUrl).toBeUndefined();
      expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);
    } finally {
      await gateway.stop();
    }
  });
});
