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

/** A live session of an account as its account page lists it: never its secret, which only the browser holds. */
export interface SessionSummary {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  /** Last use, to the minute (the session is touched at most once a minute). */
  lastSeenAt: Date;
}

/** Most sessions an account page lists; more are reported as truncated. */
export const SESSION_LIST_LIMIT = 100;

/**
 * Failed sign-ins of one account (its lower-cased e-mail address) within SIGN_IN_WINDOW_MS before it is locked.
 * A wrong current password on the password form counts as a failed sign-in.
 */
export const SIGN_IN_MAX_FAILURES = 5;
/** The window in which failed sign-ins of one account are counted; it starts at the first failure. */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
/** How long a locked account stays locked for client addresses that have failed a sign-in (of any account). */
export const SIGN_IN_LOCKOUT_MS = 15 * 60_000;
/**
 * How long a locked account stays locked for a client address that has not failed: after this, one attempt from
 * such an address may check its password, and the short lock starts again. A stranger who locked the account
 * therefore keeps its owner out for about a minute, and gets one more guess a minute, each from a new address.
 */
export const SIGN_IN_CLEAN_ADDRESS_LOCK_MS = 60_000;
/** Failed sign-ins from one client address (IPv4 address or IPv6 /64), across accounts, before it is locked. */
export const SIGN_IN_ADDRESS_MAX_FAILURES = 20;
/** The window in which failed sign-ins of one client address are counted; it starts at the first failure. */
export const SIGN_IN_ADDRESS_WINDOW_MS = 15 * 60_000;
/** How long a client address stays locked after SIGN_IN_ADDRESS_MAX_FAILURES failures. */
export const SIGN_IN_ADDRESS_LOCKOUT_MS = 15 * 60_000;

/** Which throttle refused a sign-in (`details.reason` of the `rate_limited` error). */
export type SignInThrottle = 'sign_in_address_locked' | 'sign_in_account_locked';
