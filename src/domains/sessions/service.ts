import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { constantTimeEqual, sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { isSecretShaped, newSecret } from '../../kernel/secrets.ts';
import { MIN_PASSWORD_LENGTH, type AccountsService } from '../accounts/index.ts';
import {
  SESSION_LIST_LIMIT,
  SESSION_TTL_MS,
  SIGN_IN_ADDRESS_LOCKOUT_MS,
  SIGN_IN_ADDRESS_MAX_FAILURES,
  SIGN_IN_ADDRESS_WINDOW_MS,
  SIGN_IN_CLEAN_ADDRESS_LOCK_MS,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
  type SessionSummary,
  type SignInThrottle,
  type WebSession,
} from './contract.ts';
import * as store from './store.ts';

/** What changing a password needs. */
export interface PasswordChange {
  /** The signed-in session that asks: it stays signed in; every other session of the account ends. */
  session: WebSession;
  /** The password now, checked (and throttled) as a sign-in would be. */
  currentPassword: string;
  /** The new password, under the sign-up rules (at least 8 characters). */
  newPassword: string;
  /** The client address key (surfaces/http/client-address.ts) for the sign-in throttles. */
  clientAddress: string;
}

/** Browser sign-in and session use cases. */
export interface SessionsService {
  /**
   * E-mail + password sign-in, throttled per account (e-mail address) and per client address (a key from
   * surfaces/http/client-address.ts). Returns the new session and its secret, the cookie value, which is never
   * stored. Wrong e-mail and wrong password fail alike (`unauthenticated`); a suspended account fails with
   * `account_inactive` only once its password was right; a throttled attempt with `rate_limited`, whose
   * `details.reason` says which throttle (SignInThrottle) and `details.retryAfterSeconds` when to come back.
   */
  signIn(email: string, password: string, clientAddress: string): Promise<{ token: string; session: WebSession }>;
  /** The live session of an active account for a cookie value; undefined when unknown/expired/revoked/suspended. */
  resolve(token: string): Promise<WebSession | undefined>;
  /** Ends the session with this secret at once; unknown secrets are ignored. */
  signOut(token: string): Promise<void>;
  /**
   * Changes the password of the session's account, with the current one, and ends every other session of the
   * account in the same transaction. A wrong current password (`forbidden`, details.reason
   * `wrong_current_password`) counts as a failed sign-in and changes nothing; so does a throttled attempt
   * (`rate_limited`) and a new password that breaks the rules (`invalid_request`, checked first).
   */
  changePassword(change: PasswordChange): Promise<{ endedSessions: number }>;
  /** The live sessions of an account, newest first, at most SESSION_LIST_LIMIT of them. */
  listSessions(accountId: string): Promise<{ sessions: SessionSummary[]; truncated: boolean }>;
  /** Ends one live session of the account; false (and nothing changes) when the account has no such session. */
  endSession(accountId: string, sessionId: string): Promise<boolean>;
  /** Ends every live session of the account, the caller's included; returns how many ended. */
  signOutEverywhere(accountId: string): Promise<number>;
  /**
   * The CSRF token bound to a session secret: derived, never stored. Only someone who holds the (HttpOnly)
   * cookie value can compute it, and the page that shows it does not reveal the cookie.
   */
  csrfTokenOf(sessionToken: string): string;
  /** Deletes sessions that ended a day ago and sign-in attempt records whose window and lock are over. */
  purgeExpired(): Promise<number>;
}

// Writing last_seen_at on every page view would turn each read into a write; a minute's precision is enough.
const TOUCH_INTERVAL_MS = 60_000;
// Ended sessions stay a day, for an operator looking into a report, then go.
const KEEP_ENDED_MS = 24 * 60 * 60_000;
// No account has a longer address (EmailSchema); longer input is refused before it reaches the database.
const MAX_EMAIL_LENGTH = 254;

const WRONG_CREDENTIALS = 'The e-mail or password is wrong.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function throttled(reason: SignInThrottle, now: Date, until: Date | null): KgateError {
  const retryAfterSeconds = Math.max(1, Math.ceil(((until?.getTime() ?? now.getTime()) - now.getTime()) / 1000));
  const message =
    reason === 'sign_in_address_locked'
      ? 'Too many failed sign-ins from your network address; try again later.'
      : 'Too many failed sign-ins for this e-mail address; try again later.';
  return new KgateError('rate_limited', message, { reason, retryAfterSeconds });
}

