import type { Database } from '../../db/port.ts';
import type { Clock } from '../../kernel/clock.ts';
import { KgateError } from '../../kernel/errors.ts';
import { constantTimeEqual, sha256Hex } from '../../kernel/hashing.ts';
import { newId } from '../../kernel/ids.ts';
import { SECRET_PREFIXES } from '../../kernel/secret-prefixes.ts';
import { isSecretShaped, newSecret } from '../../kernel/secrets.ts';
import type { AccountsService } from '../accounts/index.ts';
import {
  SESSION_TTL_MS,
  SIGN_IN_LOCKOUT_MS,
  SIGN_IN_MAX_FAILURES,
  SIGN_IN_WINDOW_MS,
  type WebSession,
} from './contract.ts';
import * as store from './store.ts';

/** Browser sign-in and session use cases. */
export interface SessionsService {
  /**
   * E-mail + password sign-in, throttled per e-mail address. Returns the new session and its secret, the cookie
   * value, which is never stored. Wrong e-mail and wrong password fail alike (`unauthenticated`); a suspended
   * account fails with `account_inactive` only once its password was right; a locked address with `rate_limited`.
   */
  signIn(email: string, password: string): Promise<{ token: string; session: WebSession }>;
  /** The live session of an active account for a cookie value; undefined when unknown/expired/revoked/suspended. */
  resolve(token: string): Promise<WebSession | undefined>;
  /** Ends the session with this secret at once; unknown secrets are ignored. */
  signOut(token: string): Promise<void>;
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

/** Builds the sessions service. */
export function createSessionsService(db: Database, clock: Clock, accounts: AccountsService): SessionsService {
  const wrongCredentials = () => new KgateError('unauthenticated', WRONG_CREDENTIALS);

  return {
    async signIn(email, password) {
      const emailKey = email.trim().toLowerCase();
      if (emailKey.length === 0 || emailKey.length > MAX_EMAIL_LENGTH) throw wrongCredentials();
      // Counted before the check, so concurrent guesses cannot get past the limit (store.countAttempt).
      const now = clock.now();
      const attempt = await store.countAttempt(db, {
        emailKey,
        now,
        windowMs: SIGN_IN_WINDOW_MS,
        maxAttempts: SIGN_IN_MAX_FAILURES,
        lockoutMs: SIGN_IN_LOCKOUT_MS,
      });
      if (!attempt.allowed) {
        const retryAfterSeconds = Math.max(1, Math.ceil(((attempt.lockedUntil?.getTime() ?? now.getTime()) - now.getTime()) / 1000));
        throw new KgateError('rate_limited', 'Too many failed sign-ins for this e-mail address; try again later.', {
          retryAfterSeconds,
        });
      }
      const account = await accounts.checkPassword(email, password);
      if (!account) throw wrongCredentials();
      // The password was right: this is the account holder, not a guesser, whatever the status.
      await store.clearAttempts(db, emailKey);
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
      });
    },
  };
}
