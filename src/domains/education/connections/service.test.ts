import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../kernel/clock.ts';
import type { Database } from '../../../db/port.ts';
import { createEducationConnectionsService } from './service.ts';

describe('delegated connections without Google configured', () => {
  it('answers unavailable and completes nothing, without touching the database', async () => {
    const untouchable = new Proxy({}, { get: () => { throw new Error('the database was used'); } }) as Database;
    const service = createEducationConnectionsService({
      db: untouchable,
      clock: systemClock,
      http: () => Promise.reject(new Error('no request may be sent')),
      sealer: undefined,
      google: undefined,
      callbackUrl: () => 'https://kgate.example/api/product/v1/connections/google/oauth/callback',
    });
    const owner = { installationId: '00000000-0000-4000-8000-000000000001', customerAccountId: '00000000-0000-4000-8000-000000000002', productId: '00000000-0000-4000-8000-000000000003' };
    expect(service.available()).toBe(false);
    await expect(service.start(owner, { services: ['drive'], returnTo: 'https://planner.example.com/' })).rejects.toMatchObject({ code: 'unavailable' });
    await expect(service.list(owner)).rejects.toMatchObject({ code: 'unavailable' });
    expect(await service.complete({ state: 'x', code: 'y' })).toMatchObject({ kind: 'refused' });
    expect(await service.purgeExpired()).toBe(0);
  });
});