/** Builds the sessions service. */
export function createSessionsService(db: Database, clock: Clock, accounts: AccountsService): SessionsService {
  const wrongCredentials = () => new KgateError('unauthenticated', WRONG_CREDENTIALS);

  /**
   * Runs a password check under both throttles: the client address first (it may not have failed too often, on any
   * account), then the account (locked after too many failures; shortly only, for an address that has not failed).
   * Each counts before the check, so that concurrent guesses cannot pass the limits. The address gets its attempt
   * back unless the password was checked and wrong; the account forgets its failures once the password was right.
   */
  async function throttledCheck<T>(emailKey: string, clientAddress: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const now = clock.now();
    const address = await store.countAddressAttempt(db, {
      addressKey: clientAddress,
      now,
      windowMs: SIGN_IN_ADDRESS_WINDOW_MS,
      maxAttempts: SIGN_IN_ADDRESS_MAX_FAILURES,
      lockoutMs: SIGN_IN_ADDRESS_LOCKOUT_MS,
    });
    if (!address.allowed) throw throttled('sign_in_address_locked', now, address.lockedUntil);
    const refundAddress = () => store.refundAddressAttempt(db, clientAddress, SIGN_IN_ADDRESS_MAX_FAILURES);
    const attempt = await store.countAttempt(db, {
      emailKey,
      now,
      windowMs: SIGN_IN_WINDOW_MS,
      maxAttempts: SIGN_IN_MAX_FAILURES,
      lockoutMs: SIGN_IN_LOCKOUT_MS,
      clean: address.clean,
      shortLockMs: SIGN_IN_CLEAN_ADDRESS_LOCK_MS,
    });
    if (!attempt.allowed) {
      // Refused unchecked: not a failure of this address (an owner locked out by a stranger stays clean).
      await refundAddress();
      const until = address.clean && attempt.shortLockUntil && attempt.shortLockUntil > now ? attempt.shortLockUntil : attempt.lockedUntil;
      throw throttled('sign_in_account_locked', now, until);
    }
    const result = await check();
    if (result !== undefined) {
      await store.clearAttempts(db, emailKey);
      await refundAddress();
    }
    return result;
  }

  return {
    async signIn(email, password, clientAddress) {
      const emailKey = email.trim().toLowerCase();
      if (emailKey.length === 0 || emailKey.length > MAX_EMAIL_LENGTH) throw wrongCredentials();
      // The password was right when an account comes back: this is the account holder, whatever the status.
      const account = await throttledCheck(emailKey, clientAddress, () => accounts.checkPassword(email, password));
      if (!account) throw wrongCredentials();
      if (account.status !== 'active') throw new KgateError('account_inactive', 'The account is suspended.');
      const token = newSecret(SECRET_PREFIXES.webSession);
      const createdAt = clock.now();
      const session: WebSession = {
        id: newId(createdAt.getTime()),
        accountId: account.id,
        email: account.email,
        createdAt,
        expiresAt: new Date(createdAt.getTime() + SESSION_TTL_MS),
      };
      await store.insertSession(db, { ...session, tokenHash: sha256Hex(token) });
      return { token, session };
    },

    async changePassword({ session, currentPassword, newPassword, clientAddress }) {
      // The rules first: a new password that cannot be used costs no attempt.
      if (newPassword.length < MIN_PASSWORD_LENGTH) {
        throw new KgateError('invalid_request', `The new password must have at least ${MIN_PASSWORD_LENGTH} characters.`, {
          field: 'new_password',
          reason: 'password_too_short',
        });
      }
      const emailKey = session.email.toLowerCase();
      const right = await throttledCheck(emailKey, clientAddress, async () =>
        (await accounts.checkPasswordOf(session.accountId, currentPassword)) ? true : undefined,
      );
      if (!right) {
        throw new KgateError('forbidden', 'The current password is wrong.', {
          field: 'current_password',
          reason: 'wrong_current_password',
        });
      }
      let endedSessions = 0;
      const now = clock.now();
      await accounts.setPassword(session.accountId, newPassword, now, async (tx) => {
        endedSessions = await store.revokeSessionsOfAccount(tx, { accountId: session.accountId, keepId: session.id, at: now });
      });
      return { endedSessions };
    },

    listSessions: (accountId) => store.listLiveSessions(db, { accountId, now: clock.now(), limit: SESSION_LIST_LIMIT }),

    async endSession(accountId, sessionId) {
      if (!UUID.test(sessionId)) return false;
      return store.revokeSessionOfAccount(db, { accountId, sessionId, at: clock.now() });
    },

    signOutEverywhere: (accountId) => store.revokeSessionsOfAccount(db, { accountId, at: clock.now() }),

    async resolve(token) {
      if (!isSecretShaped(token, SECRET_PREFIXES.webSession)) return undefined;
      const hash = sha256Hex(token);
      const row = await store.findSession(db, hash);
      // The lookup is by hash; the comparison guards against any future lookup that is not exact.
      if (!row || !constantTimeEqual(row.tokenHash, hash)) return undefined;
      const now = clock.now();
      if (row.revokedAt || row.session.expiresAt <= now || row.status !== 'active') return undefined;
      if (now.getTime() - row.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) await store.touchSession(db, row.session.id, now);
      return row.session;
    },

    async signOut(token) {
      if (!isSecretShaped(token, SECRET_PREFIXES.webSession)) return;
      await store.revokeSession(db, sha256Hex(token), clock.now());
    },

    csrfTokenOf: (sessionToken) => sha256Hex(`kgate-csrf|${sessionToken}`),

    purgeExpired() {
      const now = clock.now();
      return store.purgeExpired(db, {
        now,
        before: new Date(now.getTime() - KEEP_ENDED_MS),
        windowStart: new Date(now.getTime() - SIGN_IN_WINDOW_MS),
        addressWindowStart: new Date(now.getTime() - SIGN_IN_ADDRESS_WINDOW_MS),
      });
    },
  };
}
