/** Browser sign-in with e-mail and password, throttled per address, and the sessions it opens. */
export { SESSION_TTL_MS, SIGN_IN_LOCKOUT_MS, SIGN_IN_MAX_FAILURES, SIGN_IN_WINDOW_MS } from './contract.ts';
export type { WebSession } from './contract.ts';
export { createSessionsService } from './service.ts';
export type { SessionsService } from './service.ts';
