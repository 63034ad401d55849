import type { Logger } from '../logger.ts';
import type { Services } from './services.ts';

// Expired idempotency keys and old minute counters are garbage; purging hourly keeps both tables small.
const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

// Units leased for a minute that has ended go back to the month counters within this interval.
const LEASE_SWEEP_INTERVAL_MS = 60 * 1000;

/**
 * Starts the periodic housekeeping of a gateway: hourly purges of expired idempotency keys, old usage counters,
 * sessions and OAuth leftovers, and the per-minute return of unused leased usage units. Returns the timers to clear.
 */
export function startMaintenance(services: Services, logger: Logger): NodeJS.Timeout[] {
  const purge = setInterval(() => {
    Promise.all([
      services.idempotency.purgeExpired(),
      services.usage.purgeOldCounters(),
      services.sessions.purgeExpired(),
      services.oauth.purgeExpired(),
    ]).catch((error: unknown) =>
      logger.warn({ err: error }, 'maintenance failed'),
    );
  }, MAINTENANCE_INTERVAL_MS);
  const sweep = setInterval(() => {
    services.usage.releaseLeases({ expiredOnly: true }).catch((error: unknown) => logger.warn({ err: error }, 'returning usage leases failed'));
  }, LEASE_SWEEP_INTERVAL_MS);
  for (const timer of [purge, sweep]) timer.unref();
  return [purge, sweep];
}
