import { refreshGrownStatistics } from '../db/fresh-statistics.ts';
import type { Database } from '../db/port.ts';
import type { Logger } from '../logger.ts';
import type { Services } from './services.ts';

// Expired idempotency keys, old minute counters and old preview receipts are garbage; purging hourly keeps the tables small.
const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

// Units leased for a minute that has ended go back to the month counters within this interval.
const LEASE_SWEEP_INTERVAL_MS = 60 * 1000;

// The embedded database's statistics are checked this often (the work is one small catalog query when nothing grew).
const STATISTICS_INTERVAL_MS = 10 * 1000;

/**
 * Starts the periodic housekeeping of a gateway: hourly purges of expired idempotency keys, old usage counters,
 * sessions and OAuth leftovers, the per-minute return of unused leased usage units, and on the embedded database
 * (which has no autovacuum) fresh planner statistics for tables that grew. Returns the timers to clear.
 */
export function startMaintenance(services: Services, logger: Logger, db?: Database): NodeJS.Timeout[] {
  const purge = setInterval(() => {
    Promise.all([
      services.idempotency.purgeExpired(),
      services.usage.purgeOldCounters(),
      services.sessions.purgeExpired(),
      services.oauth.purgeExpired(),
      services.notes.purgePreviewReceipts(),
      services.proposals.expireDue(),
    ]).catch((error: unknown) =>
      logger.warn({ err: error }, 'maintenance failed'),
    );
  }, MAINTENANCE_INTERVAL_MS);
  const sweep = setInterval(() => {
    services.usage.releaseLeases({ expiredOnly: true }).catch((error: unknown) => logger.warn({ err: error }, 'returning usage leases failed'));
  }, LEASE_SWEEP_INTERVAL_MS);
  const timers = [purge, sweep];
  if (db?.engine === 'pglite') {
    let running = false;
    timers.push(
      setInterval(() => {
        if (running) return;
        running = true;
        const started = performance.now();
        refreshGrownStatistics(db)
          .then((tables) => {
            if (tables.length > 0) logger.info({ tables, ms: Math.round(performance.now() - started) }, 'planner statistics refreshed');
          })
          .catch((error: unknown) => logger.warn({ err: error }, 'refreshing planner statistics failed'))
          .finally(() => (running = false));
      }, STATISTICS_INTERVAL_MS),
    );
  }
  for (const timer of timers) timer.unref();
  return timers;
}
