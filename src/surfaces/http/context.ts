import type { Logger } from '../../logger.ts';
import type { AuthenticatedPrincipal } from '../../domains/tokens/index.ts';

/** Per-request values that middleware sets for handlers. */
export interface HttpVariables {
  requestId: string;
  log: Logger;
  principal: AuthenticatedPrincipal;
  /** The request body, read and bounded before authentication on routes that take one (see the REST API). */
  body: Buffer;
}

/** The Hono environment of our app. */
export interface HttpEnv {
  Variables: HttpVariables;
}
