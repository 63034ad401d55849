import pg from 'pg';

// Reconnection waits grow from 250 ms to 10 s: quick after a blip, gentle on a server that is down.
const FIRST_RETRY_MS = 250;
const LAST_RETRY_MS = 10_000;

/**
 * Listens to one channel on a dedicated connection (LISTEN holds a session, so it cannot use the pool). When the
 * connection drops, `onState(false)` is reported at once and the listener reconnects with backoff, reporting
 * `onState(true)` once it listens again. Resolves after the first LISTEN succeeded, so a gateway that cannot
 * listen fails at start-up rather than serving without invalidation.
 */
export async function listenOnPostgres(
  connectionString: string,
  channel: string,
  onMessage: (payload: string) => void,
  onState: (listening: boolean) => void = () => undefined,
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = FIRST_RETRY_MS;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString, application_name: 'kgate-listener' });
    next.on('notification', (message) => {
      if (message.channel === channel) onMessage(message.payload ?? '');
    });
    next.on('error', () => lost(next));
    next.on('end', () => lost(next));
    try {
      await next.connect();
      await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    client = next;
    delay = FIRST_RETRY_MS;
  };

  const lost = (which: pg.Client) => {
    if (stopped || which !== client) return;
    client = undefined;
    onState(false);
    which.end().catch(() => undefined);
    scheduleRetry();
  };

  const scheduleRetry = () => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect().then(
        () => (stopped ? client?.end().catch(() => undefined) : onState(true)),
        () => {
          delay = Math.min(delay * 2, LAST_RETRY_MS);
          scheduleRetry();
        },
      );
    }, delay);
    retryTimer.unref();
  };

  await connect();
  return async () => {
    stopped = true;
    if (retryTimer) clearTimeout(retryTimer);
    const current = client;
    client = undefined;
    await current?.end().catch(() => undefined);
  };
}
