import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

describe('health, readiness and request ids', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.stop());

  it('GET /healthz says the process is up', async () => {
    const response = await fetch(`${gateway.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', version: expect.any(String) });
  });

  it('GET /readyz checks the database and the migrations', async () => {
    const response = await fetch(`${gateway.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      database: 'ok',
      migrations: { atHead: true, pending: [] },
    });
  });

  it('GET /readyz answers 503 unavailable when the schema is behind', async () => {
    const [latest] = await gateway.db.query<{ version: string }>(
      'SELECT version FROM schema_migrations ORDER BY version DESC LIMIT 1',
    );
    const [row] = await gateway.db.query('DELETE FROM schema_migrations WHERE version = $1 RETURNING *', [latest!.version]);
    try {
      const response = await fetch(`${gateway.url}/readyz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({
        code: 'unavailable',
        checks: { database: 'ok', migrations: { atHead: false, pending: [latest!.version] } },
      });
    } finally {
      await gateway.db.query('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)', [
        row!.version,
        row!.name,
        row!.checksum,
        row!.applied_at,
      ]);
    }
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const kept = await fetch(`${gateway.url}/healthz`, { headers: { 'x-request-id': 'trace-123.abc' } });
    expect(kept.headers.get('x-request-id')).toBe('trace-123.abc');
    const replaced = await fetch(`${gateway.url}/healthz`, { headers: { 'x-request-id': 'a"b\\c{}'.repeat(30) } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('unknown routes get a 404 problem document', async () => {
    const response = await fetch(`${gateway.url}/no/such/route`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'not_found', status: 404 });
  });
});
