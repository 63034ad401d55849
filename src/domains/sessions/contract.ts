/**
 * Signed-in browser sessions: what a session is, how long it lives, and how sign-in guessing is slowed down.
 * The spec leaves all of it open (spec 5 names an HttpOnly session cookie only); the numbers are ours.
 */

/** A signed-in browser session of an active account. The secret (the cookie value) is never part of it. */
export interface WebSession {
  id: string;
  accountId: string;
  /** The account's e-mail address, shown on pages as "signed in as". */
  email: string;
  createdAt: Date;
  expiresAt: Date;
}

/**
 * Absolute lifetime of a session: a working day. Not extended by use, so a stolen cookie stops working within
 * this time whatever its thief does; signing in again costs one form.
 */
export const SESSION_TTL_MS = 12 * 60 * 60_000;

/** Sign-in attempts for one e-mail address allowed within SIGN_IN_WINDOW_MS before it is locked. */
export const SIGN_IN_MAX_FAILURES = 5;
/** The window in which failed sign-ins of one address are counted; it starts at the first failure. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** How long an address stays locked after SIGN_IN_MAX_FAILURES failures. */
export const SIGN_IN_LOCKOUT_MS = 15 * 60_000;
