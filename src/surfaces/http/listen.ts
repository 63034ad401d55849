import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../logger.ts';
import { clientErrorResponder } from './client-error.ts';
import type { NodeHandler } from './node-exchange.ts';
import { createLimitedServer, reportDroppedConnections, serverLimits, type ServerLimits } from './server-limits.ts';

/** Where and how to serve. */
export interface ListenOptions {
  host: string;
  port: number;
  /** Overrides of DEFAULT_SERVER_LIMITS: the gateway passes the configured ones, tests small ones. */
  limits?: Partial<ServerLimits>;
  /** Receives a line per request rejected before routing and per minute of refused connections; none when absent. */
  logger?: Logger;
}

/** A listening HTTP server. */
export interface RunningServer {
  /** The address actually bound, e.g. `http://127.0.0.1:8787` (useful with port 0). */
  readonly url: string;
  /** Node's server, to read its settings (tests, diagnostics); stop it with `close`, never directly. */
  readonly node: Server;
  /**
   * Stops accepting connections and waits for in-flight requests to finish, at most `graceMs`; connections
   * still open then are cut. Resolves when the server is closed.
   */
  close(graceMs: number): Promise<void>;
}

/** Serves a request handler on host:port with Node's HTTP server, within the limits of `server-limits.ts`. */
export async function listen(handler: NodeHandler, options: ListenOptions): Promise<RunningServer> {
  const limits = serverLimits(options.limits);
  const clientErrors = clientErrorResponder(limits, options.logger);
  // Handlers still running (even for a client that already hung up) keep the database in use: close() waits for
  // them too, not only for sockets, so that the caller can close the database safely afterwards.
  let inFlight = 0;
  let idle: (() => void) | undefined;
  const counted: NodeHandler = async (req, res) => {
    clientErrors.noteExchange(req, res);
    inFlight += 1;
    try {
      await handler(req, res);
    } finally {
      inFlight -= 1;
      if (inFlight === 0) idle?.();
    }
  };
  const server = await new Promise<Server>((resolve, reject) => {
    const started = createLimitedServer(limits, (req, res) => void counted(req, res));
    started.on('clientError', clientErrors.answer);
    reportDroppedConnections(started, limits.maxConnections, options.logger);
    started.once('error', reject);
    started.listen(options.port, options.host, () => resolve(started));
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    node: server,
    close(graceMs) {
      closing ??= new Promise<void>((resolve) => {
        // Keep-alive connections that finish their request become idle; sweep them so close() can complete.
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        let cut = false;
        const deadline = setTimeout(() => {
          cut = true;
          server.closeAllConnections();
          resolve();
        }, graceMs);
        server.close(() => {
          clearInterval(sweep);
          const done = () => {
            clearTimeout(deadline);
            resolve();
          };
          if (inFlight === 0 || cut) done();
          else idle = done;
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
