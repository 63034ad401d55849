import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../logger.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';

/** Per-request values that middleware sets for handlers. */
export interface HttpVariables {
  requestId: string;
  /**
   * The request's logger (its lines carry the request id), made on first use: a child logger costs the redaction
   * of its bindings, about a twentieth of a note read's CPU, and almost no request logs anything of its own.
   */
  log: () => Logger;
  principal: AuthenticatedPrincipal;
  /** The request body, read and bounded before authentication on routes that take one (see the REST API). */
  body: Buffer;
}

/**
 * What @hono/node-server passes as the app's environment: Node's request and response. Absent when the app is
 * called without a Node server (Hono's `app.request` in a test).
 */
export interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/** The Hono environment of our app. */
export interface HttpEnv {
  Bindings: NodeBindings;
  Variables: HttpVariables;
}
