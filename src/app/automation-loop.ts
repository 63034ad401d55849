import type { AutomationService } from '../domains/automation/index.ts';
import type { Logger } from '../logger.ts';

/** The background loop of the automation gateway, and how to stop it. */
export interface AutomationLoop {
  /** Stops ticking and waits for a tick that is running to end, so that the database is not closed under it. */
  stop(): Promise<void>;
}

/**
 * Moves automation on by itself every `intervalMs` (KGATE_AUTOMATION_PROCESS_MS; docs/automation.md, "process"): due
 * schedule triggers, queued runs, approved automation proposals and due webhook deliveries of every workspace. External
 * bridges therefore need not call POST /process; a script that does shares the work safely, since runs and deliveries
 * are claimed under leases. One tick at a time: a tick that outlasts the interval skips the next ones. 0: no loop.
 */
export function startAutomationLoop(automation: AutomationService, logger: Logger, intervalMs: number): AutomationLoop {
  if (intervalMs <= 0) return { stop: async () => {} };
  let running: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = automation
      .process('all')
      .then((summary) => {
        const moved = Object.values(summary).some((n) => n > 0);
        if (moved) logger.info({ automation: summary }, 'automation processed');
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'processing automation failed'))
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
