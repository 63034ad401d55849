import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

// The automation gateway is mounted under the Developer REST API's prefix: a request that neither serves must still
// be answered (once the automation API has read its body, the REST API must not wait to read it again).
describe('routing under /api/dev/automation', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { KGATE_AUTOMATION_PROCESS_MS: '0' } });
  });
  afterAll(() => gateway.stop());

  const send = (method: string, path: string, body?: string) =>
    fetch(`${gateway.url}${path}`, {
      method,
      ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      signal: AbortSignal.timeout(10_000),
    });

  it('answers an unknown route or method with a body as not_found, without waiting for the body twice', async () => {
    for (const [method, path] of [
      ['POST', '/api/dev/automation/nope'],
      ['PUT', '/api/dev/automation/triggers/x'],
      ['POST', '/api/dev/automation/runs'],
    ] as const) {
      const response = await send(method, path, JSON.stringify({ a: 1 }));
      expect({ method, path, status: response.status }).toEqual({ method, path, status: 404 });
      expect(((await response.json()) as { code: string }).code).toBe('not_found');
    }
  });

  it('serves its own document at both addresses without a token', async () => {
    const served = (await (await send('GET', '/api/dev/automation/openapi.json')).json()) as { info: { title: string } };
    const copy = (await (await send('GET', '/openapi/automation.json')).json()) as { info: { title: string } };
    expect(served.info.title).toBe('kgate Automation Gateway');
    expect(copy).toEqual(served);
  });
});
