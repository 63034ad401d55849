/** Browser sign-in with e-mail and password, throttled per account and per client address; the sessions it opens. */
export {
  SESSION_LIST_LIMIT,
  SESSION_TTL_MS,
  SIGN_IN_ADDRESS_LOCKOUT_MS,
  SIGN_IN_ADDRESS_MAX_FAILURES,
  SIGN_IN_ADDRESS_WINDOW_MS,
  SIGN_IN_CLEAN_ADDRESS_LOCK_MS,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
} from './contract.ts';
export type { SessionSummary, SignInThrottle, WebSession } from './contract.ts';
export { createSessionsService } from './service.ts';
export type { PasswordChange, SessionsService } from './service.ts';
