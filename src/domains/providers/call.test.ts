import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProviderHttp } from '../../app/provider-http.ts';
import { createProviderCall, retryAfterMs, type ProviderBudget } from './call.ts';
import { ProviderError, type ProviderUrls } from './port.ts';

// The bounded call every adapter sends through, against a real local HTTP server that answers from a script.
let server: Server;
let urls: ProviderUrls;
let script: Array<{ status: number; headers?: Record<string, string>; body?: string }> = [];
const seen: Array<{ path: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const next = script.shift() ?? { status: 200, body: '{}' };
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(next.body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  urls = { api: origin, content: origin, authorize: `${origin}/authorize`, token: `${origin}/token`, revoke: `${origin}/revoke` };
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const http = createProviderHttp({ allowPrivateAddresses: true, allowInsecureHttp: true });
const roomy: ProviderBudget = { maxRequests: 20, maxBytes: 1024 * 1024, wallMs: 10_000 };

function callWith(budget: ProviderBudget = roomy, transient: (status: number) => number | null = () => null) {
  const waits: number[] = [];
  let refreshes = 0;
  const call = createProviderCall({
    urls,
    http,
    adapter: { transientDelay: (response) => transient(response.status) },
    token: { current: () => Promise.resolve('first-token'), refresh: () => Promise.resolve(`refreshed-${(refreshes += 1)}`) },
    budget,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
    random: () => 0.5,
  });
  return { call, waits, refreshes: () => refreshes };
}

describe('a provider call', () => {
  it('sends the bearer token and waits out Retry-After on 429 and 503, then answers', async () => {
    script = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 503 }, { status: 200, body: '{"ok":true}' }];
    seen.length = 0;
    const { call, waits } = callWith();
    const response = await call.send({ method: 'GET', url: `${urls.api}/files` });
    expect(response.status).toBe(200);
    expect(waits[0]).toBe(2000);
    // No Retry-After on the 503: backoff with jitter (half of 250 ms doubled once, with random 0.5).
    expect(waits[1]).toBe(250);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer first-token', 'Bearer first-token', 'Bearer first-token']);
    expect(call.spent).toMatchObject({ requests: 3, retries: 2 });
  });

  it('refreshes once after a 401 and sends again with the new token; a second 401 is answered, not looped', async () => {
    script = [{ status: 401 }, { status: 200 }];
    seen.length = 0;
    const first = callWith();
    expect((await first.call.send({ method: 'GET', url: `${urls.api}/a` })).status).toBe(200);
    expect(seen.map((s) => s.authorization)).toEqual(['Bearer first-token', 'Bearer refreshed-1']);
    script = [{ status: 401 }, { status: 401 }];
    const second = callWith();
    expect((await second.call.send({ method: 'GET', url: `${urls.api}/b` })).status).toBe(401);
    expect(second.refreshes()).toBe(1);
  });

  it('stops at its request budget with budget_exhausted naming the bound', async () => {
    script = [{ status: 503 }, { status: 503 }, { status: 503 }];
    const { call } = callWith({ ...roomy, maxRequests: 2 });
    await expect(call.send({ method: 'GET', url: `${urls.api}/c` })).rejects.toMatchObject({ code: 'budget_exhausted', details: { bound: 'requests' } });
  });

  it('stops at its byte budget, and a rate limit longer than it may wait is rate_limited with the wait', async () => {
    script = [{ status: 200, body: JSON.stringify({ big: 'x'.repeat(4000) }) }];
    const small = callWith({ ...roomy, maxBytes: 1000 });
    await expect(small.call.send({ method: 'GET', url: `${urls.api}/d` })).rejects.toBeInstanceOf(ProviderError);
    script = [{ status: 429, headers: { 'retry-after': '3600' } }];
    const limited = callWith();
    await expect(limited.call.send({ method: 'GET', url: `${urls.api}/e` })).rejects.toMatchObject({ code: 'rate_limited', details: { retryAfterMs: 3_600_000 } });
    expect(limited.waits).toEqual([]);
  });

  it('does not repeat a request marked once after a server error, and honours the adapter’s own transient answers', async () => {
    script = [{ status: 500 }];
    const once = callWith();
    expect((await once.call.send({ method: 'POST', url: `${urls.api}/create`, body: '{}', once: true })).status).toBe(500);
    expect(once.call.spent.requests).toBe(1);
    script = [{ status: 403 }, { status: 200 }];
    const own = callWith(roomy, (status) => (status === 403 ? 1500 : null));
    expect((await own.call.send({ method: 'GET', url: `${urls.api}/f` })).status).toBe(200);
    expect(own.waits).toEqual([1500]);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-26T09:00:00Z');
    expect(retryAfterMs('7', now)).toBe(7000);
    expect(retryAfterMs('Thu, 26 Nov 2026 09:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('soon', now)).toBeNull();
    expect(retryAfterMs(undefined, now)).toBeNull();
  });
});
