import { refreshGrownStatistics } from '../db/fresh-statistics.ts';
import type { Database } from '../db/port.ts';
import type { Logger } from '../logger.ts';
import type { Services } from './services.ts';

// Expired idempotency keys, old minute counters and old preview receipts are garbage; purging hourly keeps the tables small.
const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

// Units leased for a minute that has ended go back to the month counters within this interval.
const LEASE_SWEEP_INTERVAL_MS = 60 * 1000;

// Remote mappings due for a sync step are looked for this often; each step is bounded (PROVIDER_BUDGETS.syncStep).
const SYNC_TICK_MS = 2 * 1000;
// Mappings stepped per tick, one after another, so that sync never takes more than a share of the process.
const SYNC_MAPPINGS_PER_TICK = 4;

// The embedded database's statistics are checked this often (the work is one small catalog query when nothing grew).
const STATISTICS_INTERVAL_MS = 10 * 1000;

/**
 * Starts the periodic housekeeping of a gateway: hourly purges of expired idempotency keys, old usage counters,
 * sessions, OAuth and Product Runtime leftovers (expired tokens and client assertion ids), the per-minute return of unused leased usage units, sync steps of remote mappings
 * that are due (docs/providers.md), and on the embedded database
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
      services.connections.purgeAuthorizations(),
      services.runtimeCredentials.purgeExpired(),
      services.media.sweepAbandoned(),
      services.educationConnections.purgeExpired(),
    ]).catch((error: unknown) =>
      logger.warn({ err: error }, 'maintenance failed'),
    );
  }, MAINTENANCE_INTERVAL_MS);
  const sweep = setInterval(() => {
    services.usage.releaseLeases({ expiredOnly: true }).catch((error: unknown) => logger.warn({ err: error }, 'returning usage leases failed'));
    // Reservations never dispatched give their capacity back; requests abandoned mid-call are charged (docs/budgets.md).
    services.models.expire().catch((error: unknown) => logger.warn({ err: error }, 'expiring intelligence reservations failed'));
  }, LEASE_SWEEP_INTERVAL_MS);
  let syncing = false;
  const sync = setInterval(() => {
    if (syncing) return;
    syncing = true;
    services.sync
      .runDueSyncs({ limit: SYNC_MAPPINGS_PER_TICK })
      .then((results) => {
        for (const result of results) {
          if (result.error !== undefined) logger.warn({ err: result.error, mappingId: result.mappingId }, 'sync step failed');
          else if (result.outcome?.error) logger.info({ mappingId: result.mappingId, code: result.outcome.error.code }, 'sync step ended with a provider error');
        }
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'looking for due syncs failed'))
      .finally(() => (syncing = false));
  }, SYNC_TICK_MS);
  const timers = [purge, sweep, sync];
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
