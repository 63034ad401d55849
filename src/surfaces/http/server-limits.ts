import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from '../../logger.ts';

/**
 * The limits of the gateway's HTTP server: how long a client may take to send a request, how long an idle
 * connection stays open, how large a request head may be, and how many connections may be open at once.
 * docs/operations.md explains each one and what a client sees when it hits it.
 */
export interface ServerLimits {
  /** Time from a request's first byte to the end of its head; a slower head gets 408 (the slow-loris guard). */
  headersTimeoutMs: number;
  /** Time from a request's first byte to the end of its body; a slower request gets 408. */
  requestTimeoutMs: number;
  /** How long a keep-alive connection may sit idle after a response before the server closes it. */
  keepAliveTimeoutMs: number;
  /** Largest request head (request line and headers) in bytes; a larger one gets 431. */
  maxHeaderSize: number;
  /** Most connections open at once (idle keep-alive ones count); Node closes any connection beyond it at once. */
  maxConnections: number;
  /** How often Node looks for requests past `headersTimeoutMs` or `requestTimeoutMs`. */
  connectionsCheckingIntervalMs: number;
}

/** The limits a started gateway uses unless the operator overrides one (see `src/config.ts`). */
export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = {
  // A client sends its head in one or two packets. 20 s is ample even on a lossy mobile link, and it bounds how
  // long a slow-loris client that trickles header bytes can hold a connection (Node's default is 60 s).
  headersTimeoutMs: 20_000,
  // A whole request includes the largest body we accept (8 MiB): on a 1 Mbit/s uplink that takes about 67 s, so
  // 120 s leaves room for a link half that fast. It counts only while the request arrives, never while a handler
  // works or a response is sent. Node requires it to be at least headersTimeoutMs.
  requestTimeoutMs: 120_000,
  // Longer than the idle timeout of the load balancers in front of us (AWS ALB: 60 s by default), so that the
  // balancer always closes an idle connection first and never sends a request into one we are closing (a 502).
  // Node 20 starts the headers clock at a request's first byte, not when the connection goes idle (a test checks
  // it), so this may exceed headersTimeoutMs; the advice "headersTimeout > keepAliveTimeout" was for older Node.
  keepAliveTimeoutMs: 65_000,
  // Node's default: room for a bearer token, cookies and forwarding headers many times over. A larger head is
  // far more likely a bug or an attack than a client of ours.
  maxHeaderSize: 16 * 1024,
  // An idle connection costs about 11 KB of process memory here (measured with 4,000 keep-alive connections), so
  // 10,000 bound that at about 110 MB, below the file descriptor limit Node raises itself to on most hosts.
  // Beyond it, new connections are closed at once instead of slowing every client down.
  maxConnections: 10_000,
  // Node checks the two timeouts above on a timer (30 s by default), so a 20 s limit would fire after 20 to 50 s.
  // Each check walks only connections in the middle of a request, so checking every second is cheap.
  connectionsCheckingIntervalMs: 1_000,
};

/** The defaults with the given overrides; an override left undefined keeps the default. */
export function serverLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  const given = Object.entries(overrides).filter(([, value]) => value !== undefined);
  return { ...DEFAULT_SERVER_LIMITS, ...(Object.fromEntries(given) as Partial<ServerLimits>) };
}

/** Node's HTTP server with these limits, all set in this one place. */
export function createLimitedServer(limits: ServerLimits, listener: RequestListener): Server {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Set explicitly, so that NODE_OPTIONS=--max-http-header-size cannot change the documented limit unnoticed.
      maxHeaderSize: limits.maxHeaderSize,
      connectionsCheckingInterval: limits.connectionsCheckingIntervalMs,
    },
    listener,
  );
  server.maxConnections = limits.maxConnections;
  return server;
}

// A flood of refused connections must not flood the log too: one line a minute at most.
const DROP_REPORT_INTERVAL_MS = 60_000;

/**
 * Reports connections closed at the connection ceiling: a warning with the number closed since the last one,
 * at most once a minute. Addresses are not logged.
 */
export function reportDroppedConnections(server: Server, maxConnections: number, logger: Logger | undefined): void {
  let dropped = 0;
  let lastReport = -Infinity;
  server.on('drop', () => {
    dropped += 1;
    const now = performance.now();
    if (!logger || now - lastReport < DROP_REPORT_INTERVAL_MS) return;
    logger.warn({ dropped, maxConnections }, 'connection ceiling reached; new connections are closed unanswered');
    dropped = 0;
    lastReport = now;
  });
}
