import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRATIONS_PER_ADDRESS, REGISTRATION_WINDOW_MS } from '../src/domains/oauth/index.ts';
import type { Clock } from '../src/kernel/clock.ts';
import { startTestGateway, type TestGateway } from './support/gateway.ts';

/**
 * Dynamic client registration (RFC 7591) is limited per client address. The gateway trusts one proxy, so each test
 * registers from its own X-Forwarded-For address; a movable clock stands in for waiting out the window.
 */
describe('dynamic client registration is rate-limited per client address', () => {
  let gateway: TestGateway;
  let offsetMs = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    gateway = await startTestGateway({ clock, env: { KGATE_TRUST_PROXY: '1' } });
  });
  afterAll(() => gateway.stop());

  const register = (address: string, metadata: Record<string, unknown> = {}) =>
    fetch(`${gateway.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ client_name: 'Limited client', redirect_uris: ['http://127.0.0.1:45678/callback'], ...metadata }),
    });
  const clientCount = async () => (await gateway.db.query<{ n: number }>('SELECT count(*)::int AS n FROM oauth_clients'))[0]!.n;

  it(`registers ${REGISTRATIONS_PER_ADDRESS} clients an hour from one address, then answers 429 and stores nothing`, async () => {
    const address = '192.0.2.10';
    for (let i = 0; i < REGISTRATIONS_PER_ADDRESS; i += 1) expect((await register(address)).status).toBe(201);
    offsetMs += 10 * 60_000;
    const before = await clientCount();
    const refused = await register(address, { client_name: 'One too many' });
    expect(refused.status).toBe(429);
    // The window started with the first registration, a few real seconds before the clock moved on ten minutes.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeLessThanOrEqual((REGISTRATION_WINDOW_MS - 10 * 60_000) / 1000);
    expect(retryAfter).toBeGreaterThan((REGISTRATION_WINDOW_MS - 10 * 60_000) / 1000 - 30);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await refused.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: `Too many client registrations from this address; try again in ${retryAfter} seconds.`,
    });
    // Nothing was created, and a concurrent burst is refused alike.
    const burst = await Promise.all(Array.from({ length: 5 }, () => register(address)));
    expect(burst.map((response) => response.status)).toEqual([429, 429, 429, 429, 429]);
    expect(await clientCount()).toBe(before);
    expect(await gateway.db.query("SELECT 1 FROM oauth_clients WHERE client_name = 'One too many'")).toEqual([]);

    // Malformed metadata is refused for what it is, before it counts.
    const malformed = await register(address, { redirect_uris: ['not a uri'] });
    expect(malformed.status).toBe(400);

    // Another address is not affected; and once the window is over, the address registers again.
    expect((await register('192.0.2.11')).status).toBe(201);
    offsetMs += REGISTRATION_WINDOW_MS - 10 * 60_000;
    expect((await register(address)).status).toBe(201);
  });

  it('never lets a concurrent burst past the limit', async () => {
    const address = '2001:db8:77:1::1';
    const burst = await Promise.all(Array.from({ length: REGISTRATIONS_PER_ADDRESS + 15 }, (_, i) => register(address, { client_name: `Burst ${i}` })));
    const statuses = burst.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(REGISTRATIONS_PER_ADDRESS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15);
    // Another address of the same /64 shares the count.
    expect((await register('2001:db8:77:1::2')).status).toBe(429);
    expect(((await gateway.db.query<{ n: number }>("SELECT count(*)::int AS n FROM oauth_clients WHERE client_name LIKE 'Burst %'"))[0]!.n)).toBe(
      REGISTRATIONS_PER_ADDRESS,
    );
  });
});
